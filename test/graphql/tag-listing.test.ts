// A public tag page is read from the tag's links (PostTag.listedAt, kept by database triggers:
// migration 20261126103000_post_tag_listed_at; tagListing in src/content/posts/post-list-sql.ts). It must
// page exactly as the filter on Post does, after every kind of write that moves a post on or off a
// tag's public list, through the API's writer and through Prisma alike.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type PostListFilter, postListWhere } from "../../src/content/posts/post-filters.ts";
import { SqlParams, tagListing } from "../../src/content/posts/post-list-sql.ts";
import { readPostPage } from "../../src/graphql/read-model/post-rows.ts";
import { restFixtures } from "../helpers/rest-fixtures.ts";
import { startTestApp, type TestApp, type TestWorkspace } from "../helpers/test-app.ts";

let app: TestApp;
let ws: TestWorkspace;
let other: TestWorkspace;
/** The tags' ids by slug, in `ws`. */
const tagIds: Record<string, string> = {};
const day = (n: number) => new Date(Date.UTC(2024, 0, n, 9)).toISOString();

beforeAll(async () => {
  app = await startTestApp();
  ws = await app.workspace("Tag pages");
  other = await app.workspace("Elsewhere");
  for (const [workspace, prefix] of [
    [ws, ""],
    [other, "other-"],
  ] as const) {
    const make = restFixtures(app, workspace.privateKey);
    const news = await make.category(`${prefix}news`);
    const ids: Record<string, string> = {};
    for (const slug of ["red", "blue"]) ids[slug] = (await make.tag(slug)).id;
    if (workspace === ws) Object.assign(tagIds, ids);
    // 14 posts, two a day (ties broken by id), red on most, blue on some, a few drafts.
    for (let n = 0; n < 14; n++)
      await make.post({
        slug: `${prefix}post-${n}`,
        categoryId: news.id,
        status: n % 5 === 4 ? "draft" : "published",
        publishedAt: day(1 + Math.floor(n / 2)),
        tags: [...(n % 4 !== 3 ? ["red"] : []), ...(n % 3 === 0 ? ["blue"] : [])].map(
          (slug) => ids[slug] as string,
        ),
      });
  }
}, 120_000);
afterAll(async () => app?.close());

/** The page both ways: from the tag's links, and from the filter on Post; each with Prisma's truth. */
async function pages(tag: string, now: Date, order: "asc" | "desc", limit: number, offset: number) {
  const filter: PostListFilter = { now, status: "published", tags: [tag] };
  const params = new SqlParams();
  const listing = tagListing(ws.id, filter, order, params);
  expect(listing).not.toBeNull();
  const fromLinks = await readPostPage(
    app.db.sql,
    ws.id,
    { condition: "", join: "", orderBy: "", listing, limit, offset, params },
    { select: { id: true, title: true } },
  );
  const where = postListWhere(ws.id, filter);
  const expected = await app.db.prisma.post.findMany({
    where,
    orderBy: [{ publishedAt: order }, { id: "asc" }],
    skip: offset,
    take: limit,
    select: { id: true },
  });
  return {
    total: fromLinks.totalItems,
    ids: fromLinks.items.map((row) => row.id as string),
    expectedTotal: await app.db.prisma.post.count({ where }),
    expectedIds: expected.map((row) => row.id),
  };
}

async function expectSamePages(now = new Date()) {
  for (const tag of ["red", "blue", "no-such-tag"])
    for (const order of ["desc", "asc"] as const)
      for (const [limit, offset] of [
        [10, 0],
        [1, 0],
        [5, 5],
        [7, 3],
        [10, 20],
      ] as const) {
        const got = await pages(tag, now, order, limit, offset);
        expect(got.ids, `${tag} ${order} ${limit}@${offset}`).toEqual(got.expectedIds);
        expect(got.total).toBe(got.expectedTotal);
      }
}

describe("a public tag page from the tag's links", () => {
  it("is taken only for one tag with no other filter", () => {
    const now = new Date();
    const params = () => new SqlParams();
    expect(tagListing(ws.id, { now, status: "published", tags: ["red"] }, "desc", params())).not.toBeNull();
    for (const filter of [
      { now, status: "published", tags: ["red", "blue"] },
      { now, status: "all", tags: ["red"] },
      { now, status: "scheduled", tags: ["red"] },
      { now, status: "published", tags: ["red"], featured: true },
      { now, status: "published", tags: ["red"], categories: ["news"] },
      { now, status: "published", tags: ["red"], excludeTags: ["blue"] },
      { now, status: "published", tags: ["red"], matchingIds: [] },
      { now, status: "published" },
    ] as PostListFilter[])
      expect(tagListing(ws.id, filter, "desc", params()), JSON.stringify(filter)).toBeNull();
  });

  it("pages as the filter on Post does, and never shows another workspace's post", async () => {
    await expectSamePages();
    const red = await pages("red", new Date(), "desc", 100, 0);
    const otherPosts = await app.db.prisma.post.findMany({ where: { workspaceId: other.id } });
    const otherIds = otherPosts.map((post: { id: string }) => post.id);
    expect(red.ids.some((id) => otherIds.includes(id))).toBe(false);
    // Scheduled posts are left out until their date: the same page asked as of January 3rd.
    await expectSamePages(new Date(Date.UTC(2024, 0, 3, 12)));
  });

  it("follows every write that moves a post on or off a tag's list, through the API and Prisma", async () => {
    const key = { key: ws.privateKey };
    const patch = async (slug: string, body: Record<string, unknown>) => {
      const res = await app.request("PATCH", `/v1/posts/${slug}`, { ...key, body });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
    };
    await patch("post-0", { status: "draft" }); // unpublished
    await patch("post-4", { status: "published" }); // a draft published
    await patch("post-1", { publishedAt: "2031-01-01T00:00:00.000Z" }); // re-dated ahead: scheduled
    await patch("post-2", { publishedAt: day(20) }); // re-dated: first on the page now
    await patch("post-3", { tags: [tagIds.red, tagIds.blue] }); // retagged onto red
    await patch("post-5", { tags: [] }); // off every tag
    await patch("post-6", { title: "Renamed" }); // nothing a list sees
    await expectSamePages();
    // A new published post with tags (the writer inserts it and its links in one statement), and a
    // scheduled one.
    const make = restFixtures(app, ws.privateKey);
    const category = (await app.db.prisma.category.findFirstOrThrow({ where: { workspaceId: ws.id } })).id;
    await make.post({
      slug: "fresh",
      categoryId: category,
      tags: [tagIds.red as string],
      publishedAt: day(25),
    });
    await make.post({
      slug: "later",
      categoryId: category,
      tags: [tagIds.red as string],
      publishedAt: "2032-01-01T00:00:00Z",
    });
    await make.post({
      slug: "draft-new",
      categoryId: category,
      tags: [tagIds.red as string],
      status: "draft",
    });
    expect((await pages("red", new Date(), "desc", 1, 0)).ids).toEqual([
      (await app.db.prisma.post.findFirstOrThrow({ where: { workspaceId: ws.id, slug: "fresh" } })).id,
    ]);
    await expectSamePages();
    // Deleted through the API; changed behind the service's back with Prisma and raw SQL.
    expect((await app.request("DELETE", "/v1/posts/post-7", key)).status).toBe(200);
    const post8 = await app.db.prisma.post.findFirstOrThrow({
      where: { workspaceId: ws.id, slug: "post-8" },
    });
    await app.db.prisma.post.update({ where: { id: post8.id }, data: { status: "draft" } });
    const post9 = await app.db.prisma.post.findFirstOrThrow({
      where: { workspaceId: ws.id, slug: "post-9" },
    });
    const blue = await app.db.prisma.tag.findFirstOrThrow({ where: { workspaceId: ws.id, slug: "blue" } });
    await app.db.prisma.postTag.deleteMany({ where: { postId: post9.id } });
    await app.db.prisma.postTag.create({ data: { postId: post9.id, tagId: blue.id } });
    await app.db.sql.query(`UPDATE "Post" SET "publishedAt" = $2::timestamp WHERE id = $1`, [
      post9.id,
      "2024-02-01 00:00:00",
    ]);
    await expectSamePages();
  });
});
