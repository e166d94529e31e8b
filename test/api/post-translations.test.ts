// Post translations, their writes (issue 56): a post starts in the workspace's default locale (its own
// fields); `PATCH /v1/posts/{id}?locale=de` writes its German translation (creating it when missing),
// `DELETE …?locale=de` removes that one translation, and the same through GraphQL's `locale` argument.
// Each translation is published or kept a draft on its own, shared fields (category, tags, authors,
// featured, cover image) stay on the post and editing them changes no translation's status, slugs are
// unique per locale or — with the workspace's setting — across locales, by the database (a concurrent
// duplicate is one 201/200 and one 409), and the events name the locale. Bad input is a 400 naming
// `locale`. Over HTTP only, so it also runs against the built server.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectMatchesOpenApi } from "../helpers/openapi-check.ts";
import { restFixtures } from "../helpers/rest-fixtures.ts";
import { startTestApp, type TestApp, type TestWorkspace } from "../helpers/test-app.ts";

type Body = Record<string, unknown>;

const ADMIN_TOKEN = "admin-token-for-translation-tests-0123456789";
const POST_ITEM = "/v1/posts/{identifier}";

let app: TestApp;
beforeAll(async () => {
  // Background work on: the scheduler releases scheduled translations.
  app = await startTestApp({ background: true, env: { ADMIN_TOKEN } });
});
afterAll(async () => app?.close());

/** A workspace with locales en (default), de and fr, a category, two tags, and REST helpers. */
async function workspace() {
  const ws: TestWorkspace = await app.workspace();
  const fixtures = restFixtures(app, ws.privateKey);
  const call = async (
    method: string,
    template: string,
    path: string,
    body?: unknown,
    key = ws.privateKey,
  ) => {
    const res = await app.request(method, path, { key, body });
    expectMatchesOpenApi(res, method.toLowerCase(), template);
    return res;
  };
  for (const code of ["de", "fr"]) {
    const res = await call("POST", "/v1/locales", "/v1/locales", { code });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
  }
  const news = await fixtures.category("news");
  const sport = await fixtures.category("sport");
  const js = await fixtures.tag("js");
  const api = {
    ws,
    news,
    sport,
    js,
    call,
    create: (body: Body, query = "") => call("POST", "/v1/posts", `/v1/posts${query}`, body),
    update: (id: string, body: Body, query = "") => call("PATCH", POST_ITEM, `/v1/posts/${id}${query}`, body),
    remove: (id: string, query = "") => call("DELETE", POST_ITEM, `/v1/posts/${id}${query}`),
    read: (id: string, query = "", key = ws.privateKey) =>
      call("GET", POST_ITEM, `/v1/posts/${id}${query ? `?${query}` : ""}`, undefined, key),
    /** Post events of the post since the start, as /v1/events lists them: type, locale, slug, status. */
    async events(postId: string) {
      const res = await call("GET", "/v1/events", "/v1/events?limit=100");
      expect(res.status).toBe(200);
      return (res.body.events as Body[])
        .filter((event) => (event.data as Body).id === postId)
        .map((event) => {
          const data = event.data as Body;
          return {
            type: event.type,
            locale: data.locale ?? null,
            slug: data.slug,
            status: data.status ?? null,
          };
        });
    },
    async post(slug: string, extra: Body = {}) {
      const res = await call("POST", "/v1/posts", "/v1/posts", {
        title: `Hello ${slug}`,
        content: "<p>Hello</p>",
        description: "English",
        slug,
        categoryId: news.id,
        status: "published",
        ...extra,
      });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      return res.body.post as Body & { id: string };
    },
    german: (slug: string, extra: Body = {}) => ({
      title: `Hallo ${slug}`,
      content: "<p>Hallo</p>",
      description: "Deutsch",
      slug,
      ...extra,
    }),
  };
  return api;
}

describe("writing a translation", () => {
  it("creates it with PATCH ?locale=de, answers it, and leaves the post's own (default) fields alone", async () => {
    const api = await workspace();
    const post = await api.post("hello");
    const created = await api.update(post.id, api.german("hallo", { status: "draft" }), "?locale=de");
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    expect(created.body.post).toMatchObject({
      id: post.id,
      slug: "hallo",
      title: "Hallo hallo",
      status: "draft",
    });

    // The default locale's post as it was: requests without a locale are served it, and in this
    // workspace of several locales say so, with the draft translation among the alternates a private key sees.
    const english = await api.read(post.id);
    expect(english.body.post).toMatchObject({
      slug: "hello",
      title: "Hello hello",
      status: "published",
      locale: "en",
      availableLocales: ["en", "de"],
    });

    // An update of the translation changes only the fields given; `de` is published on its own.
    const published = await api.update(post.id, { status: "published" }, "?locale=de");
    expect(published.body.post).toMatchObject({ slug: "hallo", title: "Hallo hallo", status: "published" });

    expect(await api.events(post.id)).toEqual([
      { type: "post.created", locale: null, slug: "hello", status: "published" },
      { type: "post.published", locale: null, slug: "hello", status: "published" },
      { type: "post.updated", locale: "de", slug: "hallo", status: "draft" },
      { type: "post.updated", locale: "de", slug: "hallo", status: "published" },
      { type: "post.published", locale: "de", slug: "hallo", status: "published" },
    ]);
  });

  it("needs title, slug, description and content to create a translation: a 400 naming the missing ones", async () => {
    const api = await workspace();
    const post = await api.post("needs");
    const res = await api.update(post.id, { title: "Nur ein Titel" }, "?locale=de");
    expect(res.status).toBe(400);
    expect(res.body.details).toEqual([
      { field: "slug", message: "Required" },
      { field: "description", message: "Required" },
      { field: "content", message: "Required" },
    ]);
  });

  it("keeps shared fields on the post: editing them with or without a locale changes no translation's status", async () => {
    const api = await workspace();
    const post = await api.post("shared");
    await api.update(post.id, api.german("geteilt", { status: "published" }), "?locale=de");
    await api.update(
      post.id,
      { title: "Brouillon", slug: "partage", description: "Français", content: "<p>Salut</p>" },
      "?locale=fr",
    );

    // Shared fields through the German translation's update: they land on the post.
    const moved = await api.update(
      post.id,
      { categoryId: api.sport.id, tags: [api.js.id], featured: true },
      "?locale=de",
    );
    expect(moved.status, JSON.stringify(moved.body)).toBe(200);
    const english = (await api.read(post.id)).body.post as Body;
    expect(english).toMatchObject({ slug: "shared", status: "published", featured: true });
    expect((english.category as Body).slug).toBe("sport");
    expect((english.tags as Body[]).map((tag) => tag.slug)).toEqual(["js"]);
    // And through the default's: the French draft stays a draft, the German stays published.
    await api.update(post.id, { featured: false });
    const fr = await api.update(post.id, {}, "?locale=fr");
    expect(fr.body.post).toMatchObject({ slug: "partage", status: "draft" });
    const de = await api.update(post.id, {}, "?locale=de");
    expect(de.body.post).toMatchObject({ slug: "geteilt", status: "published" });
    expect((await api.events(post.id)).filter((event) => event.type !== "post.updated")).toEqual([
      { type: "post.created", locale: null, slug: "shared", status: "published" },
      { type: "post.published", locale: null, slug: "shared", status: "published" },
      { type: "post.published", locale: "de", slug: "geteilt", status: "published" },
    ]);
  });

  it("removes one translation with DELETE ?locale=de; the default's is a 409, a missing one a 404", async () => {
    const api = await workspace();
    const post = await api.post("remove-me");
    await api.update(post.id, api.german("entfernen", { status: "published" }), "?locale=de");
    const removed = await api.remove(post.id, "?locale=de");
    expect(removed.status, JSON.stringify(removed.body)).toBe(200);
    expect(removed.body).toEqual({ id: post.id });
    expect((await api.read(post.id)).body.post).toMatchObject({ slug: "remove-me", status: "published" });
    expect((await api.remove(post.id, "?locale=de")).status).toBe(404);
    const asDefault = await api.remove(post.id, "?locale=en");
    expect(asDefault.status).toBe(409);
    expect(asDefault.body.message).toContain("default locale");
    // Its slug is free again; the removal names the locale and unpublishes it.
    const again = await api.update(post.id, api.german("entfernen"), "?locale=de");
    expect(again.status).toBe(200);
    expect((await api.events(post.id)).slice(-3)).toEqual([
      { type: "post.updated", locale: "de", slug: "entfernen", status: null },
      { type: "post.unpublished", locale: "de", slug: "entfernen", status: null },
      { type: "post.updated", locale: "de", slug: "entfernen", status: "draft" },
    ]);
    // Deleting the post removes every translation.
    expect((await api.remove(post.id)).status).toBe(200);
    expect((await api.update(post.id, {}, "?locale=de")).status).toBe(404);
  });

  it("keeps a locale that holds translations unless its removal says force=true, then records each translation's removal", async () => {
    const api = await workspace();
    const published = await api.post("kept-1");
    const draft = await api.post("kept-2");
    await api.update(published.id, api.german("behalten-1", { status: "published" }), "?locale=de");
    await api.update(draft.id, api.german("behalten-2"), "?locale=de");
    const refused = await api.call("DELETE", "/v1/locales/{code}", "/v1/locales/de");
    expect(refused.status, JSON.stringify(refused.body)).toBe(409);
    expect(refused.body.error).toBe("Locale has translations");
    expect(refused.body.message).toContain("2 post translations");
    expect(refused.body.message).toContain("force=true");
    expect((await api.read(published.id, "locale=de")).body.post).toMatchObject({ slug: "behalten-1" });

    const forced = await api.call("DELETE", "/v1/locales/{code}", "/v1/locales/de?force=true");
    expect(forced.status, JSON.stringify(forced.body)).toBe(200);
    // The locale is gone, and so are its translations: asking for it is a 400, the posts are their own.
    expect((await api.read(published.id, "locale=de")).status).toBe(400);
    expect((await api.read(published.id)).body.post).toMatchObject({ slug: "kept-1", status: "published" });
    expect((await api.events(published.id)).slice(-2)).toEqual([
      { type: "post.updated", locale: "de", slug: "behalten-1", status: null },
      { type: "post.unpublished", locale: "de", slug: "behalten-1", status: null },
    ]);
    expect((await api.events(draft.id)).slice(-1)).toEqual([
      { type: "post.updated", locale: "de", slug: "behalten-2", status: null },
    ]);
    // A locale added again under that code starts empty: its old slugs are free.
    expect((await api.call("POST", "/v1/locales", "/v1/locales", { code: "de" })).status).toBe(201);
    expect((await api.update(draft.id, api.german("behalten-1"), "?locale=de")).status).toBe(200);
  });

  it("refuses a malformed or unknown locale with a 400 naming `locale`, and creating a post in another locale than the default", async () => {
    const api = await workspace();
    const post = await api.post("bad-input");
    for (const [query, message] of [
      ["?locale=not_a_locale!", /not a valid locale code/],
      ["?locale=it", /"it" is not a locale of this workspace/],
    ] as const) {
      const res = await api.update(post.id, api.german("x"), query);
      expect(res.status, query).toBe(400);
      expect(res.body.details).toEqual([{ field: "locale", message: expect.stringMatching(message) }]);
    }
    const inGerman = await api.create(
      {
        title: "T",
        content: "<p>x</p>",
        description: "d",
        slug: "neu",
        categoryId: api.news.id,
        status: "draft",
      },
      "?locale=de",
    );
    expect(inGerman.status).toBe(400);
    expect(inGerman.body.details).toEqual([
      { field: "locale", message: expect.stringContaining("default locale") },
    ]);
    const inDefault = await api.create(
      {
        title: "T",
        content: "<p>x</p>",
        description: "d",
        slug: "neu",
        categoryId: api.news.id,
        status: "draft",
      },
      "?locale=en",
    );
    expect(inDefault.status).toBe(201);
  });

  it("takes `locale` in a create's body as in its query: the default's creates, another's is a 400, never ignored", async () => {
    const api = await workspace();
    const body = (slug: string, locale?: string) => ({
      title: "T",
      content: "<p>x</p>",
      description: "d",
      slug,
      categoryId: api.news.id,
      status: "published",
      ...(locale === undefined ? {} : { locale }),
    });
    for (const [locale, message] of [
      ["de", /default locale/],
      ["DE", /default locale/],
      ["it", /"it" is not a locale of this workspace/],
      ["not_a_locale!", /not a valid locale code/],
    ] as const) {
      const res = await api.create(body(`refused-${locale.toLowerCase().replace(/\W/g, "")}`, locale));
      expect(res.status, locale).toBe(400);
      expect(res.body.details).toEqual([{ field: "locale", message: expect.stringMatching(message) }]);
    }
    // Nothing was made of them.
    const listed = await api.call("GET", "/v1/posts", "/v1/posts?status=all");
    expect(listed.body.pagination.totalItems).toBe(0);
    // The body and the query may not disagree.
    const both = await api.create(body("both", "en"), "?locale=de");
    expect(both.status).toBe(400);
    expect((both.body.details as Body[]).map((detail) => detail.field)).toEqual(["locale"]);
    // The default locale, by either spelling: the post, as without one.
    for (const [slug, locale, query] of [
      ["in-body", "en", ""],
      ["in-both", "EN", "?locale=en"],
    ] as const) {
      const res = await api.create(body(slug, locale), query);
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      expect((await api.read(slug)).body.post).toMatchObject({ slug, title: "T" });
    }
  });

  it("takes `locale` in an update's body as in its query: the German translation is written, not the post's own", async () => {
    const api = await workspace();
    const post = await api.post("patch-body");
    const written = await api.update(post.id, {
      ...api.german("patch-koerper", { status: "published" }),
      locale: "de",
    });
    expect(written.status, JSON.stringify(written.body)).toBe(200);
    expect(written.body.post).toMatchObject({ slug: "patch-koerper", title: "Hallo patch-koerper" });
    expect((await api.read(post.id)).body.post).toMatchObject({
      slug: "patch-body",
      title: "Hello patch-body",
    });
    expect((await api.read(post.id, "locale=de&fallback=none")).body.post).toMatchObject({
      locale: "de",
      title: "Hallo patch-koerper",
    });
    const disagree = await api.update(post.id, { title: "x", locale: "de" }, "?locale=fr");
    expect(disagree.status).toBe(400);
    expect((disagree.body.details as Body[]).map((detail) => detail.field)).toEqual(["locale"]);
    const unknown = await api.update(post.id, { title: "x", locale: "it" });
    expect(unknown.status).toBe(400);
    expect((unknown.body.details as Body[]).map((detail) => detail.field)).toEqual(["locale"]);
    expect((await api.read(post.id)).body.post).toMatchObject({ title: "Hello patch-body" });
  });
});

describe("scheduling", () => {
  it("releases a scheduled translation at its own time, once, and not the post's other translations", async () => {
    const api = await workspace();
    const post = await api.post("scheduled", { status: "draft" });
    const at = new Date(Date.now() + 1_500).toISOString();
    const scheduled = await api.update(
      post.id,
      api.german("geplant", { status: "published", publishedAt: at }),
      "?locale=de",
    );
    expect(scheduled.body.post).toMatchObject({ status: "published", publishedAt: at });
    await api.update(
      post.id,
      { title: "Plus tard", slug: "plus-tard", description: "d", content: "<p>x</p>" },
      "?locale=fr",
    );
    const published = async () =>
      (await api.events(post.id)).filter((event) => event.type === "post.published");
    expect(await published()).toEqual([]);
    const deadline = Date.now() + 10_000;
    while ((await published()).length === 0 && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 200));
    // Once more after it, to see that nothing is released twice.
    await new Promise((r) => setTimeout(r, 500));
    expect(await published()).toEqual([
      { type: "post.published", locale: "de", slug: "geplant", status: "published" },
    ]);
  });
});

describe("slugs", () => {
  it("may repeat across locales by default, never within one: a concurrent duplicate is one 200 and one 409", async () => {
    const api = await workspace();
    const one = await api.post("same");
    const two = await api.post("other");
    // The default's slug in German: fine.
    expect((await api.update(one.id, api.german("same"), "?locale=de")).status).toBe(200);
    // Two French translations of one slug at once, of two posts.
    const answers = await Promise.all([
      api.update(one.id, api.german("gleich"), "?locale=fr"),
      api.update(two.id, api.german("gleich"), "?locale=fr"),
    ]);
    expect(answers.map((res) => res.status).sort()).toEqual([200, 409]);
    expect(answers.find((res) => res.status === 409)?.body.message).toContain("slug");
  });

  it("are unique across locales with the workspace's setting, which a shared slug refuses (409)", async () => {
    const api = await workspace();
    const post = await api.post("across");
    await api.update(post.id, api.german("across"), "?locale=de");
    const setting = (value: boolean) =>
      app.request("PATCH", `/admin/workspaces/${api.ws.slug}`, {
        headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
        body: { slugsUniqueAcrossLocales: value },
      });
    const refused = await setting(true);
    expect(refused.status, JSON.stringify(refused.body)).toBe(409);
    expect(refused.body.message).toContain("across");
    await api.update(post.id, { slug: "quer" }, "?locale=de");
    expect((await setting(true)).status).toBe(200);
    // Now the default's slug, or the German one, in French: 409; a new one is fine.
    expect((await api.update(post.id, api.german("across"), "?locale=fr")).status).toBe(409);
    expect((await api.update(post.id, api.german("quer"), "?locale=fr")).status).toBe(409);
    expect((await api.update(post.id, api.german("travers"), "?locale=fr")).status).toBe(200);
    // A new post cannot take a translation's slug either.
    const taken = await api.create({
      title: "T",
      content: "<p>x</p>",
      description: "d",
      slug: "travers",
      categoryId: api.news.id,
      status: "draft",
    });
    expect(taken.status).toBe(409);
    // Back to per locale: the same slug in two locales is fine again.
    expect((await setting(false)).status).toBe(200);
    expect((await api.update(post.id, { slug: "across" }, "?locale=fr")).status).toBe(200);
  });
});

describe("reading a translation", () => {
  it("serves the asked locale, else its fallbacks in order, and says which, with the post's alternates", async () => {
    const api = await workspace();
    const post = await api.post("read-me");
    await api.update(post.id, api.german("lies-mich", { status: "published" }), "?locale=de");
    const read = (identifier: string, query: string, key = api.ws.publicKey) =>
      api.read(identifier, query, key);

    const german = await read("lies-mich", "locale=de");
    expect(german.status, JSON.stringify(german.body)).toBe(200);
    expect(german.body.post).toMatchObject({
      id: post.id,
      slug: "lies-mich",
      title: "Hallo lies-mich",
      description: "Deutsch",
      content: "<p>Hallo</p>",
      locale: "de",
      availableLocales: ["en", "de"],
      alternates: [
        { locale: "en", slug: "read-me" },
        { locale: "de", slug: "lies-mich" },
      ],
    });
    // The shared fields are the post's.
    expect((german.body.post.category as Body).slug).toBe("news");

    // No French: with fallback en, the English one, found by its English slug or by id; fallback=none: 404.
    const english = await read("read-me", "locale=fr&fallback=en");
    expect(english.body.post).toMatchObject({ slug: "read-me", title: "Hello read-me", locale: "en" });
    expect((await read(post.id, "locale=fr&fallback=de,en")).body.post).toMatchObject({ locale: "de" });
    expect((await read("read-me", "locale=fr&fallback=none")).status).toBe(404);
    // A locale's own chain is the default fallback.
    expect((await read("read-me", "locale=fr")).status).toBe(404);
    await api.call("PATCH", "/v1/locales/{code}", "/v1/locales/fr", { fallback: ["de", "en"] });
    expect((await read("read-me", "locale=fr")).body.post).toMatchObject({ slug: "lies-mich", locale: "de" });

    // Without a locale: the default's post, saying so (this workspace has several locales).
    const plain = await read("read-me", "");
    expect(plain.body.post).toMatchObject({ slug: "read-me", title: "Hello read-me", locale: "en" });
    expect((plain.body.post.alternates as Body[]).map((alternate) => alternate.locale)).toEqual(
      english.body.post.availableLocales,
    );
  });

  it("matches the asked locale's slug before a fallback's", async () => {
    const api = await workspace();
    const first = await api.post("gift");
    const second = await api.post("poison");
    // "gift" is English for the first post and German for the second ("Gift" is poison).
    await api.update(second.id, api.german("gift", { status: "published" }), "?locale=de");
    const de = await api.read("gift", "locale=de&fallback=en", api.ws.publicKey);
    expect(de.body.post).toMatchObject({ id: second.id, locale: "de" });
    const en = await api.read("gift", "locale=en", api.ws.publicKey);
    expect(en.body.post).toMatchObject({ id: first.id, locale: "en" });
  });

  it("never shows a public key a draft translation: not served, not matched by its slug, not an alternate", async () => {
    const api = await workspace();
    const post = await api.post("public");
    await api.update(post.id, api.german("entwurf"), "?locale=de");
    const asPublic = (identifier: string, query: string) => api.read(identifier, query, api.ws.publicKey);
    const served = await asPublic("public", "locale=de&fallback=en");
    expect(served.body.post).toMatchObject({
      locale: "en",
      availableLocales: ["en"],
      alternates: [{ locale: "en", slug: "public" }],
    });
    expect((await asPublic("entwurf", "locale=de&fallback=en")).status).toBe(404);
    // A private key reading drafts sees it, and is told of it.
    const privately = await api.read("entwurf", "locale=de&status=all");
    expect(privately.body.post).toMatchObject({
      locale: "de",
      status: "draft",
      availableLocales: ["en", "de"],
    });
  });

  it("never tells a public key of a draft translation in the change feed", async () => {
    const api = await workspace();
    const post = await api.post("feed");
    await api.update(post.id, api.german("geheim", { title: "Geheimer Entwurf" }), "?locale=de");
    // The event log is for private keys (403); the change feed answers public keys.
    expect((await app.request("GET", "/v1/events?limit=100", { key: api.ws.publicKey })).status).toBe(403);
    const feed = await app.request("GET", "/v1/changes?limit=100", { key: api.ws.publicKey });
    expect(feed.status).toBe(200);
    const text = JSON.stringify(feed.body);
    expect(text).toContain("Hello feed");
    expect(text).not.toContain("geheim");
    expect(text).not.toContain("Geheimer");
  });

  it("answers anew when a translation it fell back from is published, its source changes, or the chain changes", async () => {
    const api = await workspace();
    const post = await api.post("cached");
    const french = async () => {
      const first = await api.read("cached", "locale=fr&fallback=en", api.ws.publicKey);
      // Twice: the second may be the cache's answer; both must be the current one.
      const second = await api.read(post.id, "locale=fr&fallback=en", api.ws.publicKey);
      expect(second.body.post).toEqual(
        expect.objectContaining({ title: first.body.post.title, locale: first.body.post.locale }),
      );
      return first.body.post as Body;
    };
    expect(await french()).toMatchObject({ title: "Hello cached", locale: "en" });
    await api.update(post.id, { title: "Hello again" });
    expect(await french()).toMatchObject({ title: "Hello again", locale: "en" });
    await api.update(
      post.id,
      { title: "Bonjour", slug: "en-cache", description: "d", content: "<p>x</p>" },
      "?locale=fr",
    );
    expect(await french()).toMatchObject({ title: "Hello again", locale: "en" });
    await api.update(post.id, { status: "published" }, "?locale=fr");
    expect(await french()).toMatchObject({ title: "Bonjour", locale: "fr" });
    // The locale's own chain (no `fallback`): a cached answer from English is replaced when the chain
    // changes to German, though no post changed.
    await api.update(post.id, { status: "draft" }, "?locale=fr");
    await api.update(post.id, api.german("im-cache", { status: "published" }), "?locale=de");
    await api.call("PATCH", "/v1/locales/{code}", "/v1/locales/fr", { fallback: ["en"] });
    const ownChain = async () => {
      const [first, second] = [
        await api.read(post.id, "locale=fr", api.ws.publicKey),
        await api.read(post.id, "locale=fr", api.ws.publicKey),
      ];
      expect(second.body).toEqual(first.body);
      return first.body.post as Body;
    };
    expect(await ownChain()).toMatchObject({ locale: "en" });
    await api.call("PATCH", "/v1/locales/{code}", "/v1/locales/fr", { fallback: ["de"] });
    expect(await ownChain()).toMatchObject({ locale: "de", slug: "im-cache" });
  });

  it("refuses an unknown or malformed locale or fallback with a 400 naming it", async () => {
    const api = await workspace();
    await api.post("refuse");
    for (const [query, field] of [
      ["locale=xx-!!", "locale"],
      ["locale=it", "locale"],
      ["locale=de&fallback=it", "fallback"],
      ["fallback=en", "fallback"],
    ] as const) {
      const res = await api.read("refuse", query, api.ws.publicKey);
      expect(res.status, query).toBe(400);
      expect((res.body.details as Body[]).map((detail) => detail.field)).toEqual([field]);
    }
  });
});

describe("listing in a locale", () => {
  it("filters, searches, sorts, counts and pages the translation each post is served, as reading them one by one does", async () => {
    const api = await workspace();
    const day = (n: number) => new Date(Date.UTC(2025, 0, n, 12)).toISOString();
    // Six posts, sport or news; French translations of four (one a draft).
    const posts: { id: string }[] = [];
    for (let n = 1; n <= 6; n++) {
      const post = await api.post(`post-${n}`, {
        publishedAt: day(n),
        categoryId: n % 2 ? api.news.id : api.sport.id,
        title: n === 3 ? "Zeppelin flight" : `Hello ${n}`,
      });
      posts.push(post);
    }
    const french = async (n: number, extra: Body) => {
      const res = await api.update(
        posts[n - 1]?.id as string,
        {
          title: `Bonjour ${n}`,
          slug: `billet-${n}`,
          description: "fr",
          content: "<p>Salut</p>",
          status: "published",
          publishedAt: day(10 + n),
          ...extra,
        },
        "?locale=fr",
      );
      expect(res.status, JSON.stringify(res.body)).toBe(200);
    };
    await french(1, {});
    await french(2, { title: "Zeppelin en vol" });
    await french(3, { title: "Brouillon", status: "draft" });
    await french(4, { title: "Zeppelin vide" });

    const list = async (query: string, key = api.ws.publicKey) => {
      const res = await api.call("GET", "/v1/posts", `/v1/posts?${query}`, undefined, key);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return res.body as { posts: Body[]; pagination: Body };
    };
    const view = (body: { posts: Body[] }) => body.posts.map((post) => `${post.slug}:${post.locale}`);

    // Newest first by the served translation's date: the French ones (days 11–14) before the English.
    const all = await list("locale=fr&fallback=en&limit=50");
    expect(view(all)).toEqual([
      "billet-4:fr",
      "billet-2:fr",
      "billet-1:fr",
      "post-6:en",
      "post-5:en",
      "post-3:en",
    ]);
    expect(all.pagination.totalItems).toBe(6);
    // Each is what reading it one by one serves.
    for (const post of all.posts) {
      const one = await api.read(post.slug as string, "locale=fr&fallback=en", api.ws.publicKey);
      expect(one.body.post).toEqual(post);
    }

    // A category (shared), a sort and pages.
    const sport = await list("locale=fr&fallback=en&categories=sport&order=asc&limit=2");
    expect(view(sport)).toEqual(["post-6:en", "billet-2:fr"]);
    expect(sport.pagination).toMatchObject({ totalItems: 3, totalPages: 2, nextPage: 2 });
    expect(view(await list("locale=fr&fallback=en&categories=sport&order=asc&limit=2&page=2"))).toEqual([
      "billet-4:fr",
    ]);

    // A search runs on the served translation: the French "Zeppelin" titles, and the English post 3 whose
    // French translation is a draft; never post 3's draft.
    const found = await list("locale=fr&fallback=en&query=zeppelin&order=desc");
    expect(view(found)).toEqual(["billet-4:fr", "billet-2:fr", "post-3:en"]);
    expect(found.pagination.totalItems).toBe(3);

    // fallback=none: only real (and, for a public key, published) French translations.
    const only = await list("locale=fr&fallback=none&limit=50");
    expect(view(only)).toEqual(["billet-4:fr", "billet-2:fr", "billet-1:fr"]);
    expect(only.pagination.totalItems).toBe(3);
    // A private key with status=all sees the draft too.
    const drafts = await list("locale=fr&fallback=none&status=all&limit=50", api.ws.privateKey);
    expect(view(drafts)).toEqual(["billet-4:fr", "billet-3:fr", "billet-2:fr", "billet-1:fr"]);

    // Without a locale: the list as before, no locale fields.
    const plain = await list("limit=50");
    expect(plain.posts.map((post) => post.slug)).toEqual([
      "post-6",
      "post-5",
      "post-4",
      "post-3",
      "post-2",
      "post-1",
    ]);
    // Each served in the default locale, which says so in this workspace of several locales.
    expect(plain.posts.map((post) => post.locale)).toEqual(plain.posts.map(() => "en"));
  });
});

describe("locale=auto", () => {
  /** A workspace with en (default), de and fr, one post published in all three. */
  async function trilingual() {
    const api = await workspace();
    const post = await api.post("auto");
    await api.update(post.id, api.german("automatisch", { status: "published" }), "?locale=de");
    await api.update(
      post.id,
      { title: "Bonjour", slug: "automatique", description: "fr", content: "<p>x</p>", status: "published" },
      "?locale=fr",
    );
    /** GET `path` with a public key and this Accept-Language (none when null). */
    const get = async (path: string, language: string | null) => {
      const res = await app.request("GET", path, {
        key: api.ws.publicKey,
        headers: language === null ? {} : { "accept-language": language },
      });
      const template = path.split("?")[0] === "/v1/posts" ? "/v1/posts" : POST_ITEM;
      expectMatchesOpenApi(res, "get", template);
      return res;
    };
    const served = async (path: string, language: string | null) => {
      const res = await get(path, language);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      const post = (res.body.post ?? (res.body.posts as Body[])[0]) as Body;
      return post.locale;
    };
    return { api, post, get, served };
  }

  it("serves the best of the workspace's locales by the request's Accept-Language, one post and lists", async () => {
    const { post, served } = await trilingual();
    for (const path of [`/v1/posts/${post.id}?locale=auto`, "/v1/posts?locale=auto"]) {
      // A language range matches its language: de-CH is served de.
      expect(await served(path, "de-CH, fr;q=0.9"), path).toBe("de");
      expect(await served(path, "fr-CA"), path).toBe("fr");
      expect(await served(path, "FR"), path).toBe("fr");
      // Quality values order the choices, whatever order the header lists them in.
      expect(await served(path, "fr;q=0.5, de;q=0.8, en;q=0.1"), path).toBe("de");
      expect(await served(path, "de;q=0.2, it, fr;q=0.9"), path).toBe("fr");
      // q=0 refuses a language.
      expect(await served(path, "de;q=0, *"), path).toBe("en");
      expect(await served(path, "de;q=0, fr;q=0.3, *;q=0.1"), path).toBe("fr");
      // No match, or no header: the workspace's default locale.
      expect(await served(path, "it, es;q=0.5"), path).toBe("en");
      expect(await served(path, null), path).toBe("en");
    }
    // The slug of the chosen locale is matched, and its fallback chain applies.
    expect(await served("/v1/posts/automatisch?locale=auto", "de")).toBe("de");
    expect(await served(`/v1/posts/${post.id}?locale=auto&fallback=none`, "fr")).toBe("fr");
  });

  it("answers Vary: Accept-Language only with locale=auto, on answers and refusals", async () => {
    const { post, get } = await trilingual();
    const plain = "Authorization, Accept-Encoding";
    for (const path of [`/v1/posts/${post.id}`, "/v1/posts"]) {
      for (const query of ["", "?locale=de", "?locale=fr&fallback=en"]) {
        // Twice: the cache's answer (HIT) must carry the same headers as the computed one.
        for (const cache of ["MISS", "HIT"]) {
          const res = await get(`${path}${query}`, "de");
          expect(res.status).toBe(200);
          expect(res.headers.get("x-cache"), `${path}${query}`).toBe(cache);
          expect(res.headers.get("vary"), `${path}${query}`).toBe(plain);
        }
      }
      for (const cache of ["MISS", "HIT"]) {
        const res = await get(`${path}?locale=auto`, "de");
        expect(res.status).toBe(200);
        expect(res.headers.get("x-cache"), path).toBe(cache);
        expect(res.headers.get("vary")).toBe(`${plain}, Accept-Language`);
      }
    }
    const missing = await get("/v1/posts/no-such-post?locale=auto", "de");
    expect(missing.status).toBe(404);
    expect(missing.headers.get("vary")).toContain("Accept-Language");
    const badFallback = await get(`/v1/posts/${post.id}?locale=auto&fallback=it`, "de");
    expect(badFallback.status).toBe(400);
    expect((badFallback.body.details as Body[]).map((detail) => detail.field)).toEqual(["fallback"]);
    expect(badFallback.headers.get("vary")).toContain("Accept-Language");
  });

  it("keeps cached answers apart by the locale chosen: one URL, another Accept-Language, another answer", async () => {
    const { api, post, get } = await trilingual();
    for (const path of [`/v1/posts/${post.id}?locale=auto`, "/v1/posts?locale=auto"]) {
      const title = (res: { body: Body }) =>
        ((res.body.post ?? (res.body.posts as Body[])[0]) as Body).title as string;
      const de = await get(path, "de");
      expect(title(de)).toBe("Hallo automatisch");
      const fr = await get(path, "fr");
      expect(title(fr)).toBe("Bonjour");
      expect(fr.headers.get("etag")).not.toBe(de.headers.get("etag"));
      // The same choice from another header is the same stored answer.
      const deAgain = await get(path, "de-AT, en;q=0.5");
      expect(title(deAgain)).toBe("Hallo automatisch");
      expect(deAgain.headers.get("x-cache"), path).toBe("HIT");
      expect(deAgain.headers.get("etag")).toBe(de.headers.get("etag"));
      const none = await get(path, "it");
      expect(title(none)).toBe("Hello auto");
      expect((await get(path, "fr;q=0.9")).headers.get("x-cache"), path).toBe("HIT");
      // An If-None-Match of another locale's answer is no 304.
      const other = await app.request("GET", path, {
        key: api.ws.publicKey,
        headers: { "accept-language": "fr", "if-none-match": de.headers.get("etag") as string },
      });
      expect(other.status).toBe(200);
      expect(title(other)).toBe("Bonjour");
    }
    // A write replaces the answers of every locale chosen.
    await api.update(post.id, { title: "Hallo neu" }, "?locale=de");
    const fresh = await get(`/v1/posts/${post.id}?locale=auto`, "de");
    expect(fresh.body.post).toMatchObject({ title: "Hallo neu", locale: "de" });
  });
});

describe("GraphQL", () => {
  it("reads a post with `locale` and `fallback`, with Post.locale and Post.alternates", async () => {
    const api = await workspace();
    const post = await api.post("gql-read");
    await api.update(post.id, api.german("gql-lesen", { status: "published" }), "?locale=de");
    const res = await app.request("POST", "/graphql", {
      key: api.ws.publicKey,
      body: {
        query: `{ post(identifier: "gql-lesen", locale: "de", fallback: "none") { id title locale availableLocales alternates { locale slug } }
                  plain: post(identifier: "gql-read") { title locale } }`,
      },
    });
    expect(res.body).toEqual({
      data: {
        post: {
          id: post.id,
          title: "Hallo gql-lesen",
          locale: "de",
          availableLocales: ["en", "de"],
          alternates: [
            { locale: "en", slug: "gql-read" },
            { locale: "de", slug: "gql-lesen" },
          ],
        },
        // Without `locale`: the default's, in a workspace of several locales.
        plain: { title: "Hello gql-read", locale: "en" },
      },
    });
  });

  it("takes `locale` on updatePost and deletePost, and refuses a locale with translations as the default", async () => {
    const api = await workspace();
    const post = await api.post("graphql");
    const gql = (query: string, variables: Body) =>
      app.request("POST", "/graphql", { key: api.ws.privateKey, body: { query, variables } });
    const updated = await gql(
      `mutation($id: String!, $input: UpdatePostInput!) {
        updatePost(identifier: $id, input: $input, locale: "fr") { id slug title status }
      }`,
      {
        id: post.id,
        input: { title: "Bonjour", slug: "bonjour", description: "Français", content: "<p>Salut</p>" },
      },
    );
    expect(updated.body).toEqual({
      data: { updatePost: { id: post.id, slug: "bonjour", title: "Bonjour", status: "DRAFT" } },
    });

    const makeDefault = await api.call("PATCH", "/v1/locales/{code}", "/v1/locales/fr", { isDefault: true });
    expect(makeDefault.status).toBe(409);
    expect(makeDefault.body.message).toContain("holds translations");

    const removed = await gql(`mutation($id: String!) { deletePost(identifier: $id, locale: "fr") { id } }`, {
      id: post.id,
    });
    expect(removed.body).toEqual({ data: { deletePost: { id: post.id } } });
    // Without translations, it may become the default.
    expect(
      (await api.call("PATCH", "/v1/locales/{code}", "/v1/locales/fr", { isDefault: true })).status,
    ).toBe(200);
  });
});
