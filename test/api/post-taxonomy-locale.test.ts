// A post read in a locale shows its category's, tags' and authors' names and descriptions (bios) in that
// locale too (issue 56): those of the first locale of the post's chain that has them, each record's own
// (the default locale's) last. REST lists and single reads, GraphQL's `posts(locale:)` and
// `post(locale:)`, whose `locale` and `fallback` the nested fields inherit and may override. A cached
// answer in a locale is replaced when a tag's German name changes; without `locale` every answer stays
// as it was. Over HTTP only (GraphQL too, POST /graphql), so it also runs against the built server.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectMatchesOpenApi } from "../helpers/openapi-check.ts";
import { restFixtures } from "../helpers/rest-fixtures.ts";
import { startTestApp, type TestApp } from "../helpers/test-app.ts";

type Body = Record<string, unknown>;

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => app?.close());

/**
 * Locales en (default), de (falls back to en) and fr (no fallback); a post `hello` with a German
 * translation, filed under `news`, tagged `alpha` and `beta`, by `ada` and `bob`; German names for
 * `news`, `alpha` (which sorts after `beta` in German) and `ada`, none for `beta` and `bob`.
 */
async function workspace() {
  const ws = await app.workspace();
  const fixtures = restFixtures(app, ws.privateKey);
  const send = async (method: string, path: string, body?: unknown, key = ws.privateKey) =>
    app.request(method, path, { key, body });
  for (const [code, fallback] of [
    ["de", ["en"]],
    ["fr", []],
  ] as const)
    expect((await send("POST", "/v1/locales", { code, fallback })).status).toBe(201);
  const news = await fixtures.category("news", { description: "All the news" });
  const alpha = await fixtures.tag("alpha", { description: "First" });
  const beta = await fixtures.tag("beta", { description: "Second" });
  const ada = await fixtures.author("ada", { name: "Ada", bio: "Writes code" });
  const bob = await fixtures.author("bob", { name: "Bob", bio: "Draws" });
  const post = await fixtures.post({
    slug: "hello",
    categoryId: news.id,
    tags: [alpha.id, beta.id],
    authors: [ada.id, bob.id],
  });
  const german = await send("PATCH", `/v1/posts/${post.id}?locale=de`, {
    title: "Hallo",
    slug: "hallo",
    description: "Deutsch",
    content: "<p>Hallo</p>",
    status: "published",
  });
  expect(german.status, JSON.stringify(german.body)).toBe(200);
  const get = async (path: string, template: string, key = ws.publicKey) => {
    const res = await send("GET", path, undefined, key);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expectMatchesOpenApi(res, "get", template);
    return res;
  };
  return {
    ws,
    ids: { news: news.id, alpha: alpha.id, beta: beta.id, ada: ada.id, bob: bob.id, post: post.id },
    send,
    list: (query: string, key = ws.publicKey) => get(`/v1/posts${query}`, "/v1/posts", key),
    one: (identifier: string, query: string, key = ws.publicKey) =>
      get(`/v1/posts/${identifier}${query}`, "/v1/posts/{identifier}", key),
    translate: async (many: string, id: string, body: Body) => {
      const res = await send("PATCH", `/v1/${many}/${id}?locale=de`, body);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
    },
    graphql: async (query: string, key = ws.publicKey) => {
      const res = await app.request("POST", "/graphql", { key, body: { query } });
      const body = res.body as { data?: Body; errors?: unknown[] };
      expect(body.errors, JSON.stringify(body.errors)).toBeUndefined();
      return body.data as Body;
    },
  };
}

/** What a post shows of its category, tags and authors. */
function names(post: Body) {
  const category = post.category as Body;
  return {
    category: [category.name, category.description],
    tags: (post.tags as Body[]).map((tag) => [tag.name, tag.description]),
    authors: (post.authors as Body[]).map((author) => [author.name, author.bio]),
  };
}

const ENGLISH = {
  category: ["News", "All the news"],
  tags: [
    ["Alpha", "First"],
    ["Beta", "Second"],
  ],
  authors: [
    ["Ada", "Writes code"],
    ["Bob", "Draws"],
  ],
};
// German where translated (Alpha's German name sorts it after Beta; its German description left out
// is null there, not the English one), English where not.
const GERMAN = {
  category: ["Nachrichten", "Alle Nachrichten"],
  tags: [
    ["Beta", "Second"],
    ["Zeta", null],
  ],
  authors: [
    ["Ada L.", "Schreibt Code"],
    ["Bob", "Draws"],
  ],
};

async function translated() {
  const api = await workspace();
  const plainList = await api.list("");
  const plainOne = await api.one("hello", "");
  const plainGraphql = await api.graphql(
    `{ posts { items { category { name } tags { name } authors { name bio } } } }`,
  );
  await api.translate("categories", api.ids.news, { name: "Nachrichten", description: "Alle Nachrichten" });
  await api.translate("tags", api.ids.alpha, { name: "Zeta" });
  await api.translate("authors", api.ids.ada, { name: "Ada L.", bio: "Schreibt Code" });
  return { api, plainList, plainOne, plainGraphql };
}

describe("a post's category, tags and authors in the post's locale", () => {
  it("REST: a list and a single read in German show the German names, falling back where there are none", async () => {
    const { api, plainList, plainOne, plainGraphql } = await translated();

    const list = await api.list("?locale=de");
    const [listed] = list.body.posts as Body[];
    expect(listed).toMatchObject({ slug: "hallo", locale: "de" });
    expect(names(listed as Body)).toEqual(GERMAN);
    const one = await api.one("hallo", "?locale=de");
    expect(names(one.body.post as Body)).toEqual(GERMAN);
    // Served in German from French: the nested names follow the same chain.
    const french = await api.one("hello", "?locale=fr&fallback=de,en");
    expect((french.body.post as Body).locale).toBe("de");
    expect(names(french.body.post as Body)).toEqual(GERMAN);
    // French with English as its fallback: English names; the post's chain without the default, and
    // no French name anywhere: the records' own names last.
    expect(names((await api.one("hello", "?locale=fr&fallback=en")).body.post as Body)).toEqual(ENGLISH);
    expect(names((await api.one("hallo", "?locale=de&fallback=none")).body.post as Body)).toEqual(GERMAN);
    const search = await api.list("?locale=de&query=hallo");
    expect(names((search.body.posts as Body[])[0] as Body)).toEqual(GERMAN);

    // Without a locale: byte for byte the answers before any name was translated.
    expect(JSON.stringify((await api.list("")).body)).toBe(JSON.stringify(plainList.body));
    expect(JSON.stringify((await api.one("hello", "")).body)).toBe(JSON.stringify(plainOne.body));
    expect(
      JSON.stringify(
        await api.graphql(`{ posts { items { category { name } tags { name } authors { name bio } } } }`),
      ),
    ).toBe(JSON.stringify(plainGraphql));
  });

  it("GraphQL: nested records inherit the post's locale and fallback, and a field may override them", async () => {
    const { api } = await translated();
    const selection = `category { name description locale } tags { name description locale } authors { name bio locale }`;
    const data = await api.graphql(`{
      posts(locale: "de") { items { ${selection} } }
      post(identifier: "hallo", locale: "fr", fallback: "de") { locale ${selection} }
      plain: post(identifier: "hello") { category { name locale } }
    }`);
    const listed = ((data.posts as Body).items as Body[])[0] as Body;
    expect(names(listed)).toEqual(GERMAN);
    expect((listed.category as Body).locale).toBe("de");
    expect((listed.tags as Body[]).map((tag) => tag.locale)).toEqual(["en", "de"]);
    expect(names(data.post as Body)).toEqual(GERMAN);
    expect(data.plain).toEqual({ category: { name: "News", locale: null } });

    // A plan the read model does not cover (a count under the tags): the same names.
    const counted = await api.graphql(`{
      posts(locale: "de") { items { category { name } tags { name count { posts } } authors { name bio } } }
      post(identifier: "hallo", locale: "de") { tags { name count { posts } } }
      postsConnection(locale: "de") { edges { node { category { name } authors { name } } } }
    }`);
    expect((counted.postsConnection as Body).edges).toEqual([
      { node: { category: { name: "Nachrichten" }, authors: [{ name: "Ada L." }, { name: "Bob" }] } },
    ]);
    const countedPost = ((counted.posts as Body).items as Body[])[0] as Body;
    expect((countedPost.category as Body).name).toBe("Nachrichten");
    expect(countedPost.tags).toEqual([
      { name: "Beta", count: { posts: 1 } },
      { name: "Zeta", count: { posts: 1 } },
    ]);
    expect((countedPost.authors as Body[]).map((author) => author.name)).toEqual(["Ada L.", "Bob"]);
    expect(((counted.post as Body).tags as Body[]).map((tag) => tag.name)).toEqual(["Beta", "Zeta"]);

    // Overrides: English names under a German post, German ones under a post read without a locale.
    const overridden = await api.graphql(`{
      posts(locale: "de") { items { title category(locale: "en") { name locale } tags(fallback: "none") { name } } }
      post(identifier: "hello") { title category(locale: "de") { name locale } authors(locale: "fr", fallback: "de") { name } }
    }`);
    const german = ((overridden.posts as Body).items as Body[])[0] as Body;
    expect(german).toEqual({
      title: "Hallo",
      category: { name: "News", locale: "en" },
      tags: [{ name: "Beta" }, { name: "Zeta" }],
    });
    expect(overridden.post).toEqual({
      title: "Hello",
      category: { name: "Nachrichten", locale: "de" },
      authors: [{ name: "Ada L." }, { name: "Bob" }],
    });
  });

  it("a cached German list is replaced when a tag's German name changes", async () => {
    const { api } = await translated();
    const first = await api.list("?locale=de");
    expect(names((first.body.posts as Body[])[0] as Body).tags).toEqual(GERMAN.tags);
    const again = await api.list("?locale=de");
    expect(again.headers.get("x-cache")).toBe("HIT");
    const query = `{ posts(locale: "de") { items { tags { name } } } }`;
    await api.graphql(query);
    await api.translate("tags", api.ids.alpha, { name: "Alfa" });
    const after = await api.list("?locale=de");
    expect(after.headers.get("x-cache")).toBe("MISS");
    expect(names((after.body.posts as Body[])[0] as Body).tags).toEqual([
      ["Alfa", null],
      ["Beta", "Second"],
    ]);
    const single = await api.one("hallo", "?locale=de");
    expect(names(single.body.post as Body).tags).toEqual([
      ["Alfa", null],
      ["Beta", "Second"],
    ]);
    const graphql = await api.graphql(query);
    expect(((graphql.posts as Body).items as Body[])[0]).toEqual({
      tags: [{ name: "Alfa" }, { name: "Beta" }],
    });
  });
});
