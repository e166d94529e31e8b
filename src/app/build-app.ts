// One instance's request listener, built without listening so tests run it in-process: the cached-read
// door first (a cache hit is answered before Express sees the request, cached-read-door.ts), then the
// Express pipeline (routes.ts) over the wired services (services.ts). The server (and every test) hands
// `listener` to http.createServer.
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Express } from "express";
import proxyAddr from "proxy-addr";
import { cachedReadDoor } from "../http/cached-read-door.ts";
import { mountRoutes, requestObservers } from "./routes.ts";
import { type AppDeps, wireServices } from "./services.ts";

export type { AppDeps } from "./services.ts";

export interface ServiceApp {
  /** What the HTTP server calls for every request. */
  listener: (req: IncomingMessage, res: ServerResponse) => void;
  /** The pipeline behind the door (for tests that look inside it). */
  express: Express;
}

export function buildApp(deps: AppDeps): ServiceApp {
  const wiring = wireServices(deps);
  const observe = requestObservers(deps, wiring);
  const app = mountRoutes(deps, wiring, observe);
  const { restCache, graphqlAnswers } = wiring;
  if (!restCache || !graphqlAnswers) return { listener: app, express: app };
  const listener = cachedReadDoor(
    {
      head: wiring.contentHead,
      rest: restCache,
      graphql: graphqlAnswers,
      callers: wiring.callers,
      limiter: deps.rateLimiter,
      identify: wiring.identify,
      observe,
      bodyLimitBytes: deps.config.bodyLimitBytes,
      cacheControl: wiring.cacheControl,
      addressOf: (req) => proxyAddr(req, app.get("trust proxy fn")),
    },
    app,
  );
  return { listener, express: app };
}
