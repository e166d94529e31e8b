// The post list filters exist twice: as a Prisma `where` (post-filters.ts: cursor connection, plans the
// read model does not cover) and as SQL (post-list-sql.ts: the read model's page query). Both must pick
// the same posts in the same order, for every filter and order.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type PostListFilter, postListWhere } from "../../src/content/posts/post-filters.ts";
import {
  postListCondition,
  postListOrder,
  postListSql,
  SqlParams,
} from "../../src/content/posts/post-list-sql.ts";
import { readPostPage } from "../../src/graphql/read-model/post-rows.ts";
import { startTestApp, type TestApp } from "../helpers/test-app.ts";

let app: TestApp;
let workspaceId: string;
let otherWorkspaceId: string;
let postIds: string[];

beforeAll(async () => {
  app = await startTestApp();
  workspaceId = (await app.workspace("Filters")).id;
  otherWorkspaceId = (await app.workspace("Other")).id;
  postIds = await seed();
}, 60_000);
afterAll(async () => app?.close());

/** 24 posts over 3 categories and 4 tags, some drafts, some featured, some sharing a publishedAt. */
async function seed(): Promise<string[]> {
  const prisma = app.db.prisma;
  for (const ws of [workspaceId, otherWorkspaceId]) {
    const prefix = ws === workspaceId ? "" : "other-";
    await prisma.category.createMany({
      data: ["news", "guides", "events"].map((slug) => ({
        id: `${prefix}${slug}`,
        workspaceId: ws,
        name: slug,
        slug,
      })),
    });
    await prisma.tag.createMany({
      data: ["red", "green", "blue", "gray"].map((slug) => ({
        id: `${prefix}${slug}`,
        workspaceId: ws,
        name: slug,
        slug,
      })),
    });
  }
  const categories = ["news", "guides", "events"];
  const tags = ["red", "green", "blue", "gray"];
  const ids: string[] = [];
  for (let n = 0; n < 24; n++) {
    const post = await prisma.post.create({
      data: {
        workspaceId,
        slug: `post-${n}`,
        title: `Post ${n}`,
        description: "d",
        content: "<p>c</p>",
        status: n % 5 === 0 ? "draft" : "published",
        featured: n % 3 === 0,
        // Pairs share a publishedAt, so the tie-break by id is exercised.
        publishedAt: publishedAtOf(n),
        unpublishAt: unpublishAtOf(n),
        categoryId: categories[n % 3] as string,
        tags: { create: tags.filter((_, k) => (n >> k) & 1).map((tagId) => ({ tagId })) },
      },
    });
    ids.push(post.id);
  }
  // A post of another workspace that matches every slug filter: it must never show up.
  await prisma.post.create({
    data: {
      workspaceId: otherWorkspaceId,
      slug: "elsewhere",
      title: "Elsewhere",
      description: "d",
      content: "<p>c</p>",
      status: "published",
      publishedAt: new Date(Date.UTC(2024, 5, 1)),
      categoryId: "other-news",
      tags: { create: [{ tagId: "other-red" }] },
    },
  });
  return ids;
}

/** Posts dated after it (January 8th on) are scheduled: every filter tells public from scheduled by it. */
const NOW = new Date(Date.UTC(2024, 0, 7, 12));

const publishedAtOf = (n: number) => new Date(Date.UTC(2024, 0, 1 + Math.floor(n / 2)));

/**
 * Scheduled unpublishing: every fourth post from n = 1 is unpublished 30 hours after its publication
 * (passed for n = 1 and 9, still ahead for n = 13 and the scheduled ones), every fourth from n = 3 in 2030.
 */
function unpublishAtOf(n: number): Date | null {
  if (n % 4 === 1) return new Date(publishedAtOf(n).getTime() + 30 * 3600_000);
  return n % 4 === 3 ? new Date(Date.UTC(2030, 0, 1)) : null;
}

const filters: PostListFilter[] = [
  { now: NOW, status: "scheduled" },
  { now: NOW, status: "scheduled", tags: ["red"] },
  { now: NOW, status: "published" },
  { now: NOW, status: "draft" },
  { now: NOW, status: "all" },
  { now: NOW, status: "published", featured: true },
  { now: NOW, status: "all", featured: false },
  { now: NOW, status: "published", categories: ["news", "events"] },
  { now: NOW, status: "published", excludeCategories: ["news"] },
  { now: NOW, status: "all", categories: ["guides"], excludeCategories: ["guides"] },
  { now: NOW, status: "published", tags: ["red"] },
  { now: NOW, status: "published", tags: ["red", "blue"] },
  { now: NOW, status: "all", excludeTags: ["green", "gray"] },
  { now: NOW, status: "published", tags: ["blue"], excludeTags: ["red"], categories: ["guides", "events"] },
  { now: NOW, status: "published", categories: ["no-such-category"] },
  { now: NOW, status: "published", tags: ["no-such-tag"] },
  { now: NOW, status: "published", excludeTags: ["no-such-tag"] },
];

async function sqlIds(filter: PostListFilter, order: "asc" | "desc"): Promise<string[]> {
  const params = new SqlParams();
  const condition = postListCondition(workspaceId, filter, params);
  const { join, orderBy } = postListOrder({ by: "publishedAt", direction: order }, params);
  const rows = await app.db.sql.query<{ id: string }>(
    `SELECT p.id FROM "Post" p ${join} WHERE ${condition} ORDER BY ${orderBy}`,
    params.values,
  );
  return rows.map((row) => row.id);
}

async function prismaIds(filter: PostListFilter, order: "asc" | "desc"): Promise<string[]> {
  const rows = await app.db.prisma.post.findMany({
    where: postListWhere(workspaceId, filter),
    orderBy: [{ publishedAt: order }, { id: "asc" }],
    select: { id: true },
  });
  return rows.map((row) => row.id);
}

describe("post list filters: SQL and Prisma agree", () => {
  it.each(filters.map((filter) => [JSON.stringify(filter), filter] as const))("%s", async (_name, filter) => {
    for (const order of ["desc", "asc"] as const) {
      const expected = await prismaIds(filter, order);
      expect(await sqlIds(filter, order)).toEqual(expected);
    }
  });

  it("the filters select what they say (a sanity check of the matrix itself)", async () => {
    expect(await prismaIds({ now: NOW, status: "all" }, "desc")).toHaveLength(24);
    expect(await prismaIds({ now: NOW, status: "draft" }, "desc")).toHaveLength(5);
    // 24 posts dated two a day from Jan 1st: Jan 1st–7th are n = 0…13 (3 drafts, 2 unpublished since:
    // n = 1 and 9), the rest 10 (2 drafts).
    expect(await prismaIds({ now: NOW, status: "published" }, "desc")).toHaveLength(9);
    expect(await prismaIds({ now: NOW, status: "scheduled" }, "desc")).toHaveLength(8);
    expect(await prismaIds({ now: NOW, status: "published", tags: ["no-such-tag"] }, "desc")).toEqual([]);
  });

  it("pages: readPostPage's total (the public one counted as released minus withdrawn) and ids agree with Prisma's count and skip/take", async () => {
    const pageFilters = [
      filters[0],
      filters[2],
      filters[4],
      filters[7],
      filters[11],
      filters[12],
      filters[13],
    ];
    for (const filter of pageFilters as PostListFilter[]) {
      for (const [limit, page] of [
        [5, 1],
        [5, 2],
        [7, 3],
        [10, 9],
      ] as const) {
        const params = new SqlParams();
        const { condition, count } = postListSql(workspaceId, filter, params);
        expect(count !== null).toBe(filter.status === "published");
        const order = postListOrder({ by: "publishedAt", direction: "desc" }, params);
        const offset = (page - 1) * limit;
        const { totalItems, items } = await readPostPage(
          app.db.sql,
          workspaceId,
          { condition, countBy: count, ...order, limit, offset, params },
          { select: { id: true, title: true } },
        );
        const where = postListWhere(workspaceId, filter);
        const expected = await app.db.prisma.post.findMany({
          where,
          orderBy: [{ publishedAt: "desc" }, { id: "asc" }],
          skip: offset,
          take: limit,
          select: { id: true },
        });
        expect(totalItems).toBe(await app.db.prisma.post.count({ where }));
        expect(items.map((row) => row.id)).toEqual(expected.map((row) => row.id));
      }
    }
  });

  it("restricts to matching ids and orders by search rank", async () => {
    const ranked = [postIds[7], postIds[3], postIds[6], postIds[0]] as string[];
    const params = new SqlParams();
    const condition = postListCondition(
      workspaceId,
      { now: NOW, status: "published", matchingIds: ranked },
      params,
    );
    const { join, orderBy } = postListOrder({ by: "rank", rankedIds: ranked }, params);
    const rows = await app.db.sql.query<{ id: string }>(
      `SELECT p.id FROM "Post" p ${join} WHERE ${condition} ORDER BY ${orderBy}`,
      params.values,
    );
    // Post 0 is a draft; the rest keep the rank order.
    expect(rows.map((row) => row.id)).toEqual([postIds[7], postIds[3], postIds[6]]);
  });
});
