// /v1/posts: list, get, create, update, delete.
import { z } from "zod";
import { SEARCH_MAX_LENGTH } from "../../domain/constants.ts";
import { DATE_RANGE_PROBLEM, isStorableDate } from "../../domain/dates.ts";
import { canonicalLocaleCode, localeCodeProblem } from "../../domain/locale-codes.ts";
import { validationError } from "../errors.ts";
import { LIMIT_PARAM, PAGE_PARAM, type QueryParam } from "../query-params.ts";
import { RestInputError } from "../rest-input-error.ts";
import type { RestRoute } from "../route.ts";
import { DeleteResultShape, PaginationShape, PostShape, PostWriteResultShape } from "../shapes.ts";
import { FALLBACK_PARAM, graphqlEnum, localeQuery, PAGINATION_SELECTION, readLocale } from "./conventions.ts";
import { POST_FRAGMENT, toPostBody } from "./post-body.ts";
import { PREVIEW_PARAM, PREVIEW_READ_ERRORS } from "./post-previews.ts";

const FORMAT_PARAM: QueryParam = {
  name: "format",
  kind: "enum",
  values: ["html", "markdown"],
  default: "html",
  description: "Body format of `content`",
};
const STATUS_PARAM: QueryParam = {
  name: "status",
  kind: "enum",
  values: ["published", "scheduled", "draft", "all"],
  default: "published",
  description:
    "Which posts to see: published (public now: publishedAt come, unpublishAt unset or ahead), scheduled (published, publishedAt ahead), draft, all (also those past their unpublishAt the scheduler has not yet made drafts); all but published need a private key",
};

/**
 * A post read's `locale` and `fallback`. Its locale facts are always selected (toPostBody leaves them out
 * when GraphQL has none), so it takes no `localized` switch as the taxonomy reads do.
 */
function postReadLocale(query: Record<string, unknown>) {
  const { localized: _alwaysSelected, ...locale } = readLocale(query);
  return locale;
}

/** Which translation a write is for (issue 56): a locale of the workspace; absent, the default's. */
const WRITE_LOCALE_PARAM: QueryParam = {
  name: "locale",
  kind: "string",
  maxLength: 35,
  description:
    "The translation to write (a locale of the workspace, see /v1/locales); absent: the default locale's. A post is created in the default locale; an update with another locale writes that translation's title, slug, description, content, status and publishedAt (creating it when missing), the other fields to the post; a delete with one removes only that translation (not the default's: 409)",
};

const writeLocale = localeQuery;

/**
 * A create's or update's locale: the query's `locale` or the body's (a body field is never ignored: a
 * post sent as German must not be made, or overwrite, an English one), the same when both are given,
 * else a 400 naming `locale`.
 */
function bodyOrQueryLocale(query: Record<string, unknown>, body: string | undefined): string | undefined {
  const fromQuery = writeLocale(query);
  if (body === undefined) return fromQuery;
  const fromBody = checkedLocale(body);
  if (fromQuery !== undefined && canonicalLocaleCode(fromQuery) !== canonicalLocaleCode(fromBody)) {
    const refusal = validationError("Invalid post", [
      { field: "locale", message: "The query's locale and the body's differ: give one, or both alike" },
    ]);
    throw new RestInputError(refusal.status, refusal.body);
  }
  return fromBody;
}

/** A locale code as given, when well-formed; a 400 naming `locale` otherwise. */
function checkedLocale(locale: string): string {
  if (canonicalLocaleCode(locale) === null) {
    const refusal = validationError("Invalid locale code", [
      { field: "locale", message: localeCodeProblem(locale) },
    ]);
    throw new RestInputError(refusal.status, refusal.body);
  }
  return locale;
}

const READ_LOCALE_PARAM: QueryParam = {
  name: "locale",
  kind: "string",
  maxLength: 35,
  description:
    "Serve this locale's translation (a locale of the workspace), or `auto`: the best match of the request's Accept-Language among the workspace's locales (else the default; the answer then says Vary: Accept-Language). The identifier is matched as an id, or as a slug of this locale, then of each fallback in order. The answer then also carries locale, availableLocales and alternates",
};
const LIST_LOCALE_PARAM: QueryParam = {
  name: "locale",
  kind: "string",
  maxLength: 35,
  description:
    "List each post in this locale's translation, or its fallbacks' (the first the key may see), or `auto`: the locale is the best match of the request's Accept-Language among the workspace's locales (else the default; the answer then says Vary: Accept-Language). Filters, search, order and totalItems apply to the translation served. Each post then also carries locale, availableLocales and alternates",
};
const listQuery: QueryParam[] = [
  LIMIT_PARAM,
  PAGE_PARAM,
  // No default here: without `order`, a search (`query`) lists the best match first, anything else newest first.
  {
    name: "order",
    kind: "enum",
    values: ["asc", "desc"],
    description: "Sort by publishedAt. Default: desc, or best match first when `query` is given",
  },
  { name: "categories", kind: "list", description: "Category slugs to include, comma separated" },
  { name: "excludeCategories", kind: "list", description: "Category slugs to exclude, comma separated" },
  { name: "tags", kind: "list", description: "Tag slugs to include, comma separated" },
  { name: "excludeTags", kind: "list", description: "Tag slugs to exclude, comma separated" },
  {
    name: "query",
    kind: "string",
    maxLength: SEARCH_MAX_LENGTH,
    description:
      "Full-text search over title and content (web-search syntax). Only the 1,000 best matches are considered: pagination.totalItems is then capped at 1,000.",
  },
  FORMAT_PARAM,
  {
    name: "featured",
    kind: "enum",
    values: ["true", "false"],
    description: "Only featured (true) or non-featured (false) posts",
  },
  STATUS_PARAM,
  LIST_LOCALE_PARAM,
  FALLBACK_PARAM,
];

const nonEmpty = z.string().min(1);
const postWriteFields = {
  title: nonEmpty,
  content: nonEmpty,
  contentFormat: z
    .enum(["html", "markdown"])
    .optional()
    .describe("Format of `content` in this request; stored as HTML"),
  description: nonEmpty,
  slug: nonEmpty,
  categoryId: nonEmpty,
  status: z.enum(["published", "draft"]),
  tags: z.array(nonEmpty).optional(),
  authors: z.array(nonEmpty).optional(),
  featured: z.boolean().optional(),
  coverImage: z.string().url().nullable().optional(),
  publishedAt: z
    .string()
    // abort: a string that is no date-time gets that one problem, not the range's as well.
    .datetime({ offset: true, abort: true })
    .refine((text) => isStorableDate(new Date(text)), DATE_RANGE_PROBLEM)
    .optional(),
  unpublishAt: z
    .string()
    .datetime({ offset: true, abort: true })
    .refine((text) => isStorableDate(new Date(text)), DATE_RANGE_PROBLEM)
    .nullable()
    .optional()
    .describe(
      "A scheduled unpublish: the post (or the translation `locale` names) goes back to draft then, recording post.unpublished; in the future and after publishedAt; null clears it",
    ),
  attribution: z.string().nullable().optional(),
  fields: z.record(z.string(), z.unknown()).optional(),
};
const CreatePostBody = z.object({
  ...postWriteFields,
  locale: z
    .string()
    .optional()
    .describe(
      "The locale the post is created in, as the `locale` query parameter says it (either, or both alike): the workspace's default locale; another is a 400 (add a translation with an update naming that locale)",
    ),
});
const UpdatePostBody = z
  .object(postWriteFields)
  .partial()
  .extend({
    locale: z
      .string()
      .optional()
      .describe(
        "The translation to write, as the `locale` query parameter says it (either, or both alike); absent: the default locale's",
      ),
  });

function writeInput(body: z.infer<typeof UpdatePostBody>) {
  return {
    ...body,
    contentFormat: graphqlEnum(body.contentFormat),
    status: graphqlEnum(body.status),
  };
}

const WRITE_RESULT = "id slug title status featured publishedAt createdAt updatedAt";
const writeResult = (post: Record<string, unknown>, stamp: "createdAt" | "updatedAt") => ({
  id: post.id,
  slug: post.slug,
  title: post.title,
  status: String(post.status).toLowerCase(),
  featured: post.featured,
  publishedAt: post.publishedAt,
  [stamp]: post[stamp],
});

export const postRoutes: RestRoute[] = [
  {
    name: "listPosts",
    method: "get",
    cached: true,
    headInAnswer: true,
    autoLocale: true,
    path: "/posts",
    tag: "Posts",
    summary: "List posts",
    workspacePathForm: true,
    query: listQuery,
    document: `query ListPosts($limit: Int, $page: Int, $order: SortOrder, $categories: [String!], $excludeCategories: [String!],
      $tags: [String!], $excludeTags: [String!], $query: String, $featured: Boolean, $status: PostStatusFilter, $format: ContentFormat,
      $locale: LocaleCode, $fallback: String) {
      posts(limit: $limit, page: $page, order: $order, categories: $categories, excludeCategories: $excludeCategories,
        tags: $tags, excludeTags: $excludeTags, query: $query, featured: $featured, status: $status,
        locale: $locale, fallback: $fallback) {
        items { ...RestPost }
        ${PAGINATION_SELECTION}
      }
    } ${POST_FRAGMENT}`,
    variables: ({ query }) => ({
      ...query,
      order: graphqlEnum(query.order),
      status: graphqlEnum(query.status),
      format: graphqlEnum(query.format),
      featured: query.featured === undefined ? undefined : query.featured === "true",
      ...postReadLocale(query),
    }),
    reshape: (data) => {
      const page = data.posts as { items: Record<string, unknown>[]; pagination: unknown };
      return { posts: page.items.map(toPostBody), pagination: page.pagination };
    },
    status: 200,
    response: z.object({ posts: z.array(PostShape), pagination: PaginationShape }),
  },
  {
    name: "getPost",
    method: "get",
    cached: true,
    autoLocale: true,
    path: "/posts/{identifier}",
    tag: "Posts",
    summary: "Get a post by id or slug",
    workspacePathForm: true,
    query: [FORMAT_PARAM, STATUS_PARAM, PREVIEW_PARAM, READ_LOCALE_PARAM, FALLBACK_PARAM],
    document: `query GetPost($identifier: String!, $status: PostStatusFilter, $format: ContentFormat, $preview: String,
      $locale: LocaleCode, $fallback: String) {
      post(identifier: $identifier, status: $status, preview: $preview, locale: $locale, fallback: $fallback) { ...RestPost }
    } ${POST_FRAGMENT}`,
    variables: ({ params, query }) => ({
      identifier: params.identifier,
      status: graphqlEnum(query.status),
      format: graphqlEnum(query.format),
      preview: query.preview,
      ...postReadLocale(query),
    }),
    reshape: (data) => ({ post: toPostBody(data.post as Record<string, unknown>) }),
    status: 200,
    errors: PREVIEW_READ_ERRORS,
    response: z.object({ post: PostShape }),
  },
  {
    name: "createPost",
    method: "post",
    path: "/posts",
    tag: "Posts",
    summary: "Create a post",
    body: CreatePostBody,
    query: [WRITE_LOCALE_PARAM],
    document: `mutation CreatePost($input: CreatePostInput!, $locale: LocaleCode) {
      createPost(input: $input, locale: $locale) { ${WRITE_RESULT} }
    }`,
    variables: ({ body, query }) => {
      const { locale, ...input } = body as z.infer<typeof CreatePostBody>;
      return { input: writeInput(input), locale: bodyOrQueryLocale(query, locale) };
    },
    reshape: (data) => ({ post: writeResult(data.createPost as Record<string, unknown>, "createdAt") }),
    status: 201,
    response: z.object({
      post: PostWriteResultShape.extend({ createdAt: z.string().datetime({ offset: true }) }),
    }),
  },
  {
    name: "updatePost",
    method: "patch",
    path: "/posts/{identifier}",
    tag: "Posts",
    summary: "Update a post; only given fields change, `tags` and `authors` replace the whole set",
    body: UpdatePostBody,
    query: [WRITE_LOCALE_PARAM],
    document: `mutation UpdatePost($identifier: String!, $input: UpdatePostInput!, $locale: LocaleCode) {
      updatePost(identifier: $identifier, input: $input, locale: $locale) { ${WRITE_RESULT} }
    }`,
    variables: ({ params, body, query }) => {
      const { locale, ...input } = body as z.infer<typeof UpdatePostBody>;
      return {
        identifier: params.identifier,
        input: writeInput(input),
        locale: bodyOrQueryLocale(query, locale),
      };
    },
    reshape: (data) => ({ post: writeResult(data.updatePost as Record<string, unknown>, "updatedAt") }),
    status: 200,
    response: z.object({
      post: PostWriteResultShape.extend({ updatedAt: z.string().datetime({ offset: true }) }),
    }),
  },
  {
    name: "deletePost",
    method: "delete",
    path: "/posts/{identifier}",
    tag: "Posts",
    summary: "Delete a post (all its translations), or with `locale` one translation",
    query: [WRITE_LOCALE_PARAM],
    document: `mutation DeletePost($identifier: String!, $locale: LocaleCode) {
      deletePost(identifier: $identifier, locale: $locale) { id }
    }`,
    variables: ({ params, query }) => ({ identifier: params.identifier, locale: writeLocale(query) }),
    errors: { 409: "`locale` names the default locale, whose translation is the post itself" },
    reshape: (data) => data.deletePost,
    status: 200,
    response: DeleteResultShape,
  },
];
