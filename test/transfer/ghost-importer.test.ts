// The Ghost importer (--from ghost): a Ghost JSON export's posts, tags, users, their order
// (posts_tags, posts_authors), feature images, statuses and dates, read back through the API.
import { readFileSync, writeFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ImporterFixture, importerFixture } from "./helpers/importer-fixture.ts";

describe("import --from ghost", () => {
  let fx: ImporterFixture;
  beforeAll(async () => {
    fx = await importerFixture("ghost", "ghost-export.json");
  }, 60_000);
  afterAll(async () => fx?.close());

  it("--dry-run reports what would be created and writes nothing", async () => {
    const summary = await fx.run({ dryRun: true });
    expect(summary.dryRun).toBe(true);
    expect(summary.byKind.post?.created).toBe(3);
    expect(summary.byKind.tag?.created).toBe(2);
    expect(summary.byKind.author?.created).toBe(2);
    expect((await fx.get("/v1/posts?status=all")).posts).toEqual([]);
  });

  it("imports posts with their HTML, tags and authors in Ghost's order, status, dates and feature image", async () => {
    const summary = await fx.run();
    expect(summary.totals).toMatchObject({ conflict: 0, failed: 0 });
    expect(summary.mediaBytes).toBeGreaterThan(0);
    const { post } = await fx.get("/v1/posts/welcome-to-the-garden");
    expect(post).toMatchObject({
      title: "Welcome to the garden",
      status: "published",
      featured: true,
      description: "Why we started writing.",
      publishedAt: "2024-01-06T08:00:00.000Z",
      category: { slug: "uncategorized" },
    });
    expect(post.tags.map((tag: { slug: string }) => tag.slug).sort()).toEqual(["events", "gardening"]);
    expect(post.authors.map((author: { slug: string }) => author.slug)).toEqual(["tom", "rosa"]);
    // The feature image and the body's image now point at this service's copy.
    expect(post.coverImage).toMatch(new RegExp(`/${fx.ws.id}/[0-9a-f]{32}\\.png$`));
    expect(post.content).toContain(post.coverImage);
    expect(post.content).not.toContain(fx.mediaBase);
    const draft = (await fx.get("/v1/posts/seeds-for-spring?status=all")).post;
    expect(draft.status).toBe("draft");
    const scheduled = (await fx.get("/v1/posts/harvest-festival?status=all")).post;
    expect(scheduled).toMatchObject({
      status: "published",
      scheduled: true,
      publishedAt: "2099-09-20T10:00:00.000Z",
    });
    // Pages and internal (#) tags are not carried over.
    const all = (await fx.get("/v1/posts?status=all")).posts.map((p: { slug: string }) => p.slug);
    expect(all).not.toContain("about");
    expect((await fx.get("/v1/tags")).tags.map((tag: { slug: string }) => tag.slug).sort()).toEqual([
      "events",
      "gardening",
    ]);
    const rosa = (await fx.get("/v1/authors/rosa")).author;
    expect(rosa).toMatchObject({
      name: "Rosa Parks",
      bio: "Gardener",
      socials: [{ platform: "website", url: "https://garden.test" }],
    });
  });

  it("a second run of the same import changes nothing", async () => {
    const before = await fx.get("/v1/posts?status=all");
    const summary = await fx.run();
    expect(summary.totals.created + summary.totals.updated).toBe(0);
    expect(summary.totals.skipped).toBeGreaterThan(0);
    expect(await fx.get("/v1/posts?status=all")).toEqual(before);
  });
});

// Issue 60, item 12: a Ghost file with values of the wrong type answered a raw TypeError or RangeError
// and imported nothing. Each such record is now a failed record with its reason; the rest imports.
describe("import --from ghost: records of the wrong shape", () => {
  let fx: ImporterFixture;
  beforeAll(async () => {
    fx = await importerFixture("ghost", "ghost-export.json");
    const file = fx.location;
    const exported = JSON.parse(readFileSync(file, "utf8"));
    const data = exported.db[0].data;
    data.tags.push({ id: "bad-tag", name: 42, slug: "numbered" });
    data.users.push({ id: "bad-user", name: "Nobody", slug: "nobody", created_at: "not a date" });
    data.posts.push({ ...data.posts[0], id: "bad-post", slug: "bad-post", title: ["a", "list"] });
    data.posts.push({ ...data.posts[0], id: "bad-date", slug: "bad-date", published_at: "32/13/2024" });
    writeFileSync(file, JSON.stringify(exported));
  }, 60_000);
  afterAll(async () => fx?.close());

  it("fails each one with its reason and imports the others", async () => {
    const summary = await fx.run();
    expect(summary.failures).toEqual([
      { kind: "post", name: "bad-post", reason: "title: Invalid input: expected string, received array" },
      { kind: "post", name: "bad-date", reason: "published_at: Must be a date" },
      { kind: "tag", name: "numbered", reason: "name: Invalid input: expected string, received number" },
      { kind: "author", name: "nobody", reason: "created_at: Must be a date" },
    ]);
    expect(summary.byKind.post?.created).toBe(3);
  });
});
