// The change log: Event and the `events` connection (private keys only; see event-log.ts).
import { visibleLocales } from "../../content/changes/event-locales.ts";
import type { Event as EventRow } from "../../generated/prisma/client.ts";
import { builder } from "../builder.ts";
import { DEFAULT_EVENT_PAGE_SIZE, eventConnection } from "../event-log.ts";

export const Event = builder.objectRef<EventRow>("Event").implement({
  description: "One change of the workspace's content, recorded in the same transaction as the change",
  fields: (t) => ({
    id: t.exposeID("id", { description: "Sortable and unique; the same on every delivery of the event" }),
    type: t.exposeString("type", { description: "post.created, post.published, media.uploaded, …" }),
    workspaceId: t.exposeString("workspaceId"),
    resourceId: t.exposeString("resourceId"),
    slug: t.exposeString("slug", {
      nullable: true,
      description: "The resource's slug (a field's key); null for media",
    }),
    locales: t.field({
      type: ["LocaleCode"],
      nullable: true,
      description:
        "Posts: the locales the event concerns — the translation written, or all of the post's for a change of shared fields or its removal (a key that cannot read drafts: the published ones only); null for records without translations",
      resolve: (event, _args, ctx) => visibleLocales(event, ctx.caller.audience !== "private"),
    }),
    data: t.field({
      type: "JSON",
      description:
        "The resource as the REST GET returns it after the change; for deletes its last id and slug. On a page too large for one answer, the largest in a smaller form naming the fields left out in `omittedFields`",
      resolve: (event) => event.data,
    }),
    createdAt: t.field({ type: "DateTime", resolve: (event) => event.createdAt }),
  }),
});

builder.queryField("events", (t) =>
  t.connection(
    {
      type: Event,
      description:
        "The change log, oldest first; resume with `after` = the last cursor processed. Private keys only",
      args: {
        types: t.arg.stringList({ required: false, description: "Only these event types (post.created, …)" }),
        locale: t.arg({
          type: "LocaleCode",
          required: false,
          description:
            "Only the events that concern this locale: a post's name theirs in `locales`; those of records without translations concern every locale",
        }),
      },
      complexity: (args) => ({ field: 1, multiplier: args.first ?? DEFAULT_EVENT_PAGE_SIZE }),
      resolve: (_root, args, ctx) => eventConnection(ctx, args),
    },
    {
      fields: (connection) => ({
        totalCount: connection.int({
          description: "Events after the cursor (of the given types)",
          resolve: ({ totalCount }) => (typeof totalCount === "function" ? totalCount() : totalCount),
        }),
      }),
    },
  ),
);
