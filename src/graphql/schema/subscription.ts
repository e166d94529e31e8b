// Subscriptions (over Server-Sent Events, Yoga's built-in transport: POST or GET /graphql with
// `accept: text/event-stream`). `contentChanged` emits every change of the workspace's content as the
// change log records it, after commit, from any instance or process (src/graphql/live/change-stream.ts).
// Visibility is the reads': a public key never sees a draft, nor a draft translation (issue 56). A post
// leaving public view (unpublished or deleted) reaches public subscribers as its event with only its id
// and the slug it was public under, and only if it was public before (live/public-departures.ts): a
// deleted draft leaves no trace. `locale` keeps the changes that concern one locale (event-locales.ts).
//
// A subscription the service ends (its key revoked, or too many changes left unread) sends one last
// event, the error naming the reason, then completes. Open subscriptions are capped per key and per
// instance (SUBSCRIPTION_MAX_PER_KEY, SUBSCRIPTION_MAX_PER_INSTANCE): past a cap, 429.

import { concernsLocale } from "../../content/changes/event-locales.ts";
import { namedLocale } from "../../content/locales/locales.ts";
import { isLive } from "../../content/post-visibility.ts";
import { EVENT_TYPES, isEventType, isPrivateEventType } from "../../domain/event-types.ts";
import type { Event as EventRow } from "../../generated/prisma/client.ts";
import { absoluteMediaReferencesIn } from "../../media/media-references.ts";
import { builder } from "../builder.ts";
import type { GraphQLContext } from "../context.ts";
import { rateLimitedError, subscriptionEndedError, userInputError } from "../errors.ts";
import {
  type ChangeFilter,
  isStreamEnd,
  type StreamItem,
  TooManySubscriptionsError,
} from "../live/change-stream.ts";
import { checkPublicDepartures } from "../live/public-departures.ts";
import { Event } from "./event.ts";

/** How long a connection that stopped reading keeps its socket after its subscription ended. */
const SLOW_CLIENT_GRACE_MS = 2_000;
/** What a client past a subscription cap is told to wait: subscriptions are long-lived, seconds are enough. */
const RETRY_SUBSCRIBE_SECONDS = 10;

builder.subscriptionType({});

builder.subscriptionField("contentChanged", (t) =>
  t.field({
    type: Event,
    description:
      "Every change of the workspace's content from now on (public keys: published content only). Over SSE: `accept: text/event-stream`",
    args: {
      types: t.arg.stringList({ required: false, description: "Only these event types (post.published, …)" }),
      locale: t.arg({
        type: "LocaleCode",
        required: false,
        description:
          "Only the changes that concern this locale (a post's events name theirs in `locales`; a key that cannot read drafts: its published translations only); those of records without translations concern every locale",
      }),
    },
    subscribe: async (_root, args, ctx) => {
      const stream = ctx.services.changes;
      if (!stream) throw new Error("subscriptions are not wired in this process");
      const { workspaceId, keyId } = ctx.caller;
      const locale = args.locale == null ? null : await namedLocale(ctx.prisma, workspaceId, args.locale);
      const isPublic = ctx.caller.audience !== "private";
      // The locale whose forms tell a public subscriber's departures apart: the asked one, else the event's.
      const defaultCode = isPublic ? (locale?.isDefault ? locale.code : await defaultLocaleCode(ctx)) : "";
      const formLocale = (event: EventRow) => {
        const code = locale?.code ?? event.locales?.[0] ?? defaultCode;
        return { code, isDefault: code === defaultCode };
      };
      try {
        const items = await stream.subscribe(
          { workspaceId, keyId },
          visibleChanges(ctx, args.types ?? null, locale?.code ?? null),
          {
            onEndedByService: (reason) => {
              ctx.services.logger.info("subscription ended by the service", { reason, workspaceId, keyId });
              // A reader gets the last event and the stream's end at once; a connection that stopped
              // reading would hold its socket until the OS gave up: it is closed.
              if (reason === "SUBSCRIBER_TOO_SLOW")
                ctx.connection?.closeUnlessAnsweredWithin(SLOW_CLIENT_GRACE_MS);
            },
          },
        );
        return isPublic ? checkPublicDepartures(items, ctx.prisma, formLocale) : items;
      } catch (error) {
        if (error instanceof TooManySubscriptionsError)
          throw rateLimitedError(error.message, RETRY_SUBSCRIBE_SECONDS, {
            reason: "TOO_MANY_SUBSCRIPTIONS",
            limit: error.limit,
          });
        throw error;
      }
    },
    resolve: (item: StreamItem, _args, ctx) => {
      if (isStreamEnd(item))
        throw subscriptionEndedError(item.endedBecause, ctx.services.config.subscriptions.maxQueued);
      // Imported records name their files relative as stored (media-references.ts): absolute here too.
      const data = absoluteMediaReferencesIn(item.data, (key) => ctx.services.mediaStorage.urlFor(key));
      return { ...item, data: data as EventRow["data"] };
    },
  }),
);

async function defaultLocaleCode(ctx: GraphQLContext): Promise<string> {
  return (await namedLocale(ctx.prisma, ctx.caller.workspaceId, null)).code;
}

function visibleChanges(
  ctx: GraphQLContext,
  types: readonly string[] | null,
  locale: string | null,
): ChangeFilter {
  const unknown = (types ?? []).filter((type) => !isEventType(type));
  if (unknown.length > 0)
    throw userInputError(`Unknown event types: ${unknown.join(", ")}`, [
      { field: "types", message: `Each must be one of ${EVENT_TYPES.join(", ")}` },
    ]);
  const wanted = types && types.length > 0 ? new Set(types) : null;
  const isPublic = ctx.caller.audience !== "private";
  return (event) => {
    if (wanted && !wanted.has(event.type)) return null;
    if (locale !== null && !concernsLocale(event, locale, isPublic)) return null;
    // Webhook endpoints and API keys are private settings: keys that do not read drafts never see them.
    if (isPublic && isPrivateEventType(event.type)) return null;
    // A change of draft translations only: nothing of it for a key that cannot read drafts.
    if (isPublic && (event.locales ?? []).length > 0 && (event.publicLocales ?? []).length === 0) return null;
    if (!isPublic || !event.type.startsWith("post.")) return event;
    return publicPostEvent(event);
  };
}

/** What a public key may see of a post event: published posts whole, departures as id and slug (checked
 * against the post's history after this filter, live/public-departures.ts). */
function publicPostEvent(event: EventRow): EventRow | null {
  if (event.type === "post.unpublished" || event.type === "post.deleted")
    return { ...event, data: { id: event.resourceId, slug: event.slug } };
  // A scheduled post's events stay private until the scheduler's post.published (post-visibility.ts).
  return isLive((event.data ?? {}) as { status?: unknown; publishedAt?: unknown }, new Date()) ? event : null;
}
