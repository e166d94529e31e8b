// A post list in a locale reads the workspace's locales in its own statement (issue 56): an instance
// plans the list on the locales it last saw, and the statement tells whether they were still the
// workspace's. Changed in between — by another instance, the CLI, anyone writing the database — the
// list is read again on the locales as they are now, so a new fallback chain, a new locale or a
// removed one is answered at once; unchanged, the list costs as many statements as the list without a
// locale, whatever its chain (its page's rows; the plain list's page reads its posts' translations for
// their alternates, this workspace having several locales). Here the locales change in the database
// behind the app's back, as another instance would change them.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { restFixtures } from "../helpers/rest-fixtures.ts";
import { startTestApp, type TestApp } from "../helpers/test-app.ts";

type Body = Record<string, unknown>;

let app: TestApp;
let statements = 0;
beforeAll(async () => {
  app = await startTestApp({ env: { CACHE: "off" }, onQuery: () => statements++ });
});
afterAll(async () => app?.close());

describe("a list in a locale, when the locales change elsewhere", () => {
  it("answers on the locales as they are now, in as many statements as a list without one (which reads the alternates)", async () => {
    const ws = await app.workspace();
    const fixtures = restFixtures(app, ws.privateKey);
    for (const code of ["de", "fr"])
      expect((await app.request("POST", "/v1/locales", { key: ws.privateKey, body: { code } })).status).toBe(
        201,
      );
    const category = await fixtures.category("news");
    const created = await app.request("POST", "/v1/posts", {
      key: ws.privateKey,
      body: {
        title: "Hello",
        slug: "hello",
        description: "English",
        content: "<p>Hello</p>",
        categoryId: category.id,
        status: "published",
      },
    });
    expect(created.status).toBe(201);
    const id = (created.body.post as Body).id as string;
    const french = await app.request("PATCH", `/v1/posts/${id}?locale=fr`, {
      key: ws.privateKey,
      body: {
        title: "Bonjour",
        slug: "bonjour",
        description: "fr",
        content: "<p>Salut</p>",
        status: "published",
      },
    });
    expect(french.status).toBe(200);

    const list = async (query: string) => {
      const before = statements;
      const res = await app.request("GET", `/v1/posts?${query}`, { key: ws.publicKey });
      return { res, statements: statements - before };
    };
    const served = (res: { body: Body }) =>
      (res.body.posts as Body[]).map((post) => `${post.slug}:${post.locale ?? "-"}`);

    // German has no translation and, so far, no fallback: nothing to list.
    const german = await list("locale=de");
    expect(german.res.status).toBe(200);
    expect(served(german.res)).toEqual([]);
    expect((german.res.body.pagination as Body).totalItems).toBe(0);

    // Once this instance has seen the locales: as many statements as the plain list's, which in this
    // workspace of several locales reads its posts' translations too (for their alternates).
    const plain = await list("limit=10");
    expect(plain.res.status).toBe(200);
    expect(served(plain.res)).toEqual(["hello:en"]);
    const localized = await list("locale=fr&fallback=de,en&limit=10");
    expect(served(localized.res)).toEqual(["bonjour:fr"]);
    expect(localized.statements).toBe(plain.statements);

    // German falls back on French now, set where this instance does not see it: the next list knows.
    await app.db.sql.exec(
      `UPDATE "Locale" SET fallback = ARRAY['fr'] WHERE "workspaceId" = '${ws.id}' AND code = 'de'`,
    );
    const fellBack = await list("locale=de");
    expect(served(fellBack.res)).toEqual(["bonjour:fr"]);
    expect((fellBack.res.body.pagination as Body).totalItems).toBe(1);

    // A locale added elsewhere is a locale at once; one removed elsewhere is a 400 naming `locale`.
    await app.db.sql.exec(`INSERT INTO "Locale" (id, "workspaceId", code, name, "updatedAt")
      VALUES ('it-${ws.id}', '${ws.id}', 'it', 'Italian', now())`);
    const italian = await list("locale=it&fallback=en");
    expect(italian.res.status).toBe(200);
    expect(served(italian.res)).toEqual(["hello:en"]);
    await app.db.sql.exec(`DELETE FROM "Locale" WHERE "workspaceId" = '${ws.id}' AND code = 'it'`);
    const removed = await list("locale=it&fallback=en");
    expect(removed.res.status).toBe(400);
    expect(JSON.stringify(removed.res.body)).toContain("locale");
  });
});
