// The published client of the contract, @usemarble/sdk 1.2.1, against this server. The SDK validates
// every response against its own schemas (every declared key present, exact statuses such as 201 on
// create) and throws on any mismatch, so each call below that resolves is a passed contract check.
import { randomBytes } from "node:crypto";
import { Marble } from "@usemarble/sdk";
import * as errors from "@usemarble/sdk/models/errors";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hashApiKey } from "../../src/auth/api-key-format.ts";
import { day } from "../helpers/rest-fixtures.ts";
import { startTestApp, type TestApp } from "../helpers/test-app.ts";

let app: TestApp;
let writer: Marble;
let reader: Marble;

beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => app?.close());

/** Every page of an SDK list, in order. */
async function allPages<T>(pages: AsyncIterable<T>): Promise<T[]> {
  const seen: T[] = [];
  for await (const page of pages) seen.push(page);
  return seen;
}

/**
 * A workspace whose keys are of the format issued before keys carried a checksum (`sk_`/`pk_` and 32
 * base64url characters), as clients configured then still hold them. Inserted directly: no door issues
 * that format any more.
 */
async function legacyKeys(): Promise<{ privateKey: string; publicKey: string }> {
  const workspace = await app.workspace("Keys from before the checksum");
  const insert = async (kind: "public" | "private") => {
    const key = `${kind === "public" ? "pk" : "sk"}_${randomBytes(24).toString("base64url")}`;
    await app.db.prisma.apiKey.create({
      data: {
        workspaceId: workspace.id,
        kind,
        scopes: kind === "public" ? ["content:read"] : ["*"],
        hash: hashApiKey(key),
        displayHint: `${key.slice(0, 9)}…`,
      },
    });
    return key;
  };
  return { privateKey: await insert("private"), publicKey: await insert("public") };
}

// The built server process (TEST_SERVER=process) holds its own database, so keys of the old format can
// only be inserted in-process; CI runs this file in-process on both stores.
const keyForms = [
  { form: "today's format (with a checksum)", keys: () => app.workspace() },
  ...(process.env.TEST_SERVER === "process"
    ? []
    : [{ form: "the format before the checksum", keys: legacyKeys }]),
];

describe.each(keyForms)("with keys of $form", ({ keys }) => {
  beforeAll(async () => {
    const { privateKey, publicKey } = await keys();
    writer = new Marble({ apiKey: privateKey, serverURL: app.url });
    reader = new Marble({ apiKey: publicKey, serverURL: app.url });
  });

  describe("categories through the SDK", () => {
    it("create, get, list, update, delete", async () => {
      const created = await writer.categories.create({
        name: "News",
        slug: "sdk-news",
        description: "All the news",
      });
      expect(created.category).toEqual({
        id: expect.any(String),
        name: "News",
        slug: "sdk-news",
        description: "All the news",
      });

      const got = await reader.categories.get({ identifier: "sdk-news" });
      expect(got.category).toEqual({ ...created.category, count: { posts: 0 } });

      const updated = await writer.categories.update({
        identifier: created.category.id,
        body: { name: "World news", description: null },
      });
      expect(updated.category).toEqual({
        id: created.category.id,
        name: "World news",
        slug: "sdk-news",
        description: null,
      });

      const list = await reader.categories.list({ limit: 10, page: 1 });
      expect(list.result.categories.map((c) => c.slug)).toContain("sdk-news");

      expect(await writer.categories.delete({ identifier: created.category.id })).toEqual({
        id: created.category.id,
      });
      await expect(reader.categories.get({ identifier: "sdk-news" })).rejects.toBeInstanceOf(
        errors.NotFoundError,
      );
    });
  });

  describe("tags through the SDK", () => {
    it("create, get, list, update, delete", async () => {
      const created = await writer.tags.create({ name: "TypeScript", slug: "sdk-ts" });
      expect(created.tag).toEqual({
        id: expect.any(String),
        name: "TypeScript",
        slug: "sdk-ts",
        description: null,
      });

      const got = await reader.tags.get({ identifier: created.tag.id });
      expect(got.tag).toEqual({ ...created.tag, count: { posts: 0 } });

      const updated = await writer.tags.update({
        identifier: "sdk-ts",
        body: { slug: "sdk-typescript", description: "Types" },
      });
      expect(updated.tag).toEqual({
        id: created.tag.id,
        name: "TypeScript",
        slug: "sdk-typescript",
        description: "Types",
      });

      const list = await reader.tags.list({});
      expect(list.result.tags.map((t) => t.slug)).toContain("sdk-typescript");

      expect(await writer.tags.delete({ identifier: "sdk-typescript" })).toEqual({ id: created.tag.id });
    });
  });

  describe("authors through the SDK", () => {
    it("create, get, list, update, delete", async () => {
      const created = await writer.authors.create({
        name: "Ada",
        slug: "sdk-ada",
        bio: "Engineer",
        role: null,
        email: "ada@example.com",
        socials: [{ platform: "github", url: "https://github.com/ada" }],
      });
      expect(created.author).toEqual({
        id: expect.any(String),
        name: "Ada",
        slug: "sdk-ada",
        bio: "Engineer",
        role: null,
        image: null,
        socials: [{ platform: "github", url: "https://github.com/ada" }],
      });

      const got = await reader.authors.get({ identifier: "sdk-ada" });
      expect(got.author).toMatchObject({ id: created.author.id, slug: "sdk-ada", count: { posts: 0 } });

      const updated = await writer.authors.update({
        identifier: created.author.id,
        body: { role: "Editor", socials: [] },
      });
      expect(updated.author).toMatchObject({ id: created.author.id, role: "Editor", socials: [] });

      const list = await reader.authors.list({ limit: 5 });
      expect(list.result.authors.map((a) => a.slug)).toContain("sdk-ada");

      expect(await writer.authors.delete({ identifier: "sdk-ada" })).toEqual({ id: created.author.id });
    });
  });

  describe("posts through the SDK", () => {
    let categoryId: string;
    let tagId: string;
    let authorId: string;
    beforeAll(async () => {
      categoryId = (await writer.categories.create({ name: "Guides", slug: "guides" })).category.id;
      tagId = (await writer.tags.create({ name: "JS", slug: "js" })).tag.id;
      authorId = (await writer.authors.create({ name: "Bo", slug: "bo" })).author.id;
    });

    it("create, get, update, delete", async () => {
      const created = await writer.posts.create({
        title: "From the SDK",
        content: "<p>Hello from the SDK</p>",
        description: "Made by @usemarble/sdk",
        slug: "from-sdk",
        categoryId,
        status: "draft",
        tags: [tagId],
        authors: [authorId],
        publishedAt: new Date(day(40)),
      });
      expect(created.post).toEqual({
        id: expect.any(String),
        slug: "from-sdk",
        title: "From the SDK",
        status: "draft",
        featured: false,
        publishedAt: day(40),
        createdAt: expect.any(String),
      });

      const draft = await writer.posts.get({ identifier: "from-sdk", status: "all" });
      expect(draft.post).toMatchObject({
        id: created.post.id,
        status: "draft",
        fields: {},
        tags: [{ slug: "js" }],
        authors: [{ slug: "bo" }],
      });
      expect(draft.post.publishedAt).toEqual(new Date(day(40)));
      await expect(reader.posts.get({ identifier: "from-sdk" })).rejects.toBeInstanceOf(errors.NotFoundError);

      const published = await writer.posts.update({
        identifier: created.post.id,
        body: { status: "published", title: "Published by the SDK" },
      });
      expect(published.post).toMatchObject({
        id: created.post.id,
        status: "published",
        title: "Published by the SDK",
        updatedAt: expect.any(String),
      });

      const read = await reader.posts.get({ identifier: "from-sdk", format: "markdown" });
      expect(read.post).toMatchObject({ title: "Published by the SDK", content: "Hello from the SDK" });

      expect(await writer.posts.delete({ identifier: "from-sdk" })).toEqual({ id: created.post.id });
      await expect(writer.posts.get({ identifier: created.post.id, status: "all" })).rejects.toBeInstanceOf(
        errors.NotFoundError,
      );
    });

    it("maps the contract's errors to the SDK's error classes", async () => {
      const body = {
        title: "T",
        content: "<p>c</p>",
        description: "d",
        slug: "sdk-errors",
        categoryId,
        status: "published",
      } as const;
      await expect(reader.posts.create(body)).rejects.toBeInstanceOf(errors.ForbiddenError);
      await writer.posts.create(body);
      await expect(writer.posts.create(body)).rejects.toBeInstanceOf(errors.ConflictError);
      await expect(
        writer.posts.create({ ...body, slug: "other", categoryId: "missing" }),
      ).rejects.toBeInstanceOf(errors.ErrorT);
    });

    it("pages through a filtered list with the pager, with no validation error", async () => {
      for (let n = 1; n <= 5; n++) {
        await writer.posts.create({
          title: `Paged ${n}`,
          content: `<p>Paged post ${n}</p>`,
          description: "Paged",
          slug: `paged-${n}`,
          categoryId,
          status: "published",
          featured: n % 2 === 1,
          tags: [tagId],
          publishedAt: new Date(day(n)),
        });
      }
      const pages = await allPages(
        await reader.posts.list({
          limit: 2,
          tags: ["js"],
          excludeCategories: ["none"],
          order: "asc",
          format: "html",
        }),
      );
      expect(pages.map((page) => page.result.pagination)).toEqual([
        { limit: 2, currentPage: 1, nextPage: 2, previousPage: null, totalPages: 3, totalItems: 5 },
        { limit: 2, currentPage: 2, nextPage: 3, previousPage: 1, totalPages: 3, totalItems: 5 },
        { limit: 2, currentPage: 3, nextPage: null, previousPage: 2, totalPages: 3, totalItems: 5 },
      ]);
      expect(pages.flatMap((page) => page.result.posts.map((p) => p.slug))).toEqual([
        "paged-1",
        "paged-2",
        "paged-3",
        "paged-4",
        "paged-5",
      ]);

      const featured = await allPages(
        await reader.posts.list({ limit: 1, featured: "true", categories: ["guides"], tags: ["js"] }),
      );
      expect(featured.flatMap((page) => page.result.posts.map((p) => p.slug))).toEqual([
        "paged-5",
        "paged-3",
        "paged-1",
      ]);
    });

    it("pages through categories, tags and authors", async () => {
      for (const n of [1, 2, 3]) {
        await writer.categories.create({ name: `Cat ${n}`, slug: `cat-${n}` });
        await writer.tags.create({ name: `Tag ${n}`, slug: `tag-${n}` });
        await writer.authors.create({ name: `Author ${n}`, slug: `author-${n}` });
      }
      const categories = await allPages(await reader.categories.list({ limit: 2 }));
      const tags = await allPages(await reader.tags.list({ limit: 2 }));
      const authors = await allPages(await reader.authors.list({ limit: 2 }));
      expect(categories.flatMap((p) => p.result.categories)).toHaveLength(
        categories[0]?.result.pagination.totalItems ?? -1,
      );
      expect(tags.flatMap((p) => p.result.tags)).toHaveLength(tags[0]?.result.pagination.totalItems ?? -1);
      expect(authors.flatMap((p) => p.result.authors)).toHaveLength(
        authors[0]?.result.pagination.totalItems ?? -1,
      );
      expect(categories.length).toBeGreaterThan(1);
    });

    it("an empty list ends the pager after one page", async () => {
      const pages = await allPages(await reader.posts.list({ query: "nothing-matches-this" }));
      expect(pages.map((page) => page.result)).toEqual([
        {
          posts: [],
          pagination: {
            limit: 10,
            currentPage: 1,
            nextPage: null,
            previousPage: null,
            totalPages: 0,
            totalItems: 0,
          },
        },
      ]);
    });
  });
});
