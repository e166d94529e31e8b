// /v1/categories and /v1/tags: the same routes for two resources, generated from one description.
import { z } from "zod";
import { LIMIT_PARAM, PAGE_PARAM, type QueryParam } from "../query-params.ts";
import type { RestRoute } from "../route.ts";
import {
  DeleteResultShape,
  PaginationShape,
  PostSummaryShape,
  TaxonomyRefShape,
  TaxonomyShape,
} from "../shapes.ts";
import {
  FALLBACK_PARAM,
  localeQuery,
  NAME_READ_LOCALE_PARAM,
  NAME_WRITE_LOCALE_PARAM,
  PAGINATION_SELECTION,
  readLocale,
} from "./conventions.ts";

interface Taxonomy {
  /** Singular and plural names as in paths and bodies. */
  one: "category" | "tag";
  many: "categories" | "tags";
  /** GraphQL names. */
  type: "Category" | "Tag";
  tag: string;
}

const FIELDS = "id name slug description";
/** A read's fields: `locale` only when read with one (issue 56), so that a read without is as before. */
const READ_FIELDS = `${FIELDS} locale @include(if: $localized)`;
const READ_LOCALE_VARIABLES = "$locale: LocaleCode, $fallback: String, $localized: Boolean = false";
const CreateBody = z.object({
  name: z.string().min(1),
  slug: z.string().min(1),
  description: z.string().optional(),
});
const UpdateBody = z.object({
  name: z.string().min(1).optional(),
  slug: z.string().min(1).optional(),
  description: z.string().nullable().optional(),
});

const includeParams: QueryParam[] = [
  {
    name: "include",
    kind: "enum",
    values: ["posts"],
    description: "`posts` adds a page of the published posts",
  },
  {
    name: "limit",
    kind: "integer",
    min: 1,
    max: 100,
    default: 20,
    description: "Posts per page when include=posts",
  },
  { name: "page", kind: "integer", min: 1, default: 1, description: "Page of posts when include=posts" },
];

function taxonomyRoutes(t: Taxonomy): RestRoute[] {
  const cap = t.type;
  return [
    {
      name: `list${cap === "Category" ? "Categories" : "Tags"}`,
      method: "get",
      cached: true,
      path: `/${t.many}`,
      tag: t.tag,
      summary: `List ${t.many}`,
      workspacePathForm: true,
      autoLocale: true,
      query: [LIMIT_PARAM, PAGE_PARAM, NAME_READ_LOCALE_PARAM, FALLBACK_PARAM],
      document: `query List($limit: Int, $page: Int, ${READ_LOCALE_VARIABLES}) {
        ${t.many}(limit: $limit, page: $page, locale: $locale, fallback: $fallback) {
          items { ${READ_FIELDS} count { posts } } ${PAGINATION_SELECTION}
        }
      }`,
      variables: ({ query }) => ({ limit: query.limit, page: query.page, ...readLocale(query) }),
      reshape: (data) => {
        const page = data[t.many] as { items: unknown[]; pagination: unknown };
        return { [t.many]: page.items, pagination: page.pagination };
      },
      status: 200,
      response: z.object({ [t.many]: z.array(TaxonomyShape), pagination: PaginationShape }),
    },
    {
      name: `get${cap}`,
      method: "get",
      cached: true,
      path: `/${t.many}/{identifier}`,
      tag: t.tag,
      summary: `Get a ${t.one} by id or slug`,
      workspacePathForm: true,
      autoLocale: true,
      query: [...includeParams, NAME_READ_LOCALE_PARAM, FALLBACK_PARAM],
      document: `query Get($identifier: String!, $withPosts: Boolean!, $limit: Int, $page: Int, ${READ_LOCALE_VARIABLES}) {
        ${t.one}(identifier: $identifier, locale: $locale, fallback: $fallback) {
          ${READ_FIELDS} count { posts }
          posts(limit: $limit, page: $page) @include(if: $withPosts) {
            items { id title slug description coverImage publishedAt } ${PAGINATION_SELECTION}
          }
        }
      }`,
      variables: ({ params, query }) => ({
        identifier: params.identifier,
        withPosts: query.include === "posts",
        limit: query.limit,
        page: query.page,
        ...readLocale(query),
      }),
      reshape: (data) => {
        const { posts, ...record } = data[t.one] as Record<string, unknown> & {
          posts?: { items: unknown[]; pagination: unknown };
        };
        return {
          [t.one]: posts ? { ...record, posts: { data: posts.items, pagination: posts.pagination } } : record,
        };
      },
      status: 200,
      response: z.object({
        [t.one]: TaxonomyShape.extend({
          posts: z.object({ data: z.array(PostSummaryShape), pagination: PaginationShape }).optional(),
        }),
      }),
    },
    {
      name: `create${cap}`,
      method: "post",
      path: `/${t.many}`,
      tag: t.tag,
      summary: `Create a ${t.one}`,
      body: CreateBody,
      document: `mutation Create($input: Create${cap}Input!) { create${cap}(input: $input) { ${FIELDS} } }`,
      variables: ({ body }) => ({ input: body }),
      reshape: (data) => ({ [t.one]: data[`create${cap}`] }),
      status: 201,
      response: z.object({ [t.one]: TaxonomyRefShape }),
    },
    {
      name: `update${cap}`,
      method: "patch",
      path: `/${t.many}/{identifier}`,
      tag: t.tag,
      summary: `Update a ${t.one}`,
      query: [NAME_WRITE_LOCALE_PARAM],
      body: UpdateBody,
      document: `mutation Update($identifier: String!, $input: Update${cap}Input!, $locale: LocaleCode) {
        update${cap}(identifier: $identifier, input: $input, locale: $locale) { ${FIELDS} }
      }`,
      variables: ({ params, body, query }) => ({
        identifier: params.identifier,
        input: body,
        locale: localeQuery(query),
      }),
      reshape: (data) => ({ [t.one]: data[`update${cap}`] }),
      status: 200,
      response: z.object({ [t.one]: TaxonomyRefShape }),
    },
    {
      name: `delete${cap}`,
      method: "delete",
      path: `/${t.many}/{identifier}`,
      tag: t.tag,
      summary:
        t.one === "category"
          ? "Delete a category (refused while it has posts), or with `locale` its name in that locale"
          : "Delete a tag, or with `locale` its name in that locale",
      query: [NAME_WRITE_LOCALE_PARAM],
      document: `mutation Delete($identifier: String!, $locale: LocaleCode) {
        delete${cap}(identifier: $identifier, locale: $locale) { id }
      }`,
      variables: ({ params, query }) => ({ identifier: params.identifier, locale: localeQuery(query) }),
      errors: { 409: "`locale` names the default locale, whose name is the record's own" },
      reshape: (data) => data[`delete${cap}`],
      status: 200,
      response: DeleteResultShape,
    },
  ];
}

export const categoryRoutes = taxonomyRoutes({
  one: "category",
  many: "categories",
  type: "Category",
  tag: "Categories",
});
export const tagRoutes = taxonomyRoutes({ one: "tag", many: "tags", type: "Tag", tag: "Tags" });
