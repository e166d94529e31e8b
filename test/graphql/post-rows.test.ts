// The post read model (src/graphql/post-rows.ts) stands in for Prisma's query when plugin-prisma plans
// the post read form: it must return exactly the rows Prisma returns for that selection, and claim no
// plan it does not load.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SqlParams } from "../../src/content/posts/post-list-sql.ts";
import type { SqlExecutor } from "../../src/db/sql-executor.ts";
import type { Prisma } from "../../src/generated/prisma/client.ts";
import {
  ONE_STATEMENT_PAGE_SIZES,
  READ_MODEL_SELECT,
  readModelCovers,
  readModelPays,
  readPostPage,
  readPostRows,
  readSinglePostRow,
} from "../../src/graphql/read-model/post-rows.ts";
import { startTestApp, type TestApp } from "../helpers/test-app.ts";
import { inTimeZone } from "../helpers/time-zone.ts";

let app: TestApp;
let workspaceId: string;
let ids: string[];
let otherWorkspacePostId: string;
// Timestamps must not depend on the server's time zone: the rows are read under another one.
inTimeZone("America/New_York");

beforeAll(async () => {
  app = await startTestApp();
  workspaceId = (await app.workspace("Read model")).id;
  ids = await seed(workspaceId);
  otherWorkspacePostId = await seedOtherWorkspace((await app.workspace("Elsewhere")).id);
}, 60_000);
afterAll(async () => {
  await app?.close();
});

async function seed(workspaceId: string): Promise<string[]> {
  const prisma = app.db.prisma;
  await prisma.category.create({
    data: { id: "cat-a", workspaceId, name: "Guides", slug: "guides", description: "How-tos" },
  });
  await prisma.category.create({ data: { id: "cat-b", workspaceId, name: "News", slug: "news" } });
  // Inserted out of name order, so the read model has to sort them as Prisma's plan does; two share a
  // name, so the tie-break shows too.
  for (const [id, name] of [
    ["tag-z", "Zeta"],
    ["tag-n", "Mu"],
    ["tag-a", "Alpha"],
    ["tag-m", "Mu"],
  ] as const) {
    await prisma.tag.create({ data: { id, workspaceId, name, slug: id, description: null } });
  }
  await prisma.author.create({
    data: {
      id: "author-1",
      workspaceId,
      name: "Ada",
      slug: "ada",
      // Characters that text arrays and json quote or escape (relation-layout.ts): they must come back as stored.
      bio: 'Writes "quoted", {braced}, back\\slashed, NULL, ünïcode ✓',
      email: "ada@example.com",
      socials: [{ platform: "github", url: "https://github.com/ada" }],
    },
  });
  await prisma.author.create({ data: { id: "author-2", workspaceId, name: "Brian", slug: "brian" } });
  const rating = await prisma.field.create({
    data: { workspaceId, key: "rating", name: "Rating", type: "number", position: 0 },
  });
  const topics = await prisma.field.create({
    data: { workspaceId, key: "topics", name: "Topics", type: "multiselect", position: 1 },
  });

  const full = await prisma.post.create({
    data: {
      workspaceId,
      slug: "full",
      title: "Everything set",
      status: "published",
      featured: true,
      coverImage: "https://example.com/cover.png",
      description: "A post with every field",
      content: "<p>Body with “quotes” and ünïcode</p>",
      attribution: "Originally elsewhere",
      publishedAt: new Date("2024-02-29T23:59:59.123Z"),
      categoryId: "cat-a",
      tags: { create: [{ tagId: "tag-z" }, { tagId: "tag-n" }, { tagId: "tag-a" }, { tagId: "tag-m" }] },
      authors: {
        create: [
          { authorId: "author-2", position: 0 },
          { authorId: "author-1", position: 1 },
        ],
      },
      fieldValues: {
        create: [
          { fieldId: rating.id, value: 4.5 },
          { fieldId: topics.id, value: ["a", 'b "quoted" {x}', "back\\slash", "ünï"] },
        ],
      },
    },
  });
  const bare = await prisma.post.create({
    data: {
      workspaceId,
      slug: "bare",
      title: "Nothing optional",
      status: "draft",
      description: "No tags, authors or values",
      content: "<p>Short</p>",
      publishedAt: new Date("2023-01-01T00:00:00.000Z"),
      categoryId: "cat-b",
    },
  });
  return [bare.id, full.id];
}

async function seedOtherWorkspace(otherId: string): Promise<string> {
  const prisma = app.db.prisma;
  await prisma.category.create({ data: { id: "other-cat", workspaceId: otherId, name: "O", slug: "o" } });
  const post = await prisma.post.create({
    data: {
      workspaceId: otherId,
      slug: "other",
      title: "Other",
      status: "published",
      description: "d",
      content: "<p>c</p>",
      publishedAt: new Date(),
      categoryId: "other-cat",
    },
  });
  return post.id;
}

/** Prisma's own rows for `select`, in the order of `postIds`. */
async function prismaRows(postIds: string[], select: Prisma.PostSelect = READ_MODEL_SELECT) {
  const rows = await app.db.prisma.post.findMany({
    select: { ...select, id: true },
    where: { id: { in: postIds } },
  });
  return postIds.map((id) => rows.find((row) => row.id === id) as Record<string, unknown>);
}

/** Only the keys `select` asks for (the read model always carries the post's own columns). */
function pick(row: Record<string, unknown>, select: Prisma.PostSelect): Record<string, unknown> {
  return Object.fromEntries(Object.keys({ ...select, id: true }).map((key) => [key, row[key]]));
}

const byFieldId = (a: { fieldId: string }, b: { fieldId: string }) => a.fieldId.localeCompare(b.fieldId);

/** The relations' read-form columns only: the plan of a post list that shows nothing else of them. */
const SHOWN = {
  id: true,
  category: { select: { id: true, name: true, slug: true, description: true } },
  authors: {
    orderBy: READ_MODEL_SELECT.authors.orderBy,
    select: {
      author: {
        select: { id: true, name: true, slug: true, image: true, bio: true, role: true, socials: true },
      },
    },
  },
  tags: {
    orderBy: READ_MODEL_SELECT.tags.orderBy,
    select: { tag: { select: { id: true, name: true, slug: true, description: true } } },
  },
} satisfies Prisma.PostSelect;

/** The app's executor, recording each statement's text in `statements`. */
function countingStatements(statements: string[]): SqlExecutor {
  return {
    exec: (text) => app.db.sql.exec(text),
    query: (text, params, options) => {
      statements.push(text);
      return app.db.sql.query(text, params, options);
    },
  };
}

/** readPostPage over the app's executor, by date, with the definitions and head; and its statements. */
async function pageOf(
  limit: number,
  offset: number,
  condition: (params: SqlParams) => string,
  options: { shareMatches?: boolean } = {},
) {
  const statements: string[] = [];
  const params = new SqlParams();
  const found = await readPostPage(
    countingStatements(statements),
    workspaceId,
    {
      condition: condition(params),
      join: "",
      orderBy: `p."publishedAt" DESC, p.id ASC`,
      limit,
      offset,
      params,
      withFieldDefinitions: true,
      withHead: true,
      ...options,
    },
    { select: READ_MODEL_SELECT },
  );
  return { ...found, statements };
}

describe("post read model", () => {
  it("returns exactly Prisma's rows for the selection it covers, in the order of the ids", async () => {
    const expected = await prismaRows(ids);
    const actual = await readPostRows(app.db.sql, workspaceId, ids, { select: READ_MODEL_SELECT });
    // Field values have no order in either (they are keyed by field where used).
    for (const row of [...expected, ...actual] as { fieldValues: { fieldId: string }[] }[])
      row.fieldValues.sort(byFieldId);
    expect(actual).toStrictEqual(expected);
    expect(actual.map((row) => row.id)).toEqual(ids);
    const full = actual[1] as { tags: { tag: { id: string } }[]; publishedAt: Date };
    expect(full.tags.map((link) => link.tag.id)).toEqual(["tag-a", "tag-m", "tag-n", "tag-z"]);
    expect(full.publishedAt.toISOString()).toBe("2024-02-29T23:59:59.123Z");
  });

  it("loads only the parts a smaller plan asks for, equal to Prisma's for that plan", async () => {
    const plans: Prisma.PostSelect[] = [
      { id: true, title: true, publishedAt: true },
      { id: true, slug: true, tags: READ_MODEL_SELECT.tags },
      { id: true, content: true, category: true, fieldValues: READ_MODEL_SELECT.fieldValues },
      { id: true, authors: READ_MODEL_SELECT.authors, updatedAt: true },
    ];
    for (const select of plans) {
      const actual = await readPostRows(app.db.sql, workspaceId, ids, { select });
      expect(actual.map((row) => pick(row, select))).toStrictEqual(await prismaRows(ids, select));
      for (const part of ["content", "category", "authors", "tags", "fieldValues"])
        if (!(part in select)) expect(actual[1]).not.toHaveProperty(part);
    }
  });

  it("with the shown columns only, holds the relations' read-form columns, equal to Prisma's for them", async () => {
    const { category, authors, tags } = READ_MODEL_SELECT;
    const rows = await readPostRows(
      app.db.sql,
      workspaceId,
      ids,
      { select: { id: true, category, authors, tags } },
      "shown",
    );
    expect(rows.map((row) => pick(row, SHOWN))).toStrictEqual(await prismaRows(ids, SHOWN));
    const full = rows[1] as { authors: { author: object }[]; tags: { tag: object }[]; category: object };
    for (const relation of [full.category, full.authors[0]?.author, full.tags[0]?.tag]) {
      expect(relation).not.toHaveProperty("workspaceId");
      expect(relation).not.toHaveProperty("createdAt");
    }
    expect(full.authors[1]?.author).not.toHaveProperty("email");
    // The default is every column, as before.
    const all = await readPostRows(app.db.sql, workspaceId, ids, { select: { id: true, authors } });
    expect(all[1]?.authors).toStrictEqual((await prismaRows(ids, { id: true, authors }))[1]?.authors);
  });

  it("with the names only, holds each relation's id, name and slug, equal to Prisma's, and nothing else", async () => {
    const { category, authors, tags } = READ_MODEL_SELECT;
    const rows = await readPostRows(
      app.db.sql,
      workspaceId,
      ids,
      { select: { id: true, category, authors, tags } },
      "names",
    );
    const names = { select: { id: true, name: true, slug: true } };
    const NAMES = {
      id: true,
      category: names,
      authors: { orderBy: READ_MODEL_SELECT.authors.orderBy, select: { author: names } },
      tags: { orderBy: READ_MODEL_SELECT.tags.orderBy, select: { tag: names } },
    };
    expect(rows.map((row) => pick(row, NAMES))).toStrictEqual(await prismaRows(ids, NAMES));
    const full = rows[1] as { authors: { author: object }[]; tags: { tag: object }[]; category: object };
    for (const relation of [full.category, full.authors[0]?.author, full.tags[0]?.tag])
      expect(Object.keys(relation ?? {}).sort()).toEqual(["id", "name", "slug"]);
  });

  it("leaves the body out when the plan does not ask for it, and skips unknown ids", async () => {
    const { content: _content, ...withoutContent } = READ_MODEL_SELECT;
    const rows = await readPostRows(app.db.sql, workspaceId, ["no-such-post", ids[1] as string], {
      select: withoutContent,
    });
    expect(rows).toHaveLength(1);
    expect(rows[0]).not.toHaveProperty("content");
    expect(rows[0]?.title).toBe("Everything set");
    expect(await readPostRows(app.db.sql, workspaceId, [], { select: READ_MODEL_SELECT })).toEqual([]);
  });

  it("never returns a post of another workspace, whatever ids it is given", async () => {
    const rows = await readPostRows(app.db.sql, workspaceId, [otherWorkspacePostId, ids[0] as string], {
      select: READ_MODEL_SELECT,
    });
    expect(rows.map((row) => row.id)).toEqual([ids[0]]);
  });

  it("reads a page of a common size in one statement, the same rows, count, definitions and head as in two", async () => {
    expect(ONE_STATEMENT_PAGE_SIZES.has(1)).toBe(true);
    expect(ONE_STATEMENT_PAGE_SIZES.has(2)).toBe(false);
    const page = async (limit: number, offset: number) => {
      const found = await pageOf(limit, offset, (params) => `p."workspaceId" = ${params.add(workspaceId)}`);
      return { ...found, statements: found.statements.length };
    };
    const both = await page(2, 0);
    expect(both.statements).toBe(2);
    expect(both.items).toHaveLength(2);
    for (const offset of [0, 1]) {
      const one = await page(1, offset);
      expect(one.statements).toBe(1);
      expect(one.items).toStrictEqual([both.items[offset]]);
      expect(one.totalItems).toBe(2);
      expect(one.fieldDefinitions).toStrictEqual(both.fieldDefinitions);
      expect(one.head).toBe(both.head);
    }
    expect(both.fieldDefinitions).toHaveLength(2);
    expect(both.head).not.toBeNull();
    // Past the last page: no rows, and still the count, the definitions and the head.
    for (const limit of [1, 2]) {
      const beyond = await page(limit, 5);
      expect(beyond.items).toEqual([]);
      expect(beyond.totalItems).toBe(2);
      expect(beyond.fieldDefinitions).toStrictEqual(both.fieldDefinitions);
      expect(beyond.head).toBe(both.head);
    }
  });

  it("finds the same page and count when the count and the page share one scan of the matches", async () => {
    const page = async (limit: number, offset: number, shareMatches: boolean) => {
      // A tag's posts, as the tag filter finds them (post-list-sql.ts).
      const tagged = (
        params: SqlParams,
      ) => `p."workspaceId" = ${params.add(workspaceId)} AND p.id = ANY(ARRAY(
        SELECT pt."postId" FROM "PostTag" pt WHERE pt."tagId" = ANY(${params.add(["tag-a", "tag-z"])}::text[])))`;
      const { statements, ...found } = await pageOf(limit, offset, tagged, { shareMatches });
      expect(statements.some((text) => text.includes("matched AS MATERIALIZED"))).toBe(shareMatches);
      return found;
    };
    for (const [limit, offset] of [
      [1, 0],
      [2, 0],
      [10, 0],
      [1, 1],
      [2, 5],
    ] as const) {
      const shared = await page(limit, offset, true);
      const apart = await page(limit, offset, false);
      expect(shared).toStrictEqual(apart);
      expect(shared.totalItems).toBe(1);
    }
  });

  it("reads one post in one statement, the same row as a page's, with its definitions and head", async () => {
    const { category, authors, tags } = READ_MODEL_SELECT;
    const single = async (
      identifier: string,
      query: { select: Prisma.PostSelect },
      relationColumns: "all" | "shown" = "all",
    ) => {
      const statements: string[] = [];
      const sql = countingStatements(statements);
      const params = new SqlParams();
      const found = await readSinglePostRow(
        sql,
        workspaceId,
        {
          condition: `p."workspaceId" = ${params.add(workspaceId)} AND (p.id = ${params.add(identifier)} OR p.slug = $2)`,
          params,
          withFieldDefinitions: true,
          withHead: true,
        },
        query,
        relationColumns,
      );
      expect(statements).toHaveLength(1);
      return found;
    };
    const [fullId] = ids.slice(1);
    const expected = (await prismaRows([fullId as string]))[0] as { fieldValues: { fieldId: string }[] };
    const bySlug = await single("full", { select: READ_MODEL_SELECT });
    const byId = await single(fullId as string, { select: READ_MODEL_SELECT });
    for (const row of [expected, bySlug.item, byId.item] as { fieldValues: { fieldId: string }[] }[])
      row.fieldValues.sort(byFieldId);
    expect(bySlug.item).toStrictEqual(expected);
    expect(byId.item).toStrictEqual(expected);
    // The same definitions and head as a page's statement reads.
    const params = new SqlParams();
    const page = await readPostPage(
      app.db.sql,
      workspaceId,
      {
        condition: `p."workspaceId" = ${params.add(workspaceId)}`,
        join: "",
        orderBy: "p.id",
        limit: 1,
        offset: 0,
        params,
        withFieldDefinitions: true,
        withHead: true,
      },
      { select: READ_MODEL_SELECT },
    );
    expect(bySlug.fieldDefinitions).toStrictEqual(page.fieldDefinitions);
    expect(bySlug.head).toBe(page.head);
    // Smaller plans and the shown columns: Prisma's rows for them.
    const plans: Prisma.PostSelect[] = [
      { id: true, title: true, publishedAt: true },
      { id: true, content: true, category: true, fieldValues: READ_MODEL_SELECT.fieldValues },
      { id: true, authors: READ_MODEL_SELECT.authors, updatedAt: true },
    ];
    for (const select of plans) {
      const { item } = await single("full", { select });
      expect(pick(item as Record<string, unknown>, select)).toStrictEqual(
        (await prismaRows([fullId as string], select))[0],
      );
    }
    const { item: shownItem } = await single(
      "full",
      { select: { id: true, category, authors, tags } },
      "shown",
    );
    expect(pick(shownItem as Record<string, unknown>, SHOWN)).toStrictEqual(
      (await prismaRows([fullId as string], SHOWN))[0],
    );
    // A post without relations has empty lists; nothing found, and another workspace's post, are null.
    const bare = await single("bare", { select: READ_MODEL_SELECT });
    expect(bare.item).toMatchObject({ authors: [], tags: [], fieldValues: [] });
    for (const missing of ["no-such-post", "other", otherWorkspacePostId])
      expect(await single(missing, { select: READ_MODEL_SELECT })).toEqual({
        item: null,
        fieldDefinitions: null,
        head: null,
        locales: null,
      });
  });

  it("covers the plans it loads exactly, and no other", () => {
    expect(readModelCovers({ select: READ_MODEL_SELECT })).toBe(true);
    expect(readModelCovers({ select: { id: true, title: true } })).toBe(true);
    // A nested count, a different order or an include: Prisma loads those.
    expect(
      readModelCovers({
        select: { id: true, category: { include: { _count: { select: { posts: true } } } } },
      }),
    ).toBe(false);
    expect(readModelCovers({ select: { tags: { select: { tag: true } } } })).toBe(false);
    expect(readModelCovers({ select: { search: true } as never })).toBe(false);
    expect(readModelCovers({ include: { tags: true } })).toBe(false);
    // Tags by name alone (no tie-break) is not the order the read model gives.
    expect(
      readModelCovers({ select: { tags: { orderBy: { tag: { name: "asc" } }, select: { tag: true } } } }),
    ).toBe(false);
  });

  it("is used for lists only when the plan loads a relation", () => {
    expect(readModelPays({ select: { id: true, title: true, content: true } })).toBe(false);
    expect(readModelPays({ select: { id: true, category: true } })).toBe(true);
    expect(readModelPays({ select: READ_MODEL_SELECT })).toBe(true);
  });
});
