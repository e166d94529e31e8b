// /v1/posts/{identifier}/revisions: a post's revisions, one of them, a comparison of two, and restoring
// one (private keys only; GraphQL `Post.revisions`, `postRevision`, `postRevisionComparison`,
// `restorePostRevision`).
import { z } from "zod";
import { LIMIT_PARAM, PAGE_PARAM } from "../query-params.ts";
import type { RestRoute } from "../route.ts";
import { PaginationShape } from "../shapes.ts";
import { PAGINATION_SELECTION } from "./conventions.ts";

const REVISION_FIELDS = "number createdAt actorKeyId actorName snapshot";

const RevisionShape = z.object({
  number: z.number().int(),
  createdAt: z.string().datetime({ offset: true }),
  actorKeyId: z.string().nullable(),
  actorName: z.string().nullable(),
  snapshot: z.record(z.string(), z.unknown()).describe("The post's read form after the write"),
});

const ComparisonShape = z.object({
  from: z.number().int(),
  to: z.number().int(),
  changes: z.array(z.object({ field: z.string(), from: z.unknown(), to: z.unknown() })),
  contentDiff: z
    .array(z.object({ added: z.boolean(), removed: z.boolean(), value: z.string() }))
    .describe("The body line by line: unchanged, added and removed runs"),
});

/** A path's revision number; anything else goes on as text, which GraphQL refuses with a 400. */
const revisionNumber = (text: string | undefined): number | string =>
  /^\d{1,9}$/.test(text ?? "") ? Number(text) : (text ?? "");

export const postRevisionRoutes: RestRoute[] = [
  {
    name: "listPostRevisions",
    method: "get",
    path: "/posts/{identifier}/revisions",
    tag: "Posts",
    summary: "A post's revisions, newest first",
    query: [
      LIMIT_PARAM,
      PAGE_PARAM,
      {
        name: "locale",
        kind: "string",
        maxLength: 35,
        description:
          "The translation whose revisions to list (absent, or the default locale: the post's own); restoring one restores into that translation",
      },
    ],
    document: `query ListRevisions($identifier: String!, $limit: Int, $page: Int, $locale: LocaleCode) {
      post(identifier: $identifier, status: ALL) {
        revisions(limit: $limit, page: $page, locale: $locale) { items { ${REVISION_FIELDS} } ${PAGINATION_SELECTION} }
      }
    }`,
    variables: ({ params, query }) => ({ identifier: params.identifier, ...query }),
    reshape: (data) => {
      const page = (data.post as { revisions: { items: unknown[]; pagination: unknown } }).revisions;
      return { revisions: page.items, pagination: page.pagination };
    },
    status: 200,
    response: z.object({ revisions: z.array(RevisionShape), pagination: PaginationShape }),
  },
  {
    name: "getPostRevision",
    method: "get",
    path: "/posts/{identifier}/revisions/{number}",
    integerPathParams: ["number"],
    tag: "Posts",
    summary: "One revision of a post; with `compare=m`, what changed from revision m to this one",
    query: [
      {
        name: "compare",
        kind: "integer",
        min: 1,
        description: "Another revision's number: answer the fields that changed and a line diff of the body",
      },
    ],
    document: `query GetRevision($identifier: String!, $number: Int!, $compareTo: Int!, $compare: Boolean!) {
      postRevision(identifier: $identifier, number: $number) @skip(if: $compare) { ${REVISION_FIELDS} }
      postRevisionComparison(identifier: $identifier, number: $number, compareTo: $compareTo) @include(if: $compare) {
        from to changes { field from to } contentDiff { added removed value }
      }
    }`,
    variables: ({ params, query }) => ({
      identifier: params.identifier,
      number: revisionNumber(params.number),
      compare: query.compare !== undefined,
      compareTo: query.compare ?? 0,
    }),
    reshape: (data) =>
      data.postRevisionComparison
        ? { comparison: data.postRevisionComparison }
        : { revision: data.postRevision },
    status: 200,
    response: z.union([z.object({ revision: RevisionShape }), z.object({ comparison: ComparisonShape })]),
  },
  {
    name: "restorePostRevision",
    method: "post",
    path: "/posts/{identifier}/revisions/{number}/restore",
    tag: "Posts",
    summary: "Put a post back to a revision: an update that records a new revision and the usual events",
    document: `mutation Restore($identifier: String!, $number: Int!) {
      restorePostRevision(identifier: $identifier, number: $number) { id slug title status publishedAt updatedAt }
    }`,
    variables: ({ params }) => ({ identifier: params.identifier, number: revisionNumber(params.number) }),
    reshape: (data) => {
      const post = data.restorePostRevision as Record<string, unknown>;
      return { post: { ...post, status: String(post.status).toLowerCase() } };
    },
    status: 200,
    response: z.object({
      post: z.object({
        id: z.string(),
        slug: z.string(),
        title: z.string(),
        status: z.enum(["published", "draft"]),
        publishedAt: z.string().datetime({ offset: true }),
        updatedAt: z.string().datetime({ offset: true }),
      }),
    }),
  },
];
