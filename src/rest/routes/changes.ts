// /v1/changes: the change feed (src/content/changes/change-feed.ts) for any key — what it can see that changed
// since `since`, as upserts and tombstones; without `since`, everything visible now, then the log.
import { z } from "zod";
import type { RestRoute } from "../route.ts";
import { graphqlEnum, localeQuery } from "./conventions.ts";

const ChangeShape = z.union([
  z.object({
    op: z.literal("upsert"),
    type: z.enum(["post", "category", "tag", "author"]),
    id: z.string(),
    data: z.record(z.string(), z.unknown()),
  }),
  z.object({
    op: z.literal("delete"),
    type: z.enum(["post", "category", "tag", "author"]),
    id: z.string(),
    slug: z.string().nullable(),
    removedAt: z.string(),
  }),
]);

interface GraphQLEntry {
  op: string;
  type: string;
  id: string;
  slug: string | null;
  removedAt: string | null;
  data: Record<string, unknown> | null;
}

export const changeRoutes: RestRoute[] = [
  {
    name: "listChanges",
    method: "get",
    path: "/changes",
    tag: "Changes",
    summary:
      "What this key can see that changed since `since`, oldest first: upserts (the record as its GET answers it) and deletes (gone or no longer visible); keep `nextCursor` and read on while `hasMore`",
    query: [
      {
        name: "since",
        kind: "string",
        maxLength: 512,
        description:
          "A `nextCursor` of an earlier answer, or `latest` (only what changes from now on); omitted: everything visible now",
      },
      {
        name: "limit",
        kind: "integer",
        min: 1,
        max: 100,
        default: 50,
        description: "Changes per answer, at most, however many records one change reaches",
      },
      {
        name: "types",
        kind: "list",
        description: "Only these kinds, comma separated: posts, categories, tags, authors",
      },
      {
        name: "format",
        kind: "enum",
        values: ["html", "markdown"],
        default: "html",
        description: "Body format of a post's `content`",
      },
      {
        name: "locale",
        kind: "string",
        maxLength: 35,
        description:
          "Only the changes that concern this locale (a locale of the workspace), each post as its translation there shows it, naming `locale` (a public key: its published translations only; a draft translation leaves no trace). Records without translations (categories, tags, authors) concern every locale. Default: the default locale's",
      },
    ],
    document: `query Changes($since: String, $first: Int, $types: [String!], $format: ContentFormat, $locale: LocaleCode) {
      changes(since: $since, first: $first, types: $types, format: $format, locale: $locale) {
        changes { op type id slug removedAt data } nextCursor hasMore
      }
    }`,
    variables: ({ query }) => ({
      since: query.since,
      first: query.limit,
      types: query.types,
      format: graphqlEnum(query.format),
      locale: localeQuery(query),
    }),
    reshape: (data) => {
      const page = data.changes as { changes: GraphQLEntry[]; nextCursor: string; hasMore: boolean };
      return {
        changes: page.changes.map((entry) =>
          entry.op === "UPSERT"
            ? { op: "upsert", type: entry.type, id: entry.id, data: entry.data }
            : { op: "delete", type: entry.type, id: entry.id, slug: entry.slug, removedAt: entry.removedAt },
        ),
        nextCursor: page.nextCursor,
        hasMore: page.hasMore,
      };
    },
    status: 200,
    errors: {
      410: "Cursor expired: older than the retention (EVENT_RETENTION_DAYS); start again without `since`",
    },
    response: z.object({ changes: z.array(ChangeShape), nextCursor: z.string(), hasMore: z.boolean() }),
  },
];
