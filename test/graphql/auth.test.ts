// Who may do what: no valid key → UNAUTHENTICATED (HTTP 401, introspection included); a public key
// reads published content only and can write nothing; a key never reaches another workspace's records.
import { getIntrospectionQuery } from "graphql";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { schema } from "../../src/graphql/executable-schema.ts";
import { FIELD_SCOPES } from "../../src/graphql/execution/scope-rules.ts";
import { startTestApp, type TestApp, type TestWorkspace } from "../helpers/test-app.ts";
import { type GraphQLClient, graphqlClient, graphqlFixtures } from "./support/graphql.ts";

let app: TestApp;
let a: TestWorkspace;
let b: TestWorkspace;
let aPublic: GraphQLClient;
let aPrivate: GraphQLClient;
const B: Record<string, string> = {};
const A: Record<string, string> = {};

beforeAll(async () => {
  app = await startTestApp();
  a = await app.workspace("A");
  b = await app.workspace("B");
  aPublic = graphqlClient(app, a.publicKey);
  aPrivate = graphqlClient(app, a.privateKey);
  const fa = graphqlFixtures(aPrivate);
  const aCategory = await fa.category("a-news");
  Object.assign(A, {
    category: aCategory.id,
    post: (await fa.post({ slug: "a-post", categoryId: aCategory.id })).id,
    tag: (await fa.tag("a-tag")).id,
    author: (await fa.author("a-author")).id,
  });
  const fb = graphqlFixtures(graphqlClient(app, b.privateKey));
  const bCategory = await fb.category("b-news");
  const bTag = await fb.tag("b-tag");
  const bAuthor = await fb.author("b-author");
  Object.assign(B, {
    category: bCategory.id,
    tag: bTag.id,
    author: bAuthor.id,
    field: (await fb.field({ key: "b_field", type: "TEXT" })).id,
    post: (
      await fb.post({ slug: "b-post", categoryId: bCategory.id, tags: [bTag.id], authors: [bAuthor.id] })
    ).id,
    draft: (await fb.post({ slug: "b-draft", categoryId: bCategory.id, status: "DRAFT" })).id,
    media: (
      await app.db.prisma.media.create({
        data: {
          workspaceId: b.id,
          name: "b.png",
          storageKey: "b/b.png",
          size: 10,
          mimeType: "image/png",
          type: "image",
        },
      })
    ).id,
  });
});
afterAll(async () => app?.close());

async function postGraphQL(body: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(`${app.url}/graphql`, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json", ...headers },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: await response.json() };
}

describe("no valid key: UNAUTHENTICATED over HTTP", () => {
  const missing = "An API key is required: send it in the Authorization header (`<key>` or `Bearer <key>`)";
  const invalid = "The API key is invalid or has been revoked";
  const refusal = (message: string) => ({
    errors: [{ message, extensions: { code: "UNAUTHENTICATED", http: { status: 401 } } }],
  });

  it("refuses a query without a key with 401", async () => {
    const res = await postGraphQL({ query: "{ posts { items { id } } }" });
    expect(res).toEqual({ status: 401, body: refusal(missing) });
  });

  it("refuses data without a key, also beside introspection (introspection alone: keyless-introspection.test.ts)", async () => {
    const res = await postGraphQL({
      query: `${getIntrospectionQuery().replace("query IntrospectionQuery {", "query IntrospectionQuery { tags { items { id } }")}`,
    });
    expect(res).toEqual({ status: 401, body: refusal(missing) });
    const typename = await postGraphQL({ query: "{ __typename tags { items { id } } }" });
    expect(typename).toEqual({ status: 401, body: refusal(missing) });
  });

  it("refuses mutations without a key", async () => {
    const res = await postGraphQL({ query: 'mutation { deleteCategory(identifier: "a-news") { id } }' });
    expect(res).toEqual({ status: 401, body: refusal(missing) });
  });

  it("refuses an unknown, malformed or revoked key, bare or as Bearer", async () => {
    for (const authorization of ["sk_notarealkey", "Bearer pk_unknown0000000000", "garbage", "Bearer "]) {
      const res = await postGraphQL({ query: "{ __typename }" }, { authorization });
      expect(res.status, authorization).toBe(401);
      expect(res.body.errors[0].extensions).toEqual({ code: "UNAUTHENTICATED", http: { status: 401 } });
    }
    const revokedWorkspace = await app.workspace("Revoked");
    const keyRow = await app.db.prisma.apiKey.findFirstOrThrow({
      where: { workspaceId: revokedWorkspace.id, kind: "public" },
    });
    await app.db.prisma.apiKey.update({ where: { id: keyRow.id }, data: { revokedAt: new Date() } });
    const revoked = await postGraphQL(
      { query: "{ __typename }" },
      { authorization: revokedWorkspace.publicKey },
    );
    expect(revoked).toEqual({ status: 401, body: refusal(invalid) });
  });

  it("refuses GET queries without a key", async () => {
    const response = await fetch(
      `${app.url}/graphql?query=${encodeURIComponent("{ tags { items { id } } }")}`,
      {
        headers: { accept: "application/json" },
      },
    );
    expect(response.status).toBe(401);
    expect((await response.json()).errors[0].extensions.code).toBe("UNAUTHENTICATED");
  });

  it("refuses in-process execution without a valid key", async () => {
    const result = await app.graphql("sk_not_a_key", "{ __typename }");
    expect(result.data).toBeUndefined();
    expect(result.errors?.map((error) => ({ message: error.message, extensions: error.extensions }))).toEqual(
      [
        {
          message: "A valid API key is required in the Authorization header",
          extensions: { code: "UNAUTHENTICATED", http: { status: 401 } },
        },
      ],
    );
  });

  it("serves a valid key given bare or as Bearer", async () => {
    for (const authorization of [a.publicKey, `Bearer ${a.publicKey}`]) {
      const res = await postGraphQL({ query: '{ post(identifier: "a-post") { slug } }' }, { authorization });
      expect(res).toEqual({ status: 200, body: { data: { post: { slug: "a-post" } } } });
    }
  });
});

const WEBHOOKS_NEED_PRIVATE_KEY =
  "Webhook endpoints need a private API key; public keys are embedded in websites";
const KEYS_NEED_PRIVATE_KEY = "Managing API keys needs a private API key; this key is public";
const PREVIEWS_NEED_PRIVATE_KEY =
  "Reading drafts, scheduled posts, revisions or previews needs a private API key; public keys only see published posts";

describe("public key: reads published content, writes nothing", () => {
  // Every mutation of the schema, with arguments that a private key could run.
  const mutations: Record<
    string,
    () => { query: string; variables?: Record<string, unknown>; refusal?: string }
  > = {
    createPost: () => ({
      query: "mutation($input: CreatePostInput!) { createPost(input: $input) { id } }",
      variables: {
        input: {
          title: "T",
          content: "<p>c</p>",
          description: "d",
          slug: "pub",
          categoryId: A.category,
          status: "PUBLISHED",
        },
      },
    }),
    updatePost: () => ({
      query: `mutation { updatePost(identifier: "${A.post}", input: { title: "Hacked" }) { id } }`,
    }),
    deletePost: () => ({ query: `mutation { deletePost(identifier: "${A.post}") { id } }` }),
    createCategory: () => ({ query: 'mutation { createCategory(input: { name: "X", slug: "x" }) { id } }' }),
    updateCategory: () => ({
      query: `mutation { updateCategory(identifier: "${A.category}", input: { name: "Hacked" }) { id } }`,
    }),
    deleteCategory: () => ({ query: `mutation { deleteCategory(identifier: "${A.category}") { id } }` }),
    createTag: () => ({ query: 'mutation { createTag(input: { name: "X", slug: "x" }) { id } }' }),
    updateTag: () => ({
      query: `mutation { updateTag(identifier: "${A.tag}", input: { name: "Hacked" }) { id } }`,
    }),
    deleteTag: () => ({ query: `mutation { deleteTag(identifier: "${A.tag}") { id } }` }),
    createAuthor: () => ({ query: 'mutation { createAuthor(input: { name: "X", slug: "x" }) { id } }' }),
    updateAuthor: () => ({
      query: `mutation { updateAuthor(identifier: "${A.author}", input: { name: "Hacked" }) { id } }`,
    }),
    deleteAuthor: () => ({ query: `mutation { deleteAuthor(identifier: "${A.author}") { id } }` }),
    createField: () => ({
      query: 'mutation { createField(input: { key: "x", name: "X", type: TEXT }) { id } }',
    }),
    updateField: () => ({
      query: 'mutation { updateField(identifier: "x", input: { name: "Hacked" }) { id } }',
    }),
    deleteField: () => ({ query: 'mutation { deleteField(identifier: "x") { id } }' }),
    uploadMedia: () => ({
      query: "mutation($file: Upload!) { uploadMedia(file: $file) { id } }",
      variables: { file: new File([new Uint8Array([1, 2, 3])], "x.bin") },
    }),
    updateMedia: () => ({ query: 'mutation { updateMedia(id: "m", name: "Hacked") { id } }' }),
    deleteMedia: () => ({ query: 'mutation { deleteMedia(id: "m") { id } }' }),
    // Endpoint URLs and secrets are private even to read, so the refusal names endpoints, not writes.
    createWebhookEndpoint: () => ({
      query:
        'mutation { createWebhookEndpoint(input: { url: "https://example.com/h", events: ["*"] }) { secret } }',
      refusal: WEBHOOKS_NEED_PRIVATE_KEY,
    }),
    updateWebhookEndpoint: () => ({
      query: 'mutation { updateWebhookEndpoint(id: "w", input: { enabled: false }) { id } }',
      refusal: WEBHOOKS_NEED_PRIVATE_KEY,
    }),
    deleteWebhookEndpoint: () => ({
      query: 'mutation { deleteWebhookEndpoint(id: "w") { id } }',
      refusal: WEBHOOKS_NEED_PRIVATE_KEY,
    }),
    retryWebhookDelivery: () => ({
      query: 'mutation { retryWebhookDelivery(endpointId: "w", deliveryId: "d") { id } }',
      refusal: WEBHOOKS_NEED_PRIVATE_KEY,
    }),
    replayWebhookEvents: () => ({
      query: 'mutation { replayWebhookEvents(endpointId: "w") { replayed } }',
      refusal: WEBHOOKS_NEED_PRIVATE_KEY,
    }),
    sendWebhookTestEvent: () => ({
      query: 'mutation { sendWebhookTestEvent(endpointId: "w") { id } }',
      refusal: WEBHOOKS_NEED_PRIVATE_KEY,
    }),
    rotateWebhookEndpointSecret: () => ({
      query: 'mutation { rotateWebhookEndpointSecret(id: "w") { secret } }',
      refusal: WEBHOOKS_NEED_PRIVATE_KEY,
    }),
    createLocale: () => ({ query: 'mutation { createLocale(input: { code: "de" }) { code } }' }),
    updateLocale: () => ({
      query: 'mutation { updateLocale(code: "en", input: { name: "Hacked" }) { code } }',
    }),
    deleteLocale: () => ({ query: 'mutation { deleteLocale(code: "en") { id } }' }),
    restorePostRevision: () => ({
      query: 'mutation { restorePostRevision(identifier: "a-post", number: 1) { id } }',
    }),
    // A preview token shows unpublished content to whoever holds it: made and revoked by private keys.
    createPostPreview: () => ({
      query: 'mutation { createPostPreview(identifier: "a-post") { token } }',
      refusal: PREVIEWS_NEED_PRIVATE_KEY,
    }),
    revokePostPreviews: () => ({
      query: 'mutation { revokePostPreviews(identifier: "a-post") { id } }',
      refusal: PREVIEWS_NEED_PRIVATE_KEY,
    }),
    createApiKey: () => ({
      query: 'mutation { createApiKey(input: { kind: "private" }) { key } }',
      refusal: KEYS_NEED_PRIVATE_KEY,
    }),
    rotateApiKey: () => ({
      query: 'mutation { rotateApiKey(id: "k") { key } }',
      refusal: KEYS_NEED_PRIVATE_KEY,
    }),
    revokeApiKey: () => ({
      query: 'mutation { revokeApiKey(id: "k") { id } }',
      refusal: KEYS_NEED_PRIVATE_KEY,
    }),
  };

  it("covers every mutation of the schema", () => {
    expect(Object.keys(mutations).sort()).toEqual(
      Object.keys(schema.getMutationType()?.getFields() ?? {}).sort(),
    );
  });

  for (const [name, operation] of Object.entries(mutations)) {
    it(`${name} → FORBIDDEN`, async () => {
      const { query, variables, refusal } = operation();
      const error = await aPublic.fails(query, variables);
      expect(error.message).toBe(
        refusal ?? "Writes need a private API key; this key is public and can only read",
      );
      expect(error.extensions).toEqual({
        code: "FORBIDDEN",
        http: { status: 403 },
        requiredScope: (FIELD_SCOPES as Record<string, string>)[`Mutation.${name}`],
      });
      expect(error.path).toEqual([name]);
    });
  }

  it("changed nothing while refusing", async () => {
    const data = await aPrivate.ok(`{ post(identifier: "a-post") { title } categories { items { slug name } }
      tags { items { name } } authors { items { name } } fields { key } locales { code name } }`);
    expect(data).toEqual({
      post: { title: "A post" },
      categories: { items: [{ slug: "a-news", name: "A news" }] },
      tags: { items: [{ name: "A tag" }] },
      authors: { items: [{ name: "A author" }] },
      fields: [],
      locales: [{ code: "en", name: "English" }],
    });
  });

  it("may not read drafts or scheduled posts: status DRAFT, SCHEDULED or ALL → FORBIDDEN on post, posts and postsConnection", async () => {
    const forbidden =
      "Reading drafts, scheduled posts, revisions or previews needs a private API key; public keys only see published posts";
    for (const query of [
      '{ post(identifier: "a-post", status: SCHEDULED) { id } }',
      "{ posts(status: SCHEDULED) { items { id } } }",
      '{ post(identifier: "a-post", status: DRAFT) { id } }',
      '{ post(identifier: "a-post", status: ALL) { id } }',
      "{ posts(status: DRAFT) { items { id } } }",
      "{ posts(status: ALL) { items { id } } }",
      "{ postsConnection(status: ALL) { edges { node { id } } } }",
      "{ postsConnection(status: DRAFT) { totalCount } }",
    ]) {
      const error = await aPublic.fails(query);
      expect({ message: error.message, extensions: error.extensions }, query).toEqual({
        message: forbidden,
        extensions: { code: "FORBIDDEN", http: { status: 403 }, requiredScope: "drafts:read" },
      });
    }
  });

  it("reads published content", async () => {
    const data = await aPublic.ok(
      '{ posts(status: PUBLISHED) { items { slug } } post(identifier: "a-post") { slug } }',
    );
    expect(data).toEqual({ posts: { items: [{ slug: "a-post" }] }, post: { slug: "a-post" } });
  });
});

describe("workspace isolation: a key of A never reads or changes B's records", () => {
  it("reads none of B's records by id or slug (NOT_FOUND)", async () => {
    const reads = [
      `{ post(identifier: "${B.post}") { id } }`,
      '{ post(identifier: "b-post") { id } }',
      `{ post(identifier: "${B.draft}", status: ALL) { id } }`,
      `{ category(identifier: "${B.category}") { id } }`,
      '{ category(identifier: "b-news") { id } }',
      `{ tag(identifier: "${B.tag}") { id } }`,
      `{ author(identifier: "${B.author}") { id } }`,
      `{ field(identifier: "${B.field}") { id } }`,
      '{ field(identifier: "b_field") { id } }',
      `{ media(id: "${B.media}") { id } }`,
    ];
    for (const query of reads) {
      const error = await aPrivate.fails(query);
      expect(error.extensions?.code, query).toBe("NOT_FOUND");
    }
  });

  it("lists only A's records, and filters by B's slugs find nothing", async () => {
    const data = await aPrivate.ok(`{
      posts(status: ALL) { items { slug } pagination { totalItems } }
      byB: posts(categories: ["b-news"], status: ALL) { items { slug } }
      byBTag: posts(tags: ["b-tag"]) { items { slug } }
      search: posts(query: "b post") { items { slug } }
      postsConnection(status: ALL) { totalCount }
      categories { items { slug } } tags { items { slug } } authors { items { slug } } fields { key }
      mediaList { items { id } }
    }`);
    expect(data).toEqual({
      posts: { items: [{ slug: "a-post" }], pagination: { totalItems: 1 } },
      byB: { items: [] },
      byBTag: { items: [] },
      search: { items: [] },
      postsConnection: { totalCount: 1 },
      categories: { items: [{ slug: "a-news" }] },
      tags: { items: [{ slug: "a-tag" }] },
      authors: { items: [{ slug: "a-author" }] },
      fields: [],
      mediaList: { items: [] },
    });
  });

  it("changes and deletes none of B's records (NOT_FOUND), and B's records stay as they were", async () => {
    const writes = [
      `mutation { updatePost(identifier: "${B.post}", input: { title: "Hacked" }) { id } }`,
      `mutation { deletePost(identifier: "${B.post}") { id } }`,
      `mutation { deletePost(identifier: "${B.draft}") { id } }`,
      `mutation { updateCategory(identifier: "${B.category}", input: { name: "Hacked" }) { id } }`,
      `mutation { deleteCategory(identifier: "${B.category}") { id } }`,
      `mutation { updateTag(identifier: "${B.tag}", input: { name: "Hacked" }) { id } }`,
      `mutation { deleteTag(identifier: "${B.tag}") { id } }`,
      `mutation { updateAuthor(identifier: "${B.author}", input: { name: "Hacked" }) { id } }`,
      `mutation { deleteAuthor(identifier: "${B.author}") { id } }`,
      `mutation { updateField(identifier: "${B.field}", input: { name: "Hacked" }) { id } }`,
      `mutation { deleteField(identifier: "${B.field}") { id } }`,
      `mutation { updateMedia(id: "${B.media}", name: "Hacked") { id } }`,
      `mutation { deleteMedia(id: "${B.media}") { id } }`,
    ];
    for (const query of writes) {
      const error = await aPrivate.fails(query);
      expect(error.extensions?.code, query).toBe("NOT_FOUND");
    }
    const bView = await graphqlClient(app, b.privateKey).ok(`{
      post(identifier: "b-post") { title tags { slug } authors { slug } category { slug } }
      draft: post(identifier: "b-draft", status: DRAFT) { title }
      category(identifier: "b-news") { name } tag(identifier: "b-tag") { name } author(identifier: "b-author") { name }
      field(identifier: "b_field") { name } media(id: "${B.media}") { name }
    }`);
    expect(bView).toEqual({
      post: {
        title: "B post",
        tags: [{ slug: "b-tag" }],
        authors: [{ slug: "b-author" }],
        category: { slug: "b-news" },
      },
      draft: { title: "B draft" },
      category: { name: "B news" },
      tag: { name: "B tag" },
      author: { name: "B author" },
      field: { name: "B field" },
      media: { name: "b.png" },
    });
  });

  it("cannot point A's posts at B's category, tags or authors (BAD_USER_INPUT naming each)", async () => {
    const create = await aPrivate.fails(
      "mutation($input: CreatePostInput!) { createPost(input: $input) { id } }",
      {
        input: {
          title: "T",
          content: "<p>c</p>",
          description: "d",
          slug: "cross",
          categoryId: B.category,
          status: "PUBLISHED",
          tags: [B.tag],
          authors: [B.author],
        },
      },
    );
    expect(create.extensions).toEqual({
      code: "BAD_USER_INPUT",
      http: { status: 400 },
      details: [
        { field: "categoryId", message: `Category "${B.category}" does not exist` },
        { field: "tags", message: `Tag "${B.tag}" does not exist` },
        { field: "authors", message: `Author "${B.author}" does not exist` },
      ],
    });
    const update = await aPrivate.fails(
      `mutation { updatePost(identifier: "a-post", input: { tags: ["${B.tag}"] }) { id } }`,
    );
    expect(update.extensions?.details).toEqual([{ field: "tags", message: `Tag "${B.tag}" does not exist` }]);
  });

  it("allows the same slugs in both workspaces", async () => {
    const data = await aPrivate.ok(
      'mutation { createCategory(input: { name: "B news in A", slug: "b-news" }) { slug } }',
    );
    expect(data).toEqual({ createCategory: { slug: "b-news" } });
  });
});
