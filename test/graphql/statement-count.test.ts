import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp, type TestWorkspace } from "../helpers/test-app.ts";

describe("probe", () => {
  let app: TestApp;
  let ws: TestWorkspace;
  const statements: string[] = [];
  let recording = false;
  beforeAll(async () => {
    app = await startTestApp({ onQuery: (sql) => { if (recording) statements.push(sql); } });
    ws = await app.workspace();
    const prisma = app.db.prisma;
    const workspaceId = ws.id;
    const cat = await prisma.category.create({ data: { workspaceId, name: "C", slug: "c" } });
    const tags = await Promise.all([0, 1, 2].map((n) => prisma.tag.create({ data: { workspaceId, name: `T${n}`, slug: `t${n}` } })));
    const authors = await Promise.all([0, 1].map((n) => prisma.author.create({ data: { workspaceId, name: `A${n}`, slug: `a${n}` } })));
    const f1 = await prisma.field.create({ data: { workspaceId, key: "f1", name: "F1", type: "text", position: 0 } });
    const f2 = await prisma.field.create({ data: { workspaceId, key: "f2", name: "F2", type: "number", position: 1 } });
    for (let n = 0; n < 100; n++) {
      await prisma.post.create({
        data: {
          workspaceId, title: `P${n}`, slug: `p${n}`, description: "d", content: "<p>x</p>", status: "published",
          publishedAt: new Date(Date.UTC(2024, 0, 1) + n * 60000), categoryId: cat.id,
          tags: { connect: tags.map((t) => ({ id: t.id })) },
          authors: { create: authors.map((a, position) => ({ authorId: a.id, position })) },
          fieldValues: { create: [{ fieldId: f1.id, value: `v${n}` }, { fieldId: f2.id, value: n }] },
        },
      });
    }
  }, 120_000);
  afterAll(async () => app.close());

  it("counts", async () => {
    for (const limit of [10, 100]) {
      statements.length = 0;
      recording = true;
      const result = await app.graphql(ws.publicKey, `query($limit: Int) { posts(limit: $limit) { items { id title authors { id name count { posts } } category { id name count { posts } } tags { id name count { posts } } fields } pagination { totalItems } } }`, { limit });
      recording = false;
      expect(result.errors).toBeUndefined();
      console.log(limit, statements.length, statements.join("\n---\n"));
    }
  });
});
