// /v1/events: the change log, read forward from a cursor (private keys only).
import { z } from "zod";
import { EVENT_TYPES } from "../../domain/event-types.ts";
import type { RestRoute } from "../route.ts";
import { EventShape } from "../shapes.ts";
import { localeQuery } from "./conventions.ts";

export const eventRoutes: RestRoute[] = [
  {
    name: "listEvents",
    method: "get",
    path: "/events",
    tag: "Events",
    summary:
      "The change log, oldest first: resume with `after` = the last `nextCursor`; 410 when the cursor is older than the retention",
    query: [
      {
        name: "after",
        kind: "string",
        maxLength: 256,
        description:
          "A `nextCursor` of an earlier answer, an event's id (the events after it, as Stripe's `starting_after`), or `latest` (from now on)",
      },
      { name: "limit", kind: "integer", min: 1, max: 100, default: 50, description: "Events per answer" },
      {
        name: "types",
        kind: "list",
        description: `Only these event types, comma separated: ${EVENT_TYPES.join(", ")}`,
      },
      {
        name: "locale",
        kind: "string",
        maxLength: 35,
        description:
          "Only the events that concern this locale (a locale of the workspace): a post's events name theirs in `locales`; those of records without translations concern every locale",
      },
    ],
    document: `query Events($after: String, $first: Int, $types: [String!], $locale: LocaleCode) {
      events(after: $after, first: $first, types: $types, locale: $locale) {
        edges { cursor node { id type workspaceId resourceId slug locales data createdAt } }
        pageInfo { endCursor hasNextPage }
      }
    }`,
    variables: ({ query }) => ({
      after: query.after,
      first: query.limit,
      types: query.types,
      locale: localeQuery(query),
    }),
    reshape: (data, { query }) => {
      const page = data.events as {
        edges: { node: { locales: string[] | null } }[];
        pageInfo: { endCursor: string | null; hasNextPage: boolean };
      };
      return {
        // `locales` on the events that name theirs (posts; a category's, tag's or author's name in one locale) only.
        events: page.edges.map(({ node: { locales, ...event } }) =>
          locales ? { ...event, locales } : event,
        ),
        // An empty page keeps the client where it was.
        nextCursor: page.pageInfo.endCursor ?? (query.after as string | undefined) ?? null,
        hasMore: page.pageInfo.hasNextPage,
      };
    },
    status: 200,
    errors: {
      410: "Cursor expired: older than the retention (EVENT_RETENTION_DAYS); resync, then read from the start",
    },
    response: z.object({
      events: z.array(EventShape),
      nextCursor: z.string().nullable(),
      hasMore: z.boolean(),
    }),
  },
];
