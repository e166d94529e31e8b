// The service inside the bench's own process, for stages that time SQL statements or compare two routes
// of one server rather than measure the service as `npm start` runs it (bench/processes.ts does that):
// production configuration, no log, no cache, a rate limit no load reaches, on a free port.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { buildApp } from "../src/app/build-app.ts";
import { openRuntime } from "../src/bootstrap.ts";
import { loadConfig } from "../src/config.ts";
import { silentLogger } from "../src/logger.ts";

export interface InProcessService {
  base: string;
  /** Stops taking requests; the database stays open. */
  stopListening(): void;
  /** Stops listening, then closes the database. */
  close(): Promise<void>;
}

export async function startInProcessService(databaseEnv: Record<string, string>): Promise<InProcessService> {
  const config = loadConfig({
    ...databaseEnv,
    NODE_ENV: "production",
    LOG_LEVEL: "silent",
    CACHE: "off",
    RATE_LIMIT_AUTHENTICATED: "1000000000",
  });
  const runtime = await openRuntime(config, silentLogger, {});
  const app = buildApp({ config, logger: silentLogger, ...runtime });
  const server = await new Promise<Server>((resolve) => {
    const listening = createServer(app.listener).listen(0, "127.0.0.1", () => resolve(listening));
  });
  let listening = true;
  const stopListening = () => {
    if (listening) server.close();
    listening = false;
  };
  return {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    stopListening,
    async close() {
      stopListening();
      await runtime.close?.();
    },
  };
}
