// Hugo's multilingual trees through the markdown importer (issue 56): language folders
// (`content/<lang>/…`), language suffixes (`post.<lang>.md`), front matter `lang` / `locale`, and
// `translationKey` linking files of different names. The translations of one post become one post:
// the file in the workspace's default locale (or without a language) is the post, the others its
// translations; a language the workspace lacks becomes a locale of it. Fixtures written here.
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { scratchImport } from "./helpers/scratch-import.ts";

type Body = Record<string, unknown>;

const page = (front: Record<string, unknown>, body: string) =>
  `---\n${Object.entries(front)
    .map(([key, value]) => `${key}: ${JSON.stringify(value)}`)
    .join("\n")}\n---\n${body}\n`;

describe("import --from markdown: Hugo's multilingual layouts", () => {
  const scratch = scratchImport("hugo-languages");

  function tree(name: string, files: Record<string, string>): string {
    const root = path.join(scratch.folder, name);
    for (const [relative, text] of Object.entries(files)) {
      const file = path.join(root, relative);
      mkdirSync(path.dirname(file), { recursive: true });
      writeFileSync(file, text);
    }
    return root;
  }

  async function get(key: string, url: string): Promise<Body> {
    const res = await scratch.app.request("GET", url, { key });
    expect(res.status, `${url}: ${JSON.stringify(res.body)}`).toBe(200);
    return res.body as Body;
  }

  it("language folders: content/<lang>/… files of one path are one post; missing locales are created", async () => {
    const ws = await scratch.app.workspace("Hugo folders");
    const location = tree("folders", {
      "content/en/posts/hello.md": page(
        { title: "Hello", date: "2024-03-01T10:00:00Z", tags: ["travel"] },
        "Hello **world**",
      ),
      "content/fr/posts/hello.md": page(
        { title: "Bonjour", date: "2024-03-02T10:00:00Z", slug: "bonjour", tags: ["voyage"] },
        "Bonjour le monde",
      ),
      "content/de/posts/hello.md": page(
        { title: "Hallo", date: "2024-03-03T10:00:00Z", draft: true },
        "Hallo",
      ),
      "content/en/posts/english-only.md": page(
        { title: "English only", date: "2024-03-04T10:00:00Z" },
        "Just English",
      ),
      "content/en/_index.md": page({ title: "Home" }, "Section"),
    });
    const summary = await scratch.run(ws, { from: "markdown", location });
    expect(summary.failures).toEqual([]);
    expect(summary.conflicts).toEqual([]);
    expect(summary.byKind.locale).toEqual({ created: 2, updated: 0, skipped: 1, conflict: 0, failed: 0 });
    expect(summary.byKind.post).toMatchObject({ created: 2 });
    const locales = (await get(ws.privateKey, "/v1/locales")).locales as Body[];
    expect(locales.map(({ code, isDefault }) => ({ code, isDefault }))).toEqual([
      { code: "en", isDefault: true },
      { code: "de", isDefault: false },
      { code: "fr", isDefault: false },
    ]);
    const english = (await get(ws.privateKey, "/v1/posts/hello")).post as Body;
    expect(english).toMatchObject({ title: "Hello", publishedAt: "2024-03-01T10:00:00.000Z" });
    // The post's shared fields are the default-language file's: its tags.
    expect((english.tags as Body[]).map((tag) => tag.slug)).toEqual(["travel"]);
    const french = (await get(ws.privateKey, "/v1/posts/bonjour?locale=fr&fallback=none")).post as Body;
    expect(french).toMatchObject({
      id: english.id,
      locale: "fr",
      title: "Bonjour",
      status: "published",
      publishedAt: "2024-03-02T10:00:00.000Z",
    });
    expect(french.content).toContain("Bonjour le monde");
    const german = (await get(ws.privateKey, "/v1/posts/hello?locale=de&fallback=none&status=all"))
      .post as Body;
    expect(german).toMatchObject({ id: english.id, locale: "de", title: "Hallo", status: "draft" });
    const only = (await get(ws.privateKey, "/v1/posts/english-only?locale=fr&fallback=en")).post as Body;
    expect(only).toMatchObject({ locale: "en", availableLocales: ["en"] });
    // A second run changes nothing.
    const again = await scratch.run(ws, { from: "markdown", location });
    expect(again.totals).toMatchObject({ created: 0, updated: 0, conflict: 0, failed: 0 });
  });

  it("language suffixes and translationKey: post.md + post.fr.md, index.de.md in a bundle, differently named files linked by key", async () => {
    const ws = await scratch.app.workspace("Hugo suffixes");
    const location = tree("suffixes", {
      // No language: the workspace's default locale, with its French translation beside it.
      "posts/trip.md": page({ title: "The trip", date: "2024-05-01" }, "We went."),
      "posts/trip.fr.md": page({ title: "Le voyage", date: "2024-05-02" }, "Nous sommes allés."),
      "posts/bundle/index.md": page({ title: "Bundle", date: "2024-05-03" }, "A bundle"),
      "posts/bundle/index.de.md": page({ title: "Bündel", date: "2024-05-03" }, "Ein Bündel"),
      // Linked by translationKey, not by name; languages from the front matter (`lang`, `locale`).
      "posts/apple.md": page(
        { title: "Apple", date: "2024-05-04", lang: "en", translationKey: "fruit" },
        "Apple",
      ),
      "posts/pomme.md": page(
        { title: "Pomme", date: "2024-05-04", locale: "fr", translationKey: "fruit" },
        "Pomme",
      ),
      // A file without a language in a multilingual tree: a post of the default locale alone.
      "posts/solo.md": page({ title: "Solo", date: "2024-05-05" }, "Alone"),
      // Only in French: no default-locale version to be the post.
      "posts/seulement.fr.md": page({ title: "Seulement", date: "2024-05-06" }, "Que le français"),
      "posts/bad.md": page({ title: "Bad", date: "2024-05-07", lang: "not a language!" }, "Bad"),
    });
    const summary = await scratch.run(ws, { from: "markdown", location });
    expect(summary.byKind.locale).toMatchObject({ created: 2, skipped: 1 });
    expect(summary.byKind.post).toMatchObject({ created: 4, failed: 2 });
    expect(summary.failures).toEqual([
      {
        kind: "post",
        name: "posts/bad.md",
        reason: expect.stringContaining("its front matter's lang"),
      },
      {
        kind: "post",
        name: "seulement",
        reason: expect.stringContaining('no translation in the workspace\'s default locale "en"'),
      },
    ]);
    const trip = (await get(ws.privateKey, "/v1/posts/trip?locale=fr&fallback=none")).post as Body;
    expect(trip).toMatchObject({ locale: "fr", title: "Le voyage", slug: "trip" });
    expect((await get(ws.privateKey, "/v1/posts/trip")).post).toMatchObject({ title: "The trip" });
    const bundle = (await get(ws.privateKey, "/v1/posts/bundle?locale=de&fallback=none")).post as Body;
    expect(bundle).toMatchObject({ locale: "de", title: "Bündel", slug: "bundle" });
    const apple = (await get(ws.privateKey, "/v1/posts/apple")).post as Body;
    const pomme = (await get(ws.privateKey, "/v1/posts/pomme?locale=fr&fallback=none")).post as Body;
    expect(pomme).toMatchObject({ id: apple.id, locale: "fr", title: "Pomme" });
    expect((await get(ws.privateKey, "/v1/posts/solo?locale=fr&fallback=en")).post).toMatchObject({
      locale: "en",
      availableLocales: ["en"],
    });
    const all = (await get(ws.privateKey, "/v1/posts?status=all&limit=100")).posts as Body[];
    expect(all.map((post) => post.slug).sort()).toEqual(["apple", "bundle", "solo", "trip"]);
  });
});
