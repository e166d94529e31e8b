// The route template of a request (`/v1/posts/:identifier`): its mount path plus the matched route's
// pattern, never the raw URL, whose ids would make a metrics series each. A request answered before
// routing (a cache hit, src/http/cached-read-door.ts) names the template of the route that stored it.
import type { ServerResponse } from "node:http";
import type { Request } from "express";

const answeredBefore = new WeakMap<ServerResponse, string>();

/** Names the route of a response sent before Express routed its request. */
export function answeredAs(res: ServerResponse, template: string): void {
  answeredBefore.set(res, template);
}

export function routeTemplateOf(req: Request, res: ServerResponse): string {
  const before = answeredBefore.get(res);
  if (before) return before;
  const pattern = req.route?.path;
  if (typeof pattern === "string") return `${req.baseUrl}${pattern}`;
  // Mounted handlers without a route of their own (/graphql, media files) go by their mount path.
  return req.baseUrl || "unmatched";
}
