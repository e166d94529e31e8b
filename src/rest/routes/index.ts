// The whole /v1 route table. Order matters only where paths overlap: keyed routes are mounted before
// the `/{workspace_id}/…` forms, so `/v1/posts/{identifier}` always wins over a workspace id "posts".
import type { Config } from "../../config.ts";
import type { RestRoute } from "../route.ts";
import { authorRoutes } from "./authors.ts";
import { changeRoutes } from "./changes.ts";
import { eventRoutes } from "./events.ts";
import { fieldRoutes } from "./fields.ts";
import { keyRoutes } from "./keys.ts";
import { localeRoutes } from "./locales.ts";
import { mediaRoutes } from "./media.ts";
import { postPreviewRoutes } from "./post-previews.ts";
import { postRevisionRoutes } from "./post-revisions.ts";
import { postRoutes } from "./posts.ts";
import { categoryRoutes, tagRoutes } from "./taxonomies.ts";
import { webhookDeliveryRoutes } from "./webhook-deliveries.ts";
import { webhookRoutes } from "./webhooks.ts";

export function restRoutes(config: Config): RestRoute[] {
  return [
    ...postRoutes,
    ...postRevisionRoutes,
    ...postPreviewRoutes,
    ...categoryRoutes,
    ...tagRoutes,
    ...authorRoutes,
    ...mediaRoutes(config),
    ...fieldRoutes,
    ...localeRoutes,
    ...eventRoutes,
    ...changeRoutes,
    ...webhookRoutes,
    ...webhookDeliveryRoutes,
    ...keyRoutes,
  ];
}
