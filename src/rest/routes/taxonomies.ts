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
import { PAGINATION_SELECTION } from "./conventions.ts";

interface Taxonomy {
  /** Singular and plural names as in paths and bodies. */
  one: "category" | "tag";
  many: "categories" | "tags";
  /** GraphQL names. */
  type: "Category" | "Tag";
  tag: string;
}

const FIELDS = "id name slug description";
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
      query: [LIMIT_PARAM, PAGE_PARAM],
      document: `query List($limit: Int, $page: Int) { ${t.many}(limit: $limit, page: $page) { items { ${FIELDS} count { posts } } ${PAGINATION_SELECTION} } }`,
      variables: ({ query }) => query,
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
      query: includeParams,
      document: `query Get($identifier: String!, $withPosts: Boolean!, $limit: Int, $page: Int) {
        ${t.one}(identifier: $identifier) {
          ${FIELDS} count { posts }
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
      body: UpdateBody,
      document: `mutation Update($identifier: String!, $input: Update${cap}Input!) {
        update${cap}(identifier: $identifier, input: $input) { ${FIELDS} }
      }`,
      variables: ({ params, body }) => ({ identifier: params.identifier, input: body }),
      reshape: (data) => ({ [t.one]: data[`update${cap}`] }),
      status: 200,
      response: z.object({ [t.one]: TaxonomyRefShape }),
    },
    {
      name: `delete${cap}`,
      method: "delete",
      path: `/${t.many}/{identifier}`,
      tag: t.tag,
      summary: t.one === "category" ? "Delete a category (refused while it has posts)" : "Delete a tag",
      document: `mutation Delete($identifier: String!) { delete${cap}(identifier: $identifier) { id } }`,
      variables: ({ params }) => ({ identifier: params.identifier }),
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
