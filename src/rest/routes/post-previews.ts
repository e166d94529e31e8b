// /v1/posts/{identifier}/preview: make a preview token (POST) or revoke all of a post's tokens
// (DELETE); private keys only. Reading with one is `GET /v1/posts/{identifier}?preview=<token>`
// (posts.ts, with PREVIEW_PARAM). GraphQL: createPostPreview, revokePostPreviews, post(preview:).
import { z } from "zod";
import type { QueryParam } from "../query-params.ts";
import type { RestRoute } from "../route.ts";
import { DeleteResultShape } from "../shapes.ts";

const PREVIEWS_UNAVAILABLE = "Previews are not configured: PREVIEW_SECRET is needed with DATABASE_URL";

export const PREVIEW_PARAM: QueryParam = {
  name: "preview",
  kind: "string",
  maxLength: 1_000,
  description:
    "A preview token (POST /v1/posts/{identifier}/preview): answers that post as it is now, draft or scheduled, to any key of the workspace; `status` does not apply. Never cached (`Cache-Control: private, no-store`).",
};

const PREVIEW_LOCALE_PARAM: QueryParam = {
  name: "locale",
  kind: "string",
  maxLength: 35,
  description:
    "The translation whose tokens these are (issue 56): a token made with it previews that translation's draft, and revoking with it ends that translation's tokens only; absent: the default locale's",
};

/** Statuses only a read with `preview` answers (besides its 403s, see openapi.ts). */
export const PREVIEW_READ_ERRORS = { 503: PREVIEWS_UNAVAILABLE };

const PreviewShape = z.object({
  postId: z.string(),
  token: z.string().describe("Signed and URL-safe: pass it as `?preview=` as it is"),
  expiresAt: z.string().datetime({ offset: true }),
  url: z
    .string()
    .nullable()
    .describe("PREVIEW_URL with {token}, {id} and {slug} filled in; null when PREVIEW_URL is not set"),
});

export const postPreviewRoutes: RestRoute[] = [
  {
    name: "createPostPreview",
    method: "post",
    path: "/posts/{identifier}/preview",
    tag: "Posts",
    summary:
      "Make a preview token: for PREVIEW_TTL (default 1 h), any key holding it can read this post as it is now",
    query: [PREVIEW_LOCALE_PARAM],
    document: `mutation CreatePreview($identifier: String!, $locale: LocaleCode) {
      createPostPreview(identifier: $identifier, locale: $locale) { postId token expiresAt url }
    }`,
    variables: ({ params, query }) => ({ identifier: params.identifier, locale: query.locale }),
    reshape: (data) => ({ preview: data.createPostPreview }),
    status: 201,
    errors: { 503: PREVIEWS_UNAVAILABLE },
    response: z.object({ preview: PreviewShape }),
  },
  {
    name: "revokePostPreviews",
    method: "delete",
    path: "/posts/{identifier}/preview",
    tag: "Posts",
    summary: "Revoke every preview token made so far for this post (tokens made later work)",
    query: [PREVIEW_LOCALE_PARAM],
    document: `mutation RevokePreviews($identifier: String!, $locale: LocaleCode) {
      revokePostPreviews(identifier: $identifier, locale: $locale) { id }
    }`,
    variables: ({ params, query }) => ({ identifier: params.identifier, locale: query.locale }),
    reshape: (data) => data.revokePostPreviews,
    status: 200,
    response: DeleteResultShape,
  },
];
