// /v1/authors: list, get, create, update, delete.
import { z } from "zod";
import { SOCIAL_PLATFORMS } from "../../domain/constants.ts";
import { LIMIT_PARAM, PAGE_PARAM } from "../query-params.ts";
import type { RestRoute } from "../route.ts";
import { AuthorRefShape, AuthorShape, DeleteResultShape, PaginationShape } from "../shapes.ts";
import {
  FALLBACK_PARAM,
  localeQuery,
  NAME_READ_LOCALE_PARAM,
  NAME_WRITE_LOCALE_PARAM,
  PAGINATION_SELECTION,
  readLocale,
} from "./conventions.ts";

const FIELDS = "id name slug image bio role socials { platform url }";
/** A read's fields: `locale` only when read with one (issue 56), so that a read without is as before. */
const READ_FIELDS = `${FIELDS} locale @include(if: $localized)`;
const READ_LOCALE_VARIABLES = "$locale: LocaleCode, $fallback: String, $localized: Boolean = false";

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
    autoLocale: true,
    query: [LIMIT_PARAM, PAGE_PARAM, NAME_READ_LOCALE_PARAM, FALLBACK_PARAM],
    document: `query List($limit: Int, $page: Int, ${READ_LOCALE_VARIABLES}) {
      authors(limit: $limit, page: $page, locale: $locale, fallback: $fallback) {
        items { ${READ_FIELDS} count { posts } } ${PAGINATION_SELECTION}
      }
    }`,
    variables: ({ query }) => ({ limit: query.limit, page: query.page, ...readLocale(query) }),
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
    autoLocale: true,
    query: [NAME_READ_LOCALE_PARAM, FALLBACK_PARAM],
    document: `query Get($identifier: String!, ${READ_LOCALE_VARIABLES}) {
      author(identifier: $identifier, locale: $locale, fallback: $fallback) { ${READ_FIELDS} count { posts } }
    }`,
    variables: ({ params, query }) => ({ identifier: params.identifier, ...readLocale(query) }),
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
    query: [NAME_WRITE_LOCALE_PARAM],
    body: UpdateBody,
    document: `mutation Update($identifier: String!, $input: UpdateAuthorInput!, $locale: LocaleCode) {
      updateAuthor(identifier: $identifier, input: $input, locale: $locale) { ${FIELDS} }
    }`,
    variables: ({ params, body, query }) => ({
      identifier: params.identifier,
      input: body,
      locale: localeQuery(query),
    }),
    reshape: (data) => ({ author: data.updateAuthor }),
    status: 200,
    response: z.object({ author: AuthorRefShape }),
  },
  {
    name: "deleteAuthor",
    method: "delete",
    path: "/authors/{identifier}",
    tag: "Authors",
    summary: "Delete an author, or with `locale` their name and bio in that locale",
    query: [NAME_WRITE_LOCALE_PARAM],
    document: `mutation Delete($identifier: String!, $locale: LocaleCode) {
      deleteAuthor(identifier: $identifier, locale: $locale) { id }
    }`,
    variables: ({ params, query }) => ({ identifier: params.identifier, locale: localeQuery(query) }),
    errors: { 409: "`locale` names the default locale, whose name is the author's own" },
    reshape: (data) => data.deleteAuthor,
    status: 200,
    response: DeleteResultShape,
  },
];
