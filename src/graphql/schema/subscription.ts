// Subscriptions (over Server-Sent Events, Yoga's built-in transport: POST or GET /graphql with
// `accept: text/event-stream`). `contentChanged` emits every change of the workspace's content as the
// change log records it, after commit, from any instance or process (src/graphql/live/change-stream.ts).
// Visibility is the reads': a public key never sees a draft. A post leaving public view (unpublished or
// deleted) reaches public subscribers as its event with only its id and slug.

import { isLive } from "../../content/post-visibility.ts";
import { EVENT_TYPES, isEventType } from "../../domain/event-types.ts";
import type { Event as EventRow } from "../../generated/prisma/client.ts";
import { builder } from "../builder.ts";
import type { GraphQLContext } from "../context.ts";
import { userInputError } from "../errors.ts";
import type { ChangeFilter } from "../live/change-stream.ts";
import { Event } from "./event.ts";

builder.subscriptionType({});

builder.subscriptionField("contentChanged", (t) =>
  t.field({
    type: Event,
    description:
      "Every change of the workspace's content from now on (public keys: published content only). Over SSE: `accept: text/event-stream`",
    args: {
      types: t.arg.stringList({ required: false, description: "Only these event types (post.published, …)" }),
    },
    subscribe: (_root, args, ctx) => {
      const stream = ctx.services.changes;
      if (!stream) throw new Error("subscriptions are not wired in this process");
      return stream.subscribe(ctx.caller.workspaceId, visibleChanges(ctx, args.types ?? null));
    },
    resolve: (event) => event,
  }),
);

function visibleChanges(ctx: GraphQLContext, types: readonly string[] | null): ChangeFilter {
  const unknown = (types ?? []).filter((type) => !isEventType(type));
  if (unknown.length > 0)
    throw userInputError(`Unknown event types: ${unknown.join(", ")}`, [
      { field: "types", message: `Each must be one of ${EVENT_TYPES.join(", ")}` },
    ]);
  const wanted = types && types.length > 0 ? new Set(types) : null;
  const isPublic = ctx.caller.keyKind !== "private";
  return (event) => {
    if (wanted && !wanted.has(event.type)) return null;
    // Webhook endpoints are private settings (their URLs included): public keys never see them.
    if (isPublic && event.type.startsWith("webhook.")) return null;
    if (!isPublic || !event.type.startsWith("post.")) return event;
    return publicPostEvent(event);
  };
}

/** What a public key may see of a post event: published posts whole, departures as id and slug. */
function publicPostEvent(event: EventRow): EventRow | null {
  if (event.type === "post.unpublished" || event.type === "post.deleted")
    return { ...event, data: { id: event.resourceId, slug: event.slug } };
  // A scheduled post's events stay private until the scheduler's post.published (post-visibility.ts).
  return isLive((event.data ?? {}) as { status?: unknown; publishedAt?: unknown }, new Date()) ? event : null;
}
