// The portable archive with locales and post translations (issue 56, format version 2): an export
// carries the workspace's locales (code, name, default, fallback chain) and every post translation
// (its fields, status and dates); an import into a fresh workspace recreates them, and exporting that
// workspace again gives the same lines but for ids. Version 1 archives (no locales, posts without
// translations) still import, into the target's default locale, and a post with no translation in
// the target's default locale is refused by name. Runs on the test's store (both in CI).
import { createReadStream, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ImportRecord } from "../../src/content/import/import-records.ts";
import { archiveRecords } from "../../src/transfer/archive/archive-records.ts";
import { FORMAT_VERSION } from "../../src/transfer/format.ts";
import { exportToFile, importInto, type TransferContext } from "../../src/transfer/transfer-commands.ts";
import { restFixtures } from "../helpers/rest-fixtures.ts";
import { startTestApp, type TestApp, type TestWorkspace } from "../helpers/test-app.ts";
import { writePortableArchive } from "./helpers/portable-archive.ts";

type Body = Record<string, unknown>;

let app: TestApp;
const folder = mkdtempSync(path.join(tmpdir(), "localized-archive-"));
beforeAll(async () => {
  app = await startTestApp();
}, 60_000);
afterAll(async () => {
  await app?.close();
  rmSync(folder, { recursive: true, force: true });
});

const context = (): TransferContext => ({ db: app.db, config: app.config, storage: app.mediaStorage });
const importArchive = (ws: TestWorkspace, file: string) =>
  importInto(
    context(),
    { ...ws, name: ws.slug },
    { from: "archive", location: file },
    { dryRun: false, webhooks: false },
  );

async function get(ws: TestWorkspace, url: string): Promise<Body> {
  const res = await app.request("GET", url, { key: ws.privateKey });
  expect(res.status, `${url}: ${JSON.stringify(res.body)}`).toBe(200);
  return res.body as Body;
}

async function call(ws: TestWorkspace, method: string, url: string, body: Body): Promise<Body> {
  const res = await app.request(method, url, { key: ws.privateKey, body });
  expect(res.status, `${method} ${url}: ${JSON.stringify(res.body)}`).toBeLessThan(300);
  return res.body as Body;
}

/** Without the keys that differ by nature between workspaces: ids, and when a row was created here. */
const strip = (body: unknown) => JSON.parse(JSON.stringify(body).replace(/"(id|createdAt)":"[^"]*",?/g, ""));

async function recordsOf(file: string): Promise<ImportRecord[]> {
  const records: ImportRecord[] = [];
  for await (const record of archiveRecords(createReadStream(file))) records.push(record);
  return records;
}

/**
 * An archive's locale, field and post lines without ids, without the revisions' snapshots (which hold
 * ids), and without the locales' creation times: the target's own `en` was there before the import.
 */
async function comparableLines(file: string) {
  const records = await recordsOf(file);
  return records
    .filter((record) => record.kind === "locale" || record.kind === "field" || record.kind === "post")
    .map((record) => {
      const { sourceId: _id, ...rest } = record;
      if (rest.kind === "post")
        return { ...rest, revisions: rest.revisions.map(({ snapshot: _snapshot, ...revision }) => revision) };
      if (rest.kind === "locale") delete rest.createdAt;
      return rest;
    });
}

const UNPUBLISH = "2099-01-01T00:00:00.000Z";
const GERMAN_UNPUBLISH = "2098-06-07T08:09:10.000Z";

/** Locales en (default), de → en, fr → de → en; a post in all three, another in en alone. */
async function seedLocalized(ws: TestWorkspace) {
  await call(ws, "PATCH", "/v1/locales/en", { name: "English (site)" });
  await call(ws, "POST", "/v1/locales", { code: "de", name: "Deutsch", fallback: ["en"] });
  await call(ws, "POST", "/v1/locales", { code: "fr", name: "Français", fallback: ["de", "en"] });
  const fixtures = restFixtures(app, ws.privateKey);
  const news = await fixtures.category("news");
  // A localized custom field (a value per translation) and a shared one.
  await call(ws, "POST", "/v1/fields", { key: "subtitle", name: "Subtitle", type: "text", localized: true });
  await call(ws, "POST", "/v1/fields", { key: "rating", name: "Rating", type: "number" });
  const post = await fixtures.post({
    slug: "hello",
    categoryId: news.id,
    publishedAt: "2024-01-02T03:04:05.000Z",
    unpublishAt: UNPUBLISH,
    fields: { subtitle: "Hi", rating: 5 },
  });
  await fixtures.post({ slug: "only-english", categoryId: news.id });
  await call(ws, "PATCH", `/v1/categories/${news.id}?locale=de`, {
    name: "Nachrichten",
    description: "Aktuelles",
  });
  const ada = await fixtures.author("ada", { name: "Ada", bio: "Writes" });
  await call(ws, "PATCH", `/v1/authors/${ada.id}?locale=fr`, { name: "Ada (fr)", bio: "Écrit" });
  await call(ws, "PATCH", `/v1/posts/${post.id}?locale=de`, {
    title: "Hallo",
    slug: "hallo",
    description: "Deutsch",
    content: "<p>Hallo Welt</p>",
    status: "published",
    publishedAt: "2024-02-03T04:05:06.000Z",
    unpublishAt: GERMAN_UNPUBLISH,
    fields: { subtitle: "Hallo!" },
  });
  await call(ws, "PATCH", `/v1/posts/${post.id}?locale=fr`, {
    title: "Bonjour",
    slug: "bonjour",
    description: "Français",
    content: "<p>Bonjour le monde</p>",
    status: "draft",
  });
}

describe("format version 2: locales and post translations", () => {
  let source: TestWorkspace;
  let target: TestWorkspace;
  const first = path.join(folder, "first.tar.gz");
  const second = path.join(folder, "second.tar.gz");

  it("exports the locales (chains after what they name) and each post's translations with their status and dates", async () => {
    source = await app.workspace("Localized source");
    await seedLocalized(source);
    const summary = await exportToFile(context(), { ...source, name: "Localized source" }, first);
    expect(summary.counts).toMatchObject({ locale: 3, post: 2 });
    const records = await recordsOf(first);
    expect(records.filter((record) => record.kind === "locale")).toEqual([
      expect.objectContaining({ code: "en", name: "English (site)", isDefault: true, fallback: [] }),
      expect.objectContaining({ code: "de", name: "Deutsch", isDefault: false, fallback: ["en"] }),
      expect.objectContaining({ code: "fr", name: "Français", isDefault: false, fallback: ["de", "en"] }),
    ]);
    expect(records.filter((record) => record.kind === "field")).toEqual([
      expect.objectContaining({ key: "subtitle", localized: true }),
      expect.objectContaining({ key: "rating", localized: false }),
    ]);
    const hello = records.find((record) => record.kind === "post" && record.slug === "hello");
    // Each revision names the translation it is of (the post's own: the default's code).
    expect(
      hello?.kind === "post" && hello.revisions.map((revision) => [revision.number, revision.locale]),
    ).toEqual([
      [1, "en"],
      [2, "de"],
      [3, "fr"],
    ]);
    expect(hello).toMatchObject({
      locale: "en",
      unpublishAt: UNPUBLISH,
      fields: { subtitle: "Hi", rating: 5 },
      translations: [
        {
          locale: "de",
          slug: "hallo",
          title: "Hallo",
          description: "Deutsch",
          content: "<p>Hallo Welt</p>",
          status: "published",
          publishedAt: "2024-02-03T04:05:06.000Z",
          unpublishAt: GERMAN_UNPUBLISH,
          createdAt: expect.any(String),
          updatedAt: expect.any(String),
          fields: { subtitle: "Hallo!" },
        },
        { locale: "fr", slug: "bonjour", title: "Bonjour", status: "draft", unpublishAt: null, fields: {} },
      ],
    });
    const only = records.find((record) => record.kind === "post" && record.slug === "only-english");
    expect(only).toMatchObject({ locale: "en", unpublishAt: null, translations: [] });
  });

  it("imports into a fresh workspace: the locales and translations are recreated, served as the source serves them", async () => {
    target = await app.workspace("Localized target");
    // A dry run counts what the import then does (locales it would create count as there for the posts).
    const dry = await importInto(
      context(),
      { ...target, name: target.slug },
      { from: "archive", location: first },
      { dryRun: true, webhooks: false },
    );
    expect(((await get(target, "/v1/locales")).locales as Body[]).map((locale) => locale.code)).toEqual([
      "en",
    ]);
    const summary = await importArchive(target, first);
    expect(summary.totals).toEqual(dry.totals);
    expect(summary.failures).toEqual([]);
    expect(summary.conflicts).toEqual([]);
    // The target's own `en` is the archive's: renamed, not created again.
    expect(summary.byKind.locale).toMatchObject({ created: 2, updated: 1 });
    expect(summary.byKind.post).toMatchObject({ created: 2 });
    expect(strip((await get(target, "/v1/locales")).locales)).toEqual(
      strip((await get(source, "/v1/locales")).locales),
    );
    for (const url of [
      "/v1/posts/hello?locale=de",
      "/v1/posts/hallo?locale=de",
      "/v1/posts/bonjour?locale=fr&fallback=none&status=all",
      "/v1/posts/only-english?locale=fr",
      "/v1/posts?locale=fr&status=all",
      "/v1/posts?locale=de",
    ]) {
      expect(strip(await get(target, url)), url).toEqual(strip(await get(source, url)));
    }
    const french = await get(target, "/v1/posts/bonjour?locale=fr&fallback=none&status=all");
    expect(french.post).toMatchObject({ locale: "fr", status: "draft", title: "Bonjour" });
    // The localized field's German value is the translation's, the shared one the post's.
    expect(((await get(target, "/v1/posts/hallo?locale=de")).post as Body).fields).toEqual({
      subtitle: "Hallo!",
      rating: 5,
    });
    // Each translation's revisions are listed under its locale, as in the source.
    const id = (french.post as Body).id as string;
    const sourceId = ((await get(source, "/v1/posts/hello")).post as Body).id as string;
    for (const locale of ["", "?locale=de", "?locale=fr"]) {
      const numbers = async (ws: TestWorkspace, post: string) =>
        ((await get(ws, `/v1/posts/${post}/revisions${locale}`)).revisions as Body[]).map((r) => r.number);
      expect(await numbers(target, id), locale).toEqual(await numbers(source, sourceId));
    }
    // Each translation's write is in the change log with its locale, as an API write's is.
    const events = (await get(target, "/v1/events?limit=100")).events as { type: string; data: Body }[];
    const ofHello = events.filter((event) => event.data.id === (french.post as Body).id);
    expect(ofHello.map((event) => [event.type, event.data.locale ?? null])).toEqual(
      expect.arrayContaining([
        ["post.created", null],
        ["post.updated", "de"],
        ["post.updated", "fr"],
      ]),
    );
  });

  it("round trip: the target's export has the same locale and post lines as the source's, but for ids", async () => {
    await exportToFile(context(), { ...target, name: "Localized target" }, second);
    const lines = await comparableLines(second);
    expect(lines).toEqual(await comparableLines(first));
    expect(lines.filter((line) => line.kind === "locale")).toHaveLength(3);
    // What the import wrote of format version 2's later keys is in it: scheduled unpublishes, each
    // revision's locale, a localized field's values per translation.
    expect(lines.find((line) => line.kind === "post" && line.slug === "hello")).toMatchObject({
      unpublishAt: UNPUBLISH,
      revisions: [{ locale: "en" }, { locale: "de" }, { locale: "fr" }],
      translations: [
        { locale: "de", unpublishAt: GERMAN_UNPUBLISH, fields: { subtitle: "Hallo!" } },
        { locale: "fr", unpublishAt: null, fields: {} },
      ],
    });
    expect(lines.find((line) => line.kind === "field" && line.key === "subtitle")).toMatchObject({
      localized: true,
    });
    expect(
      lines.flatMap((line) => ("translations" in line ? ((line.translations ?? []) as unknown[]) : [])),
    ).toHaveLength(2);
  });

  it("carries category and author names in other locales (format version 2)", async () => {
    const records = await recordsOf(first);
    expect(records.find((record) => record.kind === "category")).toMatchObject({
      slug: "news",
      translations: [{ locale: "de", name: "Nachrichten", description: "Aktuelles" }],
    });
    const category = await get(target, "/v1/categories/news?locale=de");
    expect(category.category).toMatchObject({ name: "Nachrichten", description: "Aktuelles", locale: "de" });
    const author = await get(target, "/v1/authors/ada?locale=fr");
    expect(author.author).toMatchObject({ name: "Ada (fr)", bio: "Écrit", locale: "fr" });
    expect((await get(target, "/v1/authors/ada")).author).toMatchObject({ name: "Ada", bio: "Writes" });
  });

  it("a second import of the same archive changes nothing", async () => {
    const summary = await importArchive(target, first);
    expect(summary.totals).toMatchObject({ created: 0, updated: 0, conflict: 0, failed: 0 });
  });
});

describe("format version 1 archives and posts without a default-locale translation", () => {
  const post = (slug: string, extra: Body = {}) => ({
    id: `src-${slug}`,
    slug,
    title: `Title ${slug}`,
    status: "published",
    featured: false,
    coverImage: null,
    description: "",
    content: `<p>${slug}</p>`,
    attribution: null,
    publishedAt: "2024-01-01T00:00:00.000Z",
    category: "news",
    tags: [],
    authors: [],
    fields: {},
    revisions: [],
    ...extra,
  });
  const category = { id: "cat-news", slug: "news", name: "News", description: null };

  it("imports a version 1 archive as before: its posts are the default locale's, its locales untouched", async () => {
    const ws = await app.workspace("v1 target");
    await call(ws, "POST", "/v1/locales", { code: "de" });
    const file = path.join(folder, "v1.tar.gz");
    await writePortableArchive(file, { category: [category], post: [post("old-post")] }, "v1-source", 1);
    const summary = await importArchive(ws, file);
    expect(summary.totals).toEqual({ created: 2, updated: 0, skipped: 0, conflict: 0, failed: 0 });
    const read = await get(ws, "/v1/posts/old-post?locale=en");
    expect(read.post).toMatchObject({ slug: "old-post", locale: "en", availableLocales: ["en"] });
    expect(((await get(ws, "/v1/locales")).locales as Body[]).map((locale) => locale.code)).toEqual([
      "en",
      "de",
    ]);
    // The post gets a German translation through the API; a changed version 1 archive updates the post
    // and leaves the translation alone (its lines say nothing of translations).
    const id = (read.post as Body).id as string;
    await call(ws, "PATCH", `/v1/posts/${id}?locale=de`, {
      title: "Alt",
      slug: "alt",
      description: "Deutsch",
      content: "<p>alt</p>",
    });
    await writePortableArchive(
      file,
      { category: [category], post: [post("old-post", { title: "Changed" })] },
      "v1-source",
      1,
    );
    const again = await importArchive(ws, file);
    expect(again.totals).toMatchObject({ updated: 1, failed: 0, conflict: 0 });
    expect(((await get(ws, "/v1/posts/old-post")).post as Body).title).toBe("Changed");
    expect((await get(ws, "/v1/posts/alt?locale=de&fallback=none&status=all")).post).toMatchObject({
      id,
      title: "Alt",
    });
  });

  it("takes the translation in the workspace's default locale as the post, and refuses a post without one by name", async () => {
    expect(FORMAT_VERSION).toBe(2);
    const ws = await app.workspace("v2 swap target");
    const file = path.join(folder, "swap.tar.gz");
    const french = {
      locale: "fr",
      slug: "bonjour",
      title: "Bonjour",
      description: "",
      content: "<p>fr</p>",
      status: "published",
      publishedAt: "2024-01-01T00:00:00.000Z",
    };
    await writePortableArchive(
      file,
      {
        locale: [
          { id: "l-fr", code: "fr", name: "French", isDefault: true, fallback: [] },
          { id: "l-en", code: "en", name: "English", isDefault: false, fallback: ["fr"] },
        ],
        category: [category],
        post: [
          post("bonjour", {
            locale: "fr",
            translations: [{ ...french, locale: "en", slug: "hello", title: "Hello" }],
          }),
          post("seulement", { locale: "fr", title: "Seulement" }),
        ],
      },
      "v2-source",
    );
    // The target has a post already: its default (en) is not changed to the archive's (fr).
    await restFixtures(app, ws.privateKey).post({
      slug: "existing",
      categoryId: (await restFixtures(app, ws.privateKey).category("local")).id,
    });
    const summary = await importArchive(ws, file);
    expect(summary.conflicts).toEqual([
      { kind: "locale", name: "fr", reason: expect.stringContaining('its default stays "en"') },
    ]);
    expect(summary.failures).toEqual([
      {
        kind: "post",
        name: "seulement",
        reason: expect.stringContaining('no translation in the workspace\'s default locale "en"'),
      },
    ]);
    const hello = await get(ws, "/v1/posts/bonjour?locale=fr");
    expect(hello.post).toMatchObject({ slug: "bonjour", locale: "fr", title: "Title bonjour" });
    expect(((await get(ws, "/v1/posts/hello")).post as Body).title).toBe("Hello");
    const locales = (await get(ws, "/v1/locales")).locales as Body[];
    expect(locales.map(({ code, isDefault, fallback }) => ({ code, isDefault, fallback }))).toEqual([
      { code: "en", isDefault: true, fallback: ["fr"] },
      { code: "fr", isDefault: false, fallback: [] },
    ]);
  });

  it("a post or translation whose unpublishAt has passed arrives unreleased: public to nobody, no post.published", async () => {
    const ws = await app.workspace("past unpublish target");
    await call(ws, "POST", "/v1/locales", { code: "de", fallback: ["en"] });
    const file = path.join(folder, "past-unpublish.tar.gz");
    const past = "2024-06-01T00:00:00.000Z";
    const german = {
      locale: "de",
      slug: "vorbei",
      title: "Vorbei",
      description: "",
      content: "<p>de</p>",
      status: "published",
      publishedAt: "2024-01-01T00:00:00.000Z",
      unpublishAt: past,
    };
    await writePortableArchive(
      file,
      {
        category: [category],
        post: [
          post("gone", { locale: "en", unpublishAt: past }),
          post("stays", { locale: "en", translations: [german] }),
        ],
      },
      "v2-source",
    );
    const summary = await importArchive(ws, file);
    expect(summary.failures).toEqual([]);
    expect(((await get(ws, "/v1/posts")).posts as Body[]).map((listed) => listed.slug)).toEqual(["stays"]);
    const publicKey = { key: ws.publicKey };
    expect((await app.request("GET", "/v1/posts/gone", publicKey)).status).toBe(404);
    const stays = await app.request("GET", "/v1/posts/stays?locale=de", publicKey);
    expect((stays.body as { post: Body }).post).toMatchObject({
      locale: "en",
      alternates: [{ locale: "en" }],
    });
    // Neither was ever public here: the change log records no publication of either.
    const events = (await get(ws, "/v1/events?limit=100")).events as { type: string; data: Body }[];
    expect(events.filter((event) => event.type === "post.published").map((event) => event.data.slug)).toEqual(
      ["stays"],
    );
    expect(events.filter((event) => event.type === "post.published" && event.data.locale === "de")).toEqual(
      [],
    );
  });
});
