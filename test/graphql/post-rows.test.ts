// The post read model (src/graphql/post-rows.ts) stands in for Prisma's query when plugin-prisma plans
// the post read form: it must return exactly the rows Prisma returns for that selection, and claim no
// plan it does not load.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { READ_MODEL_SELECT, readModelCovers, readPostRows } from "../../src/graphql/post-rows.ts";
import { startTestApp, type TestApp } from "../helpers/test-app.ts";

let app: TestApp;
let ids: string[];

beforeAll(async () => {
  app = await startTestApp();
  const ws = await app.workspace("Read model");
  ids = await seed(ws.id);
}, 60_000);
afterAll(async () => app?.close());

async function seed(workspaceId: string): Promise<string[]> {
  const prisma = app.db.prisma;
  await prisma.category.create({
    data: { id: "cat-a", workspaceId, name: "Guides", slug: "guides", description: "How-tos" },
  });
  await prisma.category.create({ data: { id: "cat-b", workspaceId, name: "News", slug: "news" } });
  // Inserted out of name order, so the read model has to sort them as Prisma's plan does.
  for (const [id, name] of [
    ["tag-z", "Zeta"],
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
      bio: "Writes",
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
      tags: { create: [{ tagId: "tag-z" }, { tagId: "tag-a" }, { tagId: "tag-m" }] },
      authors: {
        create: [
          { authorId: "author-2", position: 0 },
          { authorId: "author-1", position: 1 },
        ],
      },
      fieldValues: {
        create: [
          { fieldId: rating.id, value: 4.5 },
          { fieldId: topics.id, value: ["a", "b"] },
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

/** Prisma's own rows for the read model's selection, in the order of `ids`. */
async function prismaRows(postIds: string[]) {
  const rows = await app.db.prisma.post.findMany({
    select: READ_MODEL_SELECT,
    where: { id: { in: postIds } },
  });
  return postIds.map((id) => rows.find((row) => row.id === id));
}

const byFieldId = (a: { fieldId: string }, b: { fieldId: string }) => a.fieldId.localeCompare(b.fieldId);

describe("post read model", () => {
  it("returns exactly Prisma's rows for the selection it covers, in the order of the ids", async () => {
    const expected = await prismaRows(ids);
    const actual = await readPostRows(app.db.sql, ids, { select: READ_MODEL_SELECT });
    // Field values have no order in either (they are keyed by field where used).
    for (const row of [...expected, ...actual] as { fieldValues: { fieldId: string }[] }[])
      row.fieldValues.sort(byFieldId);
    expect(actual).toEqual(expected);
    expect(actual.map((row) => row.id)).toEqual(ids);
    const full = actual[1] as { tags: { tag: { name: string } }[]; publishedAt: Date };
    expect(full.tags.map((link) => link.tag.name)).toEqual(["Alpha", "Mu", "Zeta"]);
    expect(full.publishedAt).toEqual(new Date("2024-02-29T23:59:59.123Z"));
  });

  it("leaves the body out when the plan does not ask for it, and skips unknown ids", async () => {
    const { content: _content, ...withoutContent } = READ_MODEL_SELECT;
    const rows = await readPostRows(app.db.sql, ["no-such-post", ids[1] as string], {
      select: withoutContent,
    });
    expect(rows).toHaveLength(1);
    expect(rows[0]).not.toHaveProperty("content");
    expect(rows[0]?.title).toBe("Everything set");
    expect(await readPostRows(app.db.sql, [], { select: READ_MODEL_SELECT })).toEqual([]);
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
  });
});
