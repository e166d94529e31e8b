// /v1/authors: list, get, create, update, delete.
import { z } from "zod";
import { SOCIAL_PLATFORMS } from "../../domain/constants.ts";
import { LIMIT_PARAM, PAGE_PARAM } from "../query-params.ts";
import type { RestRoute } from "../route.ts";
import { AuthorRefShape, AuthorShape, DeleteResultShape, PaginationShape } from "../shapes.ts";
import { PAGINATION_SELECTION } from "./conventions.ts";

const FIELDS = "id name slug image bio role socials { platform url }";

const writeFields = {
  name: z.string().min(1),
  slug: z.string().min(1),
  bio: z.string().nullable().optional(),
  role: z.string().nullable().optional(),
  email: z.string().email().nullable().optional(),
  image: z.string().url().nullable().optional(),
  socials: z.array(z.object({ platform: z.enum(SOCIAL_PLATFORMS), url: z.string().url() })).optional(),
};
const CreateBody = z.object(writeFields);
const UpdateBody = z.object(writeFields).partial();

export const authorRoutes: RestRoute[] = [
  {
    name: "listAuthors",
    method: "get",
    cached: true,
    path: "/authors",
    tag: "Authors",
    summary: "List authors",
    workspacePathForm: true,
    query: [LIMIT_PARAM, PAGE_PARAM],
    document: `query List($limit: Int, $page: Int) { authors(limit: $limit, page: $page) { items { ${FIELDS} count { posts } } ${PAGINATION_SELECTION} } }`,
    variables: ({ query }) => query,
    reshape: (data) => {
      const page = data.authors as { items: unknown[]; pagination: unknown };
      return { authors: page.items, pagination: page.pagination };
    },
    status: 200,
    response: z.object({ authors: z.array(AuthorShape), pagination: PaginationShape }),
  },
  {
    name: "getAuthor",
    method: "get",
    cached: true,
    path: "/authors/{identifier}",
    tag: "Authors",
    summary: "Get an author by id or slug",
    workspacePathForm: true,
    document: `query Get($identifier: String!) { author(identifier: $identifier) { ${FIELDS} count { posts } } }`,
    variables: ({ params }) => ({ identifier: params.identifier }),
    reshape: (data) => ({ author: data.author }),
    status: 200,
    response: z.object({ author: AuthorShape }),
  },
  {
    name: "createAuthor",
    method: "post",
    path: "/authors",
    tag: "Authors",
    summary: "Create an author",
    body: CreateBody,
    document: `mutation Create($input: CreateAuthorInput!) { createAuthor(input: $input) { ${FIELDS} } }`,
    variables: ({ body }) => ({ input: body }),
    reshape: (data) => ({ author: data.createAuthor }),
    status: 201,
    response: z.object({ author: AuthorRefShape }),
  },
  {
    name: "updateAuthor",
    method: "patch",
    path: "/authors/{identifier}",
    tag: "Authors",
    summary: "Update an author; `socials`, when given, replaces the whole list",
    body: UpdateBody,
    document: `mutation Update($identifier: String!, $input: UpdateAuthorInput!) {
      updateAuthor(identifier: $identifier, input: $input) { ${FIELDS} }
    }`,
    variables: ({ params, body }) => ({ identifier: params.identifier, input: body }),
    reshape: (data) => ({ author: data.updateAuthor }),
    status: 200,
    response: z.object({ author: AuthorRefShape }),
  },
  {
    name: "deleteAuthor",
    method: "delete",
    path: "/authors/{identifier}",
    tag: "Authors",
    summary: "Delete an author",
    document: "mutation Delete($identifier: String!) { deleteAuthor(identifier: $identifier) { id } }",
    variables: ({ params }) => ({ identifier: params.identifier }),
    reshape: (data) => data.deleteAuthor,
    status: 200,
    response: DeleteResultShape,
  },
];
