// The soak's operations: what a caller may send (fast-check arbitraries, so a seed replays a caller's
// sequence), and for each what the contract answers given the model (soak-model.ts). Every answer is
// checked when it arrives: never a 5xx, the status the model predicts (or, for the two requests of a
// duel, one of the outcomes the contract allows), the documented body shape (the OpenAPI document for
// REST, data/errors with a code for GraphQL), and the values written.
import fc from "fast-check";
import { expect } from "vitest";
import { FORBIDDEN } from "../helpers/expected-bodies.ts";
import { requestJson, type TestResponse } from "../helpers/http-request.ts";
import type { OpenApiChecker } from "../helpers/openapi-check.ts";
import {
  CATEGORY_SLUGS,
  type ModelPost,
  POST_SLUGS,
  postsIn,
  type RecordLocks,
  SLOTS,
  TAG_SLUGS,
  type WorkspaceModel,
} from "./soak-model.ts";

const via = fc.constantFrom("rest" as const, "graphql" as const);
const categorySlug = fc.constantFrom(...CATEGORY_SLUGS);
const postSlug = fc.constantFrom(...POST_SLUGS);
const slot = fc.constantFrom(...SLOTS);
const words = fc.stringMatching(/^[A-Za-z][A-Za-z ]{0,20}[a-z]$/);
// In the order of src/domain/event-types.ts, the order an endpoint's events are answered in.
const EVENTS = ["post.updated", "post.published", "post.deleted", "category.created", "media.uploaded"];
const events = fc.subarray(EVENTS, { minLength: 1 });

export const privateOperation = fc.oneof(
  fc.record({ kind: fc.constant("createCategory" as const), slug: categorySlug, name: words, via }),
  fc.record({ kind: fc.constant("deleteCategory" as const), slug: categorySlug, via }),
  fc.record({ kind: fc.constant("createTag" as const), slug: fc.constantFrom(...TAG_SLUGS), name: words }),
  fc.record({
    kind: fc.constant("createPost" as const),
    slug: postSlug,
    category: categorySlug,
    tags: fc.subarray([...TAG_SLUGS]),
    status: fc.constantFrom("published" as const, "draft" as const),
    title: words,
    via,
  }),
  fc.record({
    kind: fc.constant("updatePost" as const),
    slug: postSlug,
    title: words,
    content: words,
    status: fc.constantFrom("published" as const, "draft" as const),
    via,
  }),
  fc.record({ kind: fc.constant("deletePost" as const), slug: postSlug, via }),
  fc.record({ kind: fc.constant("media" as const), slot }),
  fc.record({ kind: fc.constant("webhook" as const), slot, remove: fc.boolean(), events }),
  fc.record({
    kind: fc.constant("invalid" as const),
    variant: fc.constantFrom(
      "badSlug" as const,
      "badJson" as const,
      "unknownCategory" as const,
      "badWebhookUrl" as const,
      "foreignRecord" as const,
    ),
    slug: categorySlug,
  }),
  fc.record({
    kind: fc.constant("duelCreateCategory" as const),
    slug: categorySlug,
    names: fc.tuple(words, words),
  }),
  fc.record({ kind: fc.constant("duelUpdatePost" as const), slug: postSlug, titles: fc.tuple(words, words) }),
  fc.record({
    kind: fc.constant("duelPostVsCategoryDelete" as const),
    slug: postSlug,
    category: categorySlug,
  }),
);

export const publicOperation = fc.oneof(
  fc.record({ kind: fc.constant("readCategory" as const), slug: categorySlug, via }),
  fc.record({ kind: fc.constant("readPost" as const), slug: postSlug }),
  fc.record({ kind: fc.constant("listCategories" as const) }),
  fc.record({ kind: fc.constant("publicWrite" as const), slug: categorySlug, via }),
  fc.record({ kind: fc.constant("foreignRead" as const), slug: categorySlug }),
);

type Generated<A> = A extends fc.Arbitrary<infer T> ? T : never;
export type Operation = Generated<typeof privateOperation> | Generated<typeof publicOperation>;

export interface SoakWorkspace {
  index: number;
  model: WorkspaceModel;
  privateKey: string;
  publicKey: string;
  /** Where its webhook endpoints point (a receiver on 127.0.0.1 that checks whose events come). */
  hookUrl: string;
}

export interface SoakContext {
  url: string;
  openApi: OpenApiChecker;
  locks: RecordLocks;
  png: Uint8Array;
  /** Every answer (for the run's figures). */
  count(status: number): void;
}

/** A category id that exists nowhere (the shape of the service's ids). */
const MISSING_CATEGORY = "cmsoakmissingcategory0000000";

/** Runs one operation of a caller of `ws`; throws (with what was sent and answered) when an answer breaks the contract. */
export async function perform(
  ctx: SoakContext,
  ws: SoakWorkspace,
  other: SoakWorkspace,
  op: Operation,
): Promise<void> {
  const m = ws.model;
  const name = (kind: string, key: string | number, of = ws) => `${of.index}:${kind}:${key}`;
  const locked = async (names: () => string[], body: () => Promise<void>) => {
    const held = await ctx.locks.acquire(names);
    try {
      await body();
    } finally {
      ctx.locks.release(held);
    }
  };
  const rest = (method: string, path: string, key: string, body?: unknown) =>
    send(ctx, method, path, key, body);
  const gql = (key: string, query: string, variables: Record<string, unknown> = {}) =>
    send(ctx, "POST", "/graphql", `Bearer ${key}`, { query, variables });
  const priv = ws.privateKey;

  switch (op.kind) {
    case "createCategory":
      return locked(
        () => [name("category", op.slug)],
        async () => {
          const exists = m.categories.has(op.slug);
          const id = await createCategory(
            ctx,
            priv,
            op.slug,
            op.name,
            op.via,
            exists ? "conflict" : "created",
          );
          if (id) m.categories.set(op.slug, { id, name: op.name });
        },
      );
    case "deleteCategory":
      return locked(
        () => [name("category", op.slug)],
        async () => {
          const category = m.categories.get(op.slug);
          const outcome = !category ? "notFound" : postsIn(m, op.slug) > 0 ? "inUse" : "deleted";
          const res =
            op.via === "rest"
              ? await rest("DELETE", `/v1/categories/${op.slug}`, priv)
              : await gql(priv, "mutation($i: String!) { deleteCategory(identifier: $i) { id } }", {
                  i: op.slug,
                });
          expectOutcome(res, op.via, outcome, "deleteCategory");
          if (outcome === "deleted") {
            expect(op.via === "rest" ? res.body : res.body.data.deleteCategory).toEqual({ id: category?.id });
            m.categories.delete(op.slug);
          }
        },
      );
    case "createTag":
      return locked(
        () => [name("tag", op.slug)],
        async () => {
          const res = await rest("POST", "/v1/tags", priv, { name: op.name, slug: op.slug });
          const exists = m.tags.has(op.slug);
          expectOutcome(res, "rest", exists ? "conflict" : "created", "createTag");
          if (!exists) {
            expect(res.body.tag).toEqual({
              id: expect.any(String),
              name: op.name,
              slug: op.slug,
              description: null,
            });
            m.tags.set(op.slug, { id: res.body.tag.id, name: op.name });
          }
        },
      );
    case "createPost":
      return locked(
        () => [
          name("post", op.slug),
          name("category", op.category),
          ...op.tags.map((tag) => name("tag", tag)),
        ],
        async () => {
          const category = m.categories.get(op.category);
          const tags = op.tags.filter((tag) => m.tags.has(tag));
          const outcome = !category ? "unknownCategory" : m.posts.has(op.slug) ? "conflict" : "created";
          const post: ModelPost = {
            id: "",
            title: op.title,
            content: `<p>${op.title}</p>`,
            status: op.status,
            category: op.category,
            tags,
          };
          const id = await createPost(
            ctx,
            priv,
            op.slug,
            post,
            category?.id ?? MISSING_CATEGORY,
            m,
            op.via,
            outcome,
          );
          if (id) m.posts.set(op.slug, { ...post, id });
        },
      );
    case "updatePost":
      return locked(
        () => [name("post", op.slug)],
        async () => {
          const post = m.posts.get(op.slug);
          const input = { title: op.title, content: `<p>${op.content}</p>`, status: op.status };
          await updatePost(ctx, priv, op.slug, input, op.via, post ? "updated" : "notFound");
          if (post) m.posts.set(op.slug, { ...post, ...input });
        },
      );
    case "deletePost":
      return locked(
        () => [
          name("post", op.slug),
          ...(m.posts.has(op.slug) ? [name("category", m.posts.get(op.slug)?.category ?? "")] : []),
        ],
        async () => {
          const post = m.posts.get(op.slug);
          const res =
            op.via === "rest"
              ? await rest("DELETE", `/v1/posts/${op.slug}`, priv)
              : await gql(priv, "mutation($i: String!) { deletePost(identifier: $i) { id } }", {
                  i: op.slug,
                });
          expectOutcome(res, op.via, post ? "deleted" : "notFound", "deletePost");
          if (post) {
            expect(op.via === "rest" ? res.body : res.body.data.deletePost).toEqual({ id: post.id });
            m.posts.delete(op.slug);
          }
        },
      );
    case "media":
      return locked(
        () => [name("media", op.slot)],
        async () => {
          const held = m.media.get(op.slot);
          if (held) {
            const res = await rest("DELETE", `/v1/media/${held.id}`, priv);
            expectOutcome(res, "rest", "deleted", "deleteMedia");
            expect(res.body).toEqual({ id: held.id });
            m.media.delete(op.slot);
            return;
          }
          const res = await upload(ctx, priv, ctx.png);
          expectOutcome(res, "rest", "created", "uploadMedia");
          expect(res.body.media).toMatchObject({ id: expect.any(String), mimeType: "image/png" });
          m.media.set(op.slot, { id: res.body.media.id });
        },
      );
    case "webhook":
      return locked(
        () => [name("webhook", op.slot)],
        async () => {
          const held = m.webhooks.get(op.slot);
          if (!held) {
            const url = `${ws.hookUrl}/${op.slot}`;
            const res = await rest("POST", "/v1/webhooks", priv, { url, events: op.events });
            expectOutcome(res, "rest", "created", "createWebhook");
            expect(res.body.webhook).toMatchObject({ url, events: op.events, enabled: true });
            m.webhooks.set(op.slot, { id: res.body.webhook.id, url, events: op.events });
          } else if (op.remove) {
            const res = await rest("DELETE", `/v1/webhooks/${held.id}`, priv);
            expectOutcome(res, "rest", "deleted", "deleteWebhook");
            expect(res.body).toEqual({ id: held.id });
            m.webhooks.delete(op.slot);
          } else {
            const res = await rest("PATCH", `/v1/webhooks/${held.id}`, priv, { events: op.events });
            expectOutcome(res, "rest", "updated", "updateWebhook");
            expect(res.body.webhook).toMatchObject({ id: held.id, url: held.url, events: op.events });
            m.webhooks.set(op.slot, { ...held, events: op.events });
          }
        },
      );
    case "invalid":
      return invalid(ctx, ws, other, op.variant, op.slug, name);
    case "duelCreateCategory":
      return locked(
        () => [name("category", op.slug)],
        async () => {
          const exists = m.categories.has(op.slug);
          const [a, b] = await Promise.all([
            rest("POST", "/v1/categories", priv, { name: op.names[0], slug: op.slug }),
            gql(priv, "mutation($i: CreateCategoryInput!) { createCategory(input: $i) { id name slug } }", {
              i: { name: op.names[1], slug: op.slug },
            }),
          ]);
          if (exists) {
            expectOutcome(a, "rest", "conflict", "createCategory (duel)");
            expectOutcome(b, "graphql", "conflict", "createCategory (duel)");
            return;
          }
          // Exactly one of the two creates the category; the other meets its slug.
          const restWon = a.status === 201;
          expectOutcome(a, "rest", restWon ? "created" : "conflict", "createCategory (duel, REST)");
          expectOutcome(b, "graphql", restWon ? "conflict" : "created", "createCategory (duel, GraphQL)");
          const created = restWon ? a.body.category : b.body.data.createCategory;
          expect(created).toMatchObject({ name: restWon ? op.names[0] : op.names[1], slug: op.slug });
          m.categories.set(op.slug, { id: created.id, name: created.name });
        },
      );
    case "duelUpdatePost":
      return locked(
        () => [name("post", op.slug)],
        async () => {
          const post = m.posts.get(op.slug);
          const [a, b] = await Promise.all([
            rest("PATCH", `/v1/posts/${op.slug}`, priv, { title: op.titles[0] }),
            gql(
              priv,
              "mutation($i: String!, $t: String!) { updatePost(identifier: $i, input: { title: $t }) { id title } }",
              {
                i: op.slug,
                t: op.titles[1],
              },
            ),
          ]);
          expectOutcome(a, "rest", post ? "updated" : "notFound", "updatePost (duel, REST)");
          expectOutcome(b, "graphql", post ? "updated" : "notFound", "updatePost (duel, GraphQL)");
          if (!post) return;
          // Both were acknowledged: the post holds the one that committed last.
          const stored = (await listPosts(ctx, priv)).find((item) => item.slug === op.slug);
          expect(op.titles).toContain(stored?.title);
          m.posts.set(op.slug, { ...post, title: stored?.title as string });
        },
      );
    case "duelPostVsCategoryDelete":
      return locked(
        () => [name("post", op.slug), name("category", op.category)],
        async () => {
          const category = m.categories.get(op.category);
          const postExists = m.posts.has(op.slug);
          const inUse = category ? postsIn(m, op.category) > 0 : false;
          const post: ModelPost = {
            id: "",
            title: `In ${op.category}`,
            content: `<p>In ${op.category}</p>`,
            status: "published",
            category: op.category,
            tags: [],
          };
          const body = {
            title: post.title,
            slug: op.slug,
            content: post.content,
            description: "duel",
            categoryId: category?.id ?? MISSING_CATEGORY,
            status: "published",
          };
          const [created, deleted] = await Promise.all([
            rest("POST", "/v1/posts", priv, body),
            rest("DELETE", `/v1/categories/${op.category}`, priv),
          ]);
          if (!category) {
            expectOutcome(created, "rest", "unknownCategory", "createPost (duel)");
            expectOutcome(deleted, "rest", "notFound", "deleteCategory (duel)");
            return;
          }
          if (inUse) {
            expectOutcome(deleted, "rest", "inUse", "deleteCategory (duel)");
            expectOutcome(created, "rest", postExists ? "conflict" : "created", "createPost (duel)");
          } else if (deleted.status === 200) {
            // The category went first: the post cannot have been made in it, never both.
            expectOutcome(deleted, "rest", "deleted", "deleteCategory (duel)");
            expectOutcome(
              created,
              "rest",
              postExists && created.status === 409 ? "conflict" : "unknownCategory",
              "createPost (duel)",
            );
            m.categories.delete(op.category);
          } else {
            expectOutcome(created, "rest", postExists ? "conflict" : "created", "createPost (duel)");
            // Deleting lost to the post only if the post was made.
            expectOutcome(deleted, "rest", postExists ? "deleted" : "inUse", "deleteCategory (duel)");
          }
          if (created.status === 201) m.posts.set(op.slug, { ...post, id: created.body.post.id });
        },
      );
    case "readCategory":
      return locked(
        () => [name("category", op.slug)],
        async () => {
          const category = m.categories.get(op.slug);
          if (op.via === "rest") {
            const res = await rest("GET", `/v1/categories/${op.slug}`, ws.publicKey);
            expectOutcome(res, "rest", category ? "read" : "notFound", "readCategory");
            if (category)
              expect(res.body.category).toMatchObject({
                id: category.id,
                name: category.name,
                slug: op.slug,
              });
          } else {
            const res = await gql(
              ws.publicKey,
              "query($i: String!) { category(identifier: $i) { id name slug } }",
              { i: op.slug },
            );
            expectOutcome(res, "graphql", category ? "read" : "notFound", "readCategory");
            if (category)
              expect(res.body.data.category).toEqual({ id: category.id, name: category.name, slug: op.slug });
          }
        },
      );
    case "readPost":
      return locked(
        () => [name("post", op.slug)],
        async () => {
          const post = m.posts.get(op.slug);
          const visible = post?.status === "published";
          const res = await rest("GET", `/v1/posts/${op.slug}`, ws.publicKey);
          expectOutcome(res, "rest", visible ? "read" : "notFound", "readPost");
          if (visible)
            expect(res.body.post).toMatchObject({ id: post.id, title: post.title, content: post.content });
        },
      );
    case "listCategories":
      return locked(
        () => CATEGORY_SLUGS.map((slug) => name("category", slug)),
        async () => {
          const res = await rest("GET", "/v1/categories?limit=100", ws.publicKey);
          expectOutcome(res, "rest", "read", "listCategories");
          expect(categoryRows(res.body.categories)).toEqual(modelCategoryRows(m));
        },
      );
    case "publicWrite": {
      if (op.via === "rest") {
        const res = await rest("POST", "/v1/categories", ws.publicKey, { name: "Nope", slug: op.slug });
        expect(res.status).toBe(403);
        expect(res.body).toEqual(FORBIDDEN);
        return;
      }
      const res = await gql(
        ws.publicKey,
        'mutation($s: String!) { createCategory(input: { name: "Nope", slug: $s }) { id } }',
        {
          s: op.slug,
        },
      );
      expectOutcome(res, "graphql", "forbidden", "createCategory (public key)");
      return;
    }
    case "foreignRead":
      return locked(
        () => [name("category", op.slug, other)],
        async () => {
          const foreign = other.model.categories.get(op.slug);
          const res = await rest("GET", `/v1/categories/${foreign?.id ?? MISSING_CATEGORY}`, ws.publicKey);
          expectOutcome(res, "rest", "notFound", "readCategory (another workspace's)");
        },
      );
  }
}

type Outcome =
  | "created"
  | "read"
  | "updated"
  | "deleted"
  | "conflict"
  | "notFound"
  | "inUse"
  | "unknownCategory"
  | "invalid"
  | "forbidden";

const REST_STATUS: Record<Outcome, number> = {
  created: 201,
  read: 200,
  updated: 200,
  deleted: 200,
  conflict: 409,
  notFound: 404,
  inUse: 400,
  unknownCategory: 400,
  invalid: 400,
  forbidden: 403,
};
const GRAPHQL_CODE: Partial<Record<Outcome, string>> = {
  conflict: "CONFLICT",
  notFound: "NOT_FOUND",
  inUse: "BAD_USER_INPUT",
  unknownCategory: "BAD_USER_INPUT",
  invalid: "BAD_USER_INPUT",
  forbidden: "FORBIDDEN",
};

/** The status (and for GraphQL the error code, or data without errors) the contract gives `outcome`. */
function expectOutcome(res: TestResponse, door: "rest" | "graphql", outcome: Outcome, what: string): void {
  const context = `${what}: expected ${outcome}, answered ${res.status} ${JSON.stringify(res.body).slice(0, 500)}`;
  if (door === "rest") {
    expect(res.status, context).toBe(REST_STATUS[outcome]);
    return;
  }
  const code = GRAPHQL_CODE[outcome];
  if (!code) {
    expect(res.status, context).toBe(200);
    expect(res.body.errors, context).toBeUndefined();
    expect(res.body.data, context).toEqual(expect.any(Object));
    return;
  }
  expect(res.status, context).toBe(REST_STATUS[outcome] === 400 ? 400 : REST_STATUS[outcome]);
  expect(res.body, context).toMatchObject({
    data: null,
    errors: [{ message: expect.any(String), extensions: { code } }],
  });
}

async function createCategory(
  ctx: SoakContext,
  key: string,
  slug: string,
  categoryName: string,
  door: "rest" | "graphql",
  outcome: "created" | "conflict",
): Promise<string | undefined> {
  if (door === "rest") {
    const res = await send(ctx, "POST", "/v1/categories", key, { name: categoryName, slug });
    expectOutcome(res, door, outcome, "createCategory");
    if (outcome === "conflict") return undefined;
    expect(res.body.category).toEqual({
      id: expect.any(String),
      name: categoryName,
      slug,
      description: null,
    });
    return res.body.category.id;
  }
  const res = await send(ctx, "POST", "/graphql", `Bearer ${key}`, {
    query: "mutation($i: CreateCategoryInput!) { createCategory(input: $i) { id name slug } }",
    variables: { i: { name: categoryName, slug } },
  });
  expectOutcome(res, door, outcome, "createCategory");
  if (outcome === "conflict") return undefined;
  expect(res.body.data.createCategory).toEqual({ id: expect.any(String), name: categoryName, slug });
  return res.body.data.createCategory.id;
}

async function createPost(
  ctx: SoakContext,
  key: string,
  slug: string,
  post: ModelPost,
  categoryId: string,
  m: WorkspaceModel,
  door: "rest" | "graphql",
  outcome: "created" | "conflict" | "unknownCategory",
): Promise<string | undefined> {
  const tagIds = post.tags.map((tag) => m.tags.get(tag)?.id as string);
  const input = {
    title: post.title,
    slug,
    content: post.content,
    description: "soak",
    categoryId,
    tags: tagIds,
  };
  if (door === "rest") {
    const res = await send(ctx, "POST", "/v1/posts", key, { ...input, status: post.status });
    expectOutcome(res, door, outcome, "createPost");
    if (outcome !== "created") return undefined;
    expect(res.body.post).toMatchObject({ slug, title: post.title, status: post.status });
    return res.body.post.id;
  }
  const res = await send(ctx, "POST", "/graphql", `Bearer ${key}`, {
    query: "mutation($i: CreatePostInput!) { createPost(input: $i) { id slug title status } }",
    variables: { i: { ...input, status: post.status.toUpperCase() } },
  });
  expectOutcome(res, door, outcome, "createPost");
  if (outcome !== "created") return undefined;
  expect(res.body.data.createPost).toMatchObject({
    slug,
    title: post.title,
    status: post.status.toUpperCase(),
  });
  return res.body.data.createPost.id;
}

async function updatePost(
  ctx: SoakContext,
  key: string,
  slug: string,
  input: { title: string; content: string; status: "published" | "draft" },
  door: "rest" | "graphql",
  outcome: "updated" | "notFound",
): Promise<void> {
  if (door === "rest") {
    const res = await send(ctx, "PATCH", `/v1/posts/${slug}`, key, input);
    expectOutcome(res, door, outcome, "updatePost");
    if (outcome === "updated")
      expect(res.body.post).toMatchObject({ slug, title: input.title, status: input.status });
    return;
  }
  const res = await send(ctx, "POST", "/graphql", `Bearer ${key}`, {
    query:
      "mutation($s: String!, $i: UpdatePostInput!) { updatePost(identifier: $s, input: $i) { slug title status } }",
    variables: { s: slug, i: { ...input, status: input.status.toUpperCase() } },
  });
  expectOutcome(res, door, outcome, "updatePost");
  if (outcome === "updated")
    expect(res.body.data.updatePost).toEqual({
      slug,
      title: input.title,
      status: input.status.toUpperCase(),
    });
}

async function invalid(
  ctx: SoakContext,
  ws: SoakWorkspace,
  other: SoakWorkspace,
  variant: "badSlug" | "badJson" | "unknownCategory" | "badWebhookUrl" | "foreignRecord",
  slug: string,
  name: (kind: string, key: string | number, of?: SoakWorkspace) => string,
): Promise<void> {
  const key = ws.privateKey;
  switch (variant) {
    case "badSlug": {
      const res = await send(ctx, "POST", "/v1/categories", key, { name: "Bad", slug: `${slug} Bad!` });
      expectOutcome(res, "rest", "invalid", "createCategory (bad slug)");
      expect(res.body).toMatchObject({ error: "Validation failed", details: [{ field: "slug" }] });
      return;
    }
    case "badJson": {
      const res = await send(ctx, "POST", "/v1/posts", key, `{"title": "${slug}"`);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: "Invalid JSON", message: "The request body is not valid JSON" });
      return;
    }
    case "unknownCategory": {
      const res = await send(ctx, "POST", "/v1/posts", key, {
        title: "Orphan",
        slug: `orphan-${slug}`,
        content: "<p>x</p>",
        description: "x",
        categoryId: MISSING_CATEGORY,
        status: "published",
      });
      expectOutcome(res, "rest", "unknownCategory", "createPost (unknown category)");
      expect(res.body.details).toEqual([
        { field: "categoryId", message: `Category "${MISSING_CATEGORY}" does not exist` },
      ]);
      return;
    }
    case "badWebhookUrl": {
      const res = await send(ctx, "POST", "/v1/webhooks", key, {
        url: `ftp://127.0.0.1/${slug}`,
        events: ["*"],
      });
      expectOutcome(res, "rest", "invalid", "createWebhook (bad URL)");
      expect(res.body.details).toEqual([{ field: "url", message: "Must use http or https" }]);
      return;
    }
    case "foreignRecord": {
      // Another workspace's category, by id, with this workspace's private key: as if it did not exist.
      const names = [name("category", slug, other)];
      const held = await ctx.locks.acquire(() => names);
      try {
        const id = other.model.categories.get(slug)?.id ?? MISSING_CATEGORY;
        const patched = await send(ctx, "PATCH", `/v1/categories/${id}`, key, { name: "Taken over" });
        expectOutcome(patched, "rest", "notFound", "updateCategory (another workspace's)");
        const deleted = await send(ctx, "DELETE", `/v1/categories/${id}`, key);
        expectOutcome(deleted, "rest", "notFound", "deleteCategory (another workspace's)");
      } finally {
        ctx.locks.release(held);
      }
    }
  }
}

/** One request; any 5xx fails at once, and a REST answer must match the OpenAPI document. */
export async function send(
  ctx: SoakContext,
  method: string,
  path: string,
  key: string,
  body?: unknown,
): Promise<TestResponse> {
  const res = await requestJson(ctx.url, method, path, { key, ...(body === undefined ? {} : { body }) });
  ctx.count(res.status);
  const context = `${method} ${path} ${body === undefined ? "" : JSON.stringify(body).slice(0, 300)} → ${res.status} ${JSON.stringify(res.body).slice(0, 500)}`;
  expect(res.status, `a 5xx: ${context}`).toBeLessThan(500);
  if (path.startsWith("/v1/")) {
    const problems = ctx.openApi.problems(res, method.toLowerCase(), ctx.openApi.templateFor(path));
    expect(problems, `not the documented body: ${context}`).toEqual([]);
  } else {
    expect(res.body, `not a GraphQL answer: ${context}`).toEqual(expect.objectContaining({}));
    expect("data" in res.body || "errors" in res.body, `not a GraphQL answer: ${context}`).toBe(true);
  }
  return res;
}

async function upload(ctx: SoakContext, key: string, png: Uint8Array): Promise<TestResponse> {
  const form = new FormData();
  form.append("file", new Blob([new Uint8Array(png)], { type: "image/png" }), "soak.png");
  const response = await fetch(`${ctx.url}/v1/media/upload`, {
    method: "POST",
    headers: { authorization: key },
    body: form,
  });
  const res = { status: response.status, headers: response.headers, body: await response.json() };
  ctx.count(res.status);
  expect(res.status, `a 5xx: POST /v1/media/upload → ${JSON.stringify(res.body)}`).toBeLessThan(500);
  expect(ctx.openApi.problems(res, "post", "/v1/media/upload")).toEqual([]);
  return res;
}

/** A post of a list, as far as the soak reads it. */
export interface ListedPost {
  id: string;
  slug: string;
  title: string;
  content: string;
  status: string;
  category: { slug: string };
  tags: Array<{ slug: string }>;
}

/** Every post of the workspace, drafts included (a private key's list). */
export async function listPosts(ctx: SoakContext, key: string): Promise<ListedPost[]> {
  const res = await send(ctx, "GET", "/v1/posts?status=all&limit=100", key);
  expect(res.status).toBe(200);
  return res.body.posts;
}

export function categoryRows(items: Array<{ id: string; name: string; slug: string }>) {
  return items.map(({ id, name, slug }) => ({ id, name, slug })).sort((a, b) => a.slug.localeCompare(b.slug));
}

export function modelCategoryRows(m: WorkspaceModel) {
  return [...m.categories]
    .map(([slug, { id, name }]) => ({ id, name, slug }))
    .sort((a, b) => a.slug.localeCompare(b.slug));
}
