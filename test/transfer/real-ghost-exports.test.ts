// Real Ghost exports (fixtures/real/README.md: 0.x format 003 and 0.11 LTS with integer ids and the
// `data` shape, 1.20, 2.9, 3.0 and 4.1 with `db[0].data`) imported with --from ghost and read back through the
// API, against the file as JSON.parse reads it: every post with its status, title, slug, date to the
// second in UTC, authors (posts_authors, else the post's author_id), tags and body; pages counted as
// left out. The process runs in Tokyo's time zone: Ghost's dates are UTC whatever the host's zone, and
// older exports write them without one ("2014-01-01 12:00:00").
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { importInto } from "../../src/transfer/transfer-commands.ts";
import { startTestApp, type TestApp } from "../helpers/test-app.ts";
import { inTimeZone } from "../helpers/time-zone.ts";
import { makeImage } from "../media/helpers/make-files.ts";
import {
  type ApiPost,
  bodyShape,
  ghost29WithImagesAt,
  type ImportedCorpus,
  importReal,
  REAL,
  utc,
} from "./helpers/real-corpus.ts";
import { type TestHost, testHost } from "./helpers/remote-hosts.ts";

inTimeZone("Asia/Tokyo");

const FILES = [
  "ghost/export-003.json",
  "ghost/export-lts-legacy-fields.json",
  "ghost/valid-1.20.json",
  "ghost/default-export-2.9.json",
  "ghost/v3-export-3.0.json",
  "ghost/v4-export-4.1.json",
];

type Row = Record<string, unknown>;
interface GhostData {
  posts: Row[];
  tags: Row[];
  users: Row[];
  posts_tags?: Row[];
  posts_authors?: Row[];
}

/** The export's data, wherever its version puts it: `db[0].data` (1.0 on), `data` (0.x). */
function readExport(file: string): GhostData {
  const document = JSON.parse(readFileSync(path.join(REAL, file), "utf8"));
  return (document.db?.[0] ?? document).data;
}

/** A Ghost date as an instant: epoch milliseconds (0.x), or a string, UTC when it names no zone. */
function instant(value: unknown): string {
  if (typeof value === "number") return new Date(value).toISOString();
  const text = String(value);
  return /(Z|[+-]\d\d:?\d\d)$/.test(text) ? new Date(text).toISOString() : utc(text);
}

const isPage = (post: Row) => post.type === "page" || post.page === 1 || post.page === true;
const byOrder = (a: Row, b: Row) => Number(a.sort_order ?? 0) - Number(b.sort_order ?? 0);

describe.each(FILES)("import --from ghost of the real export %s", (file) => {
  let app: TestApp;
  let data: GhostData;
  let imported: ImportedCorpus;
  let posts: ApiPost[];
  beforeAll(async () => {
    app = await startTestApp();
    data = readExport(file);
    imported = await importReal(app, "ghost", file);
    posts = await imported.posts();
  }, 120_000);
  afterAll(async () => app?.close());

  const sourcePosts = () => data.posts.filter((post) => !isPage(post));
  const arrived = (post: Row) => posts.find((candidate) => candidate.slug === post.slug);

  it("imports every post, none failed or in conflict, and counts pages as left out", () => {
    expect(new Date(2024, 0, 1).getTimezoneOffset()).toBe(-540);
    expect(imported.summary.failures).toEqual([]);
    expect(imported.summary.conflicts).toEqual([]);
    expect(posts).toHaveLength(sourcePosts().length);
    const statuses = (values: string[]) => values.sort().join(",");
    expect(statuses(posts.map((post) => post.status))).toBe(
      statuses(
        sourcePosts().map((post) =>
          post.status === "published" || post.status === "scheduled" ? "published" : "draft",
        ),
      ),
    );
    const pages = data.posts.filter(isPage).length;
    expect(imported.summary.leftOut["Ghost pages"] ?? 0).toBe(pages);
  });

  it("--dry-run reports what the import then does", () => {
    expect(imported.dryRun.byKind).toEqual(imported.summary.byKind);
    expect(imported.dryRun.leftOut).toEqual(imported.summary.leftOut);
    expect(imported.dryRun.failures).toEqual(imported.summary.failures);
  });

  it("keeps each post's title, slug and date in UTC to the second", () => {
    for (const post of sourcePosts()) {
      const found = arrived(post);
      expect(found, `post ${post.slug}`).toBeDefined();
      expect(found?.title).toBe(post.title);
      expect(found?.publishedAt).toBe(instant(post.published_at ?? post.created_at));
    }
  });

  it("gives each post its authors and tags in their order", () => {
    const users = new Map(data.users.map((user) => [String(user.id), String(user.name)]));
    const tags = new Map(data.tags.map((tag) => [String(tag.id), tag]));
    for (const post of sourcePosts()) {
      const links = (data.posts_authors ?? []).filter((link) => link.post_id === post.id).sort(byOrder);
      const authorIds = links.length > 0 ? links.map((link) => link.author_id) : [post.author_id];
      expect(arrived(post)?.authors.map((author) => author.name)).toEqual(
        authorIds.map((id) => users.get(String(id))),
      );
      const tagSlugs = (data.posts_tags ?? [])
        .filter((link) => link.post_id === post.id)
        .sort(byOrder)
        .map((link) => tags.get(String(link.tag_id)))
        .filter((tag) => tag && !String(tag.name).startsWith("#"))
        .map((tag) => tag?.slug);
      expect(arrived(post)?.tags.map((tag) => tag.slug)).toEqual(tagSlugs);
      expect(arrived(post)?.category.slug).toBe("uncategorized");
    }
  });

  it("keeps each body's paragraphs, links, images, headings and code blocks", () => {
    for (const post of sourcePosts())
      expect(bodyShape(arrived(post)?.content ?? ""), `post ${post.slug}`).toEqual(
        bodyShape(String(post.html ?? "")),
      );
  });
});

// Ghost's older exports (MySQL's DATETIME) write dates as "2013-12-29 11:58:30", in UTC with no zone.
// The real 0.x export above, its epoch-millisecond dates written that way, reads as the same instants.
describe("import --from ghost of an export whose dates name no zone", () => {
  const folder = mkdtempSync(path.join(tmpdir(), "ghost-dates-"));
  let app: TestApp;
  afterAll(async () => {
    await app?.close();
    rmSync(folder, { recursive: true, force: true });
  });
  beforeAll(async () => {
    app = await startTestApp();
  }, 60_000);

  it("reads them as UTC, not as the host's local time", async () => {
    const document = JSON.parse(readFileSync(path.join(REAL, "ghost/export-003.json"), "utf8"));
    const zoneless = (ms: number) => new Date(ms).toISOString().slice(0, 19).replace("T", " ");
    const [post] = document.data.posts;
    const published = zoneless(post.published_at);
    post.published_at = published;
    post.created_at = zoneless(post.created_at);
    post.updated_at = zoneless(post.updated_at);
    const file = path.join(folder, "export-003-mysql-dates.json");
    writeFileSync(file, JSON.stringify(document));
    const ws = await app.workspace("zoneless");
    const summary = await importInto(
      { db: app.db, config: app.config, storage: app.mediaStorage },
      { ...ws, name: "zoneless" },
      { from: "ghost", location: file },
      { dryRun: false, webhooks: false, remoteMedia: false },
    );
    expect(summary.failures).toEqual([]);
    const res = await app.request("GET", `/v1/posts/${post.slug}`, { key: ws.privateKey });
    expect(res.body.post.publishedAt).toBe(utc(published));
  });
});

// Issue 54, item 13: profile images were never rewritten to the imported media (authors were written
// before media). The real 2.9 export, its image hosts pointed at this test's server on 127.0.0.1.
describe("import --from ghost of the real 2.9 export, fetching its images", () => {
  const folder = mkdtempSync(path.join(tmpdir(), "ghost-images-"));
  let app: TestApp;
  let host: TestHost;
  let base: string;
  beforeAll(async () => {
    const image = await makeImage("png");
    host = await testHost((_req, res) => res.writeHead(200, { "content-type": "image/png" }).end(image));
    base = host.url("");
    app = await startTestApp({ env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: "true" } });
  }, 60_000);
  afterAll(async () => {
    await app?.close();
    await host?.close();
    rmSync(folder, { recursive: true, force: true });
  });

  it("points covers and author images at the imported files", async () => {
    const file = ghost29WithImagesAt(base, folder);
    const ws = await app.workspace("images");
    const summary = await importInto(
      { db: app.db, config: app.config, storage: app.mediaStorage },
      { ...ws, name: "images" },
      { from: "ghost", location: file },
      { dryRun: false, webhooks: false },
    );
    expect(summary.failures).toEqual([]);
    const data = readExport("ghost/default-export-2.9.json");
    const images = new Set(
      [
        ...data.posts.map((post) => post.feature_image),
        ...data.users.map((user) => user.profile_image),
      ].filter((url) => typeof url === "string" && url.startsWith("https://")),
    );
    // The test host answers the same bytes at every URL: one file, the other records name it.
    expect(summary.byKind.media).toMatchObject({ created: 1, skipped: images.size - 1 });
    const ownMedia = new RegExp(`/${ws.id}/[0-9a-f]{32}\\.png$`);
    const authors = (await app.request("GET", "/v1/authors", { key: ws.privateKey })).body.authors as {
      image: string | null;
    }[];
    expect(authors.map((author) => author.image)).toEqual(authors.map(() => expect.stringMatching(ownMedia)));
    const post = (await app.request("GET", "/v1/posts/welcome", { key: ws.privateKey })).body.post;
    expect(post.coverImage).toMatch(ownMedia);
  });
});
