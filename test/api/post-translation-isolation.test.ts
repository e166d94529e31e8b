// A public key never learns of a draft translation (issue 56, "the hard cases" 2). A post is published
// in English (the default) and German, its French translation is a draft, and then a shared field of the
// post changes (featured, tags): the French translation is still a draft, and nothing a public key can
// read says it exists — not a REST read, not GraphQL, not the change feed (`/v1/changes`, with and
// without `locale`), not a subscription (SSE, with and without `locale`), not `alternates` or
// `availableLocales`. A private key is told of it everywhere, which shows each door could tell.
// Webhooks have no public subscribers: an endpoint is registered with a private key (a public key's
// attempt is a 403) and hears every event, as the private change log does.
// Over HTTP only, so it also runs against the built server (vitest.process.config.ts).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { restFixtures } from "../helpers/rest-fixtures.ts";
import { type SseSubscription, subscribe } from "../helpers/sse-subscription.ts";
import { startTestApp, type TestApp, type TestWorkspace } from "../helpers/test-app.ts";

type Body = Record<string, unknown>;

/** What the French draft is made of: none of it may reach a public key. */
const FRENCH_SECRETS = ["brouillon-secret", "Brouillon secret", "Français secret", "Contenu secret"];

let app: TestApp;
let ws: TestWorkspace;
let postId: string;
/** What each reader holds before the French draft is written: cursors at the head, open streams. */
const before: {
  feeds: Record<string, string>;
  streams: Record<string, SseSubscription>;
  /** The public feeds read right after the draft's writes, before the shared edits. */
  afterDraft: Record<string, Body[]>;
} = { feeds: {}, streams: {}, afterDraft: {} };
/** A subscription to every change, or to those of one locale. */
const live = (locale: string | null) =>
  `subscription { contentChanged${locale ? `(locale: "${locale}")` : ""} { type resourceId slug locales data } }`;

const asPublic = (path: string) => app.request("GET", path, { key: ws.publicKey });
const asPrivate = (path: string) => app.request("GET", path, { key: ws.privateKey });
const write = async (method: string, path: string, body?: Body) => {
  const res = await app.request(method, path, { key: ws.privateKey, body });
  expect(res.status, JSON.stringify(res.body)).toBeLessThan(300);
  return res.body as Body;
};
const graphql = (key: string, query: string, variables: Body = {}) =>
  app.request("POST", "/graphql", { key, body: { query, variables } });

/** Every page of /v1/changes from `since` (a cursor, or none: everything visible now, then the log). */
async function feed(key: string, query: string, since?: string): Promise<Body[]> {
  const changes: Body[] = [];
  let cursor = since;
  for (;;) {
    const res = await app.request("GET", `/v1/changes?limit=100${query}${cursor ? `&since=${cursor}` : ""}`, {
      key,
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    changes.push(...(res.body.changes as Body[]));
    cursor = res.body.nextCursor;
    if (!res.body.hasMore) return changes;
  }
}

/** An answer says nothing of the French draft. */
function expectNothingFrench(answer: unknown, where: string) {
  const text = JSON.stringify(answer);
  for (const secret of FRENCH_SECRETS) expect(text, `${where}: ${secret}`).not.toContain(secret);
  expect(text, `${where}: the locale fr`).not.toMatch(/"fr"/);
}

beforeAll(async () => {
  app = await startTestApp();
  ws = await app.workspace("Isolation");
  const fixtures = restFixtures(app, ws.privateKey);
  for (const code of ["de", "fr"]) await write("POST", "/v1/locales", { code });
  const news = await fixtures.category("news");
  const post = (await write("POST", "/v1/posts", {
    title: "Hello",
    slug: "hello",
    description: "English",
    content: "<p>Hello</p>",
    categoryId: news.id,
    status: "published",
  })) as { post: { id: string } };
  postId = post.post.id;
  await write("PATCH", `/v1/posts/${postId}?locale=de`, {
    title: "Hallo",
    slug: "hallo",
    description: "Deutsch",
    content: "<p>Hallo</p>",
    status: "published",
  });

  // Readers that follow from here: the public feed without and with a locale, and subscriptions.
  for (const [name, key, query] of [
    ["public", ws.publicKey, ""],
    ["public fr", ws.publicKey, "&locale=fr"],
    ["public de", ws.publicKey, "&locale=de"],
    ["private fr", ws.privateKey, "&locale=fr"],
  ] as const) {
    const res = await app.request("GET", `/v1/changes?since=latest${query}`, { key });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    before.feeds[name] = res.body.nextCursor;
  }
  for (const [name, key, locale] of [
    ["public", ws.publicKey, null],
    ["public fr", ws.publicKey, "fr"],
    ["public de", ws.publicKey, "de"],
    ["private fr", ws.privateKey, "fr"],
  ] as const)
    before.streams[name] = await subscribe(app.url, key, live(locale));

  // The French draft, written and edited; then shared fields, through the default and through German.
  await write("PATCH", `/v1/posts/${postId}?locale=fr`, {
    title: "Brouillon secret",
    slug: "brouillon-secret",
    description: "Français secret",
    content: "<p>Contenu secret</p>",
  });
  await write("PATCH", `/v1/posts/${postId}?locale=fr`, { title: "Brouillon secret, encore" });
  for (const [name, query] of [
    ["public", ""],
    ["public fr", "&locale=fr"],
    ["public de", "&locale=de"],
  ] as const)
    before.afterDraft[name] = await feed(ws.publicKey, query, before.feeds[name]);
  const js = await fixtures.tag("js");
  await write("PATCH", `/v1/posts/${postId}`, { featured: true });
  await write("PATCH", `/v1/posts/${postId}?locale=de`, { tags: [js.id] });
  // Every stream has read up to here once it has this tag's event (every locale's concern).
  await fixtures.tag("marker");
  for (const stream of Object.values(before.streams))
    await stream.waitFor((received) =>
      received.some((r) => (r.data?.contentChanged as Body | undefined)?.slug === "marker"),
    );
});
afterAll(async () => {
  for (const stream of Object.values(before.streams)) stream.close();
  await app?.close();
});

describe("a draft translation, after its post's shared fields changed", () => {
  it("is still a draft, and the German and English translations are still published", async () => {
    const fr = await asPrivate(`/v1/posts/${postId}?locale=fr&fallback=none&status=all`);
    expect(fr.body.post).toMatchObject({ locale: "fr", slug: "brouillon-secret", status: "draft" });
    const de = await asPublic(`/v1/posts/${postId}?locale=de&fallback=none`);
    expect(de.body.post).toMatchObject({ locale: "de", status: "published", featured: true });
    expect((await asPublic(`/v1/posts/${postId}`)).body.post).toMatchObject({ status: "published" });
  });

  it("is in no REST read of a public key: not served, not matched by its slug, not an alternate", async () => {
    const reads = {
      one: await asPublic(`/v1/posts/${postId}`),
      german: await asPublic(`/v1/posts/hallo?locale=de`),
      frenchFallingBack: await asPublic(`/v1/posts/${postId}?locale=fr&fallback=en`),
      list: await asPublic("/v1/posts"),
      frenchList: await asPublic("/v1/posts?locale=fr&fallback=en"),
      germanList: await asPublic("/v1/posts?locale=de"),
    };
    for (const [name, res] of Object.entries(reads)) {
      expect(res.status, name).toBe(200);
      expectNothingFrench(res.body, name);
    }
    expect(reads.german.body.post).toMatchObject({
      availableLocales: ["en", "de"],
      alternates: [
        { locale: "en", slug: "hello" },
        { locale: "de", slug: "hallo" },
      ],
    });
    expect(reads.frenchFallingBack.body.post).toMatchObject({ locale: "en", availableLocales: ["en", "de"] });
    expect((await asPublic(`/v1/posts/${postId}?locale=fr&fallback=none`)).status).toBe(404);
    expect((await asPublic("/v1/posts/brouillon-secret?locale=fr&fallback=en")).status).toBe(404);
    const onlyFrench = await asPublic("/v1/posts?locale=fr&fallback=none");
    expect(onlyFrench.body).toMatchObject({ posts: [], pagination: { totalItems: 0 } });
    // A private key reading drafts is told of it.
    const privately = await asPrivate(`/v1/posts/hallo?locale=de&status=all`);
    expect(privately.body.post).toMatchObject({ availableLocales: ["en", "de", "fr"] });
  });

  it("is in no GraphQL answer to a public key", async () => {
    const query = `{
      post(identifier: "${postId}", locale: "de") { title locale availableLocales alternates { locale slug } }
      fallingBack: post(identifier: "${postId}", locale: "fr", fallback: "en") { title locale availableLocales }
      onlyFrench: posts(locale: "fr", fallback: "none") { items { id } pagination { totalItems } }
      changes(locale: "fr", types: ["posts"]) { changes { op id data } hasMore }
      defaultChanges: changes { changes { op type id data } }
    }`;
    const res = await graphql(ws.publicKey, query);
    expect(res.body.errors).toBeUndefined();
    expectNothingFrench(res.body, "GraphQL");
    expect(res.body.data).toMatchObject({
      post: { locale: "de", availableLocales: ["en", "de"] },
      fallingBack: { locale: "en", availableLocales: ["en", "de"] },
      onlyFrench: { items: [], pagination: { totalItems: 0 } },
      changes: { changes: [], hasMore: false },
    });
    // The same document with a private key shows the draft in the French feed.
    const privately = await graphql(
      ws.privateKey,
      `{ changes(locale: "fr", types: ["posts"]) { changes { op id data } } }`,
    );
    expect(privately.body.data.changes.changes).toEqual([
      { op: "UPSERT", id: postId, data: expect.objectContaining({ locale: "fr", status: "draft" }) },
    ]);
  });

  it("is not in a public key's change feed: no entry, no upsert timed by its edits, in any locale", async () => {
    // Read between the draft's writes and the shared edits: nothing happened that a public key may see.
    expect(before.afterDraft).toEqual({ public: [], "public fr": [], "public de": [] });

    // From the start (the listing of what is visible now, then the log) and from before the draft.
    const fromStart = {
      all: await feed(ws.publicKey, ""),
      fr: await feed(ws.publicKey, "&locale=fr"),
      de: await feed(ws.publicKey, "&locale=de"),
    };
    for (const [name, changes] of Object.entries(fromStart)) expectNothingFrench(changes, `feed ${name}`);
    expect(fromStart.fr).toEqual(
      // Categories and tags have no translations: every locale's feed lists them.
      fromStart.fr.filter((entry) => entry.type !== "post"),
    );
    expect(fromStart.de.filter((entry) => entry.type === "post")).toEqual([
      {
        op: "upsert",
        type: "post",
        id: postId,
        data: expect.objectContaining({ locale: "de", slug: "hallo" }),
      },
    ]);

    const sinceBefore = {
      all: await feed(ws.publicKey, "", before.feeds.public),
      fr: await feed(ws.publicKey, "&locale=fr", before.feeds["public fr"]),
      de: await feed(ws.publicKey, "&locale=de", before.feeds["public de"]),
    };
    for (const [name, changes] of Object.entries(sinceBefore))
      expectNothingFrench(changes, `feed since ${name}`);
    // Only the shared edits (and the tags' records) reach the English and German feeds; the French one
    // hears of the tags only.
    expect(sinceBefore.fr.map((entry) => entry.type)).not.toContain("post");
    expect(sinceBefore.de.filter((entry) => entry.type === "post")).toEqual([
      {
        op: "upsert",
        type: "post",
        id: postId,
        data: expect.objectContaining({
          locale: "de",
          featured: true,
          tags: [expect.objectContaining({ slug: "js" })],
        }),
      },
    ]);
    expect(sinceBefore.all.filter((entry) => entry.type === "post")).toEqual([
      {
        op: "upsert",
        type: "post",
        id: postId,
        data: expect.objectContaining({ slug: "hello", featured: true }),
      },
    ]);

    // A private key's French feed has the draft.
    const privately = await feed(ws.privateKey, "&locale=fr", before.feeds["private fr"]);
    expect(privately.filter((entry) => entry.type === "post")).toEqual([
      {
        op: "upsert",
        type: "post",
        id: postId,
        data: expect.objectContaining({ locale: "fr", status: "draft", title: "Brouillon secret, encore" }),
      },
    ]);
  });

  it("reaches no public subscriber, with or without a locale; the events it shares name only public translations", async () => {
    const changes = (name: string) =>
      (before.streams[name]?.received ?? []).map((r) => r.data?.contentChanged as Body);
    for (const name of ["public", "public fr", "public de"])
      expectNothingFrench(changes(name), `stream ${name}`);
    const postEvents = (name: string) =>
      changes(name)
        .filter((change) => String(change.type).startsWith("post."))
        .map((change) => ({ type: change.type, locales: change.locales }));
    // The two shared edits, each naming the translations a public key may know of, and the German write.
    expect(postEvents("public")).toEqual([
      { type: "post.updated", locales: ["en", "de"] },
      { type: "post.updated", locales: ["en", "de"] },
      { type: "post.updated", locales: ["de"] },
    ]);
    expect(postEvents("public de")).toEqual(postEvents("public"));
    expect(postEvents("public fr")).toEqual([]);
    // A private subscriber to French hears the draft's two writes and the two shared edits.
    expect(postEvents("private fr")).toEqual([
      { type: "post.updated", locales: ["fr"] },
      { type: "post.updated", locales: ["fr"] },
      { type: "post.updated", locales: ["en", "de", "fr"] },
      { type: "post.updated", locales: ["en", "de", "fr"] },
    ]);
  });

  it("is told to private keys only: the change log is theirs, and so are webhook endpoints", async () => {
    expect((await asPublic("/v1/events")).status).toBe(403);
    const register = await app.request("POST", "/v1/webhooks", {
      key: ws.publicKey,
      body: { url: "https://hooks.example.com/content", events: ["*"] },
    });
    expect(register.status).toBe(403);
    const log = await asPrivate("/v1/events?locale=fr&types=post.updated&limit=100");
    expect(log.status, JSON.stringify(log.body)).toBe(200);
    expect((log.body.events as Body[]).map((event) => event.locales)).toEqual([
      ["fr"],
      ["fr"],
      ["en", "de", "fr"],
      ["en", "de", "fr"],
    ]);
  });
});
