// Authors: queries (by id or slug, the page list by name, the published-post count, e-mail only for
// private keys) and mutations (create, update with socials replaced, delete, validation).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp, type TestWorkspace } from "../helpers/test-app.ts";
import { type GraphQLClient, graphqlClient, graphqlFixtures, isoDate } from "./support/graphql.ts";

let app: TestApp;
let ws: TestWorkspace;
let reader: GraphQLClient;
let writer: GraphQLClient;
const ids: Record<string, string> = {};

const FIELDS = "id name slug image bio role email socials { platform url }";
const CREATE = `mutation($input: CreateAuthorInput!) { createAuthor(input: $input) { ${FIELDS} } }`;
const UPDATE = `mutation($id: String!, $input: UpdateAuthorInput!) { updateAuthor(identifier: $id, input: $input) { ${FIELDS} } }`;
const DELETE = "mutation($id: String!) { deleteAuthor(identifier: $id) { id } }";

const SLUG_RULE = "Must be 1-200 lowercase letters, digits, and single hyphens or underscores between them";

beforeAll(async () => {
  app = await startTestApp();
  ws = await app.workspace("Blog");
  reader = graphqlClient(app, ws.publicKey);
  writer = graphqlClient(app, ws.privateKey);
  const f = graphqlFixtures(writer);
  const zoe = await f.author("zoe", {
    name: "Zoe Writer",
    bio: "Writes things",
    role: "Editor",
    email: "zoe@example.com",
    image: "https://cdn.example.com/zoe.png",
    socials: [
      { platform: "github", url: "https://github.com/zoe" },
      { platform: "x", url: "https://x.com/zoe" },
    ],
  });
  const adam = await f.author("adam", { name: "Adam Author" });
  const category = await f.category("news");
  Object.assign(ids, { zoe: zoe.id, adam: adam.id, news: category.id });
  await f.post({ slug: "p1", categoryId: category.id, authors: [zoe.id, adam.id] });
  await f.post({ slug: "p2", categoryId: category.id, authors: [zoe.id] });
  await f.post({ slug: "p3", categoryId: category.id, authors: [zoe.id], status: "DRAFT" });
});
afterAll(async () => app?.close());

describe("author(identifier)", () => {
  const QUERY = `query($id: String!) { author(identifier: $id) { ${FIELDS} createdAt updatedAt count { posts } } }`;

  it("reads an author by id and by slug with socials and the count of published posts", async () => {
    const expected = {
      id: ids.zoe,
      name: "Zoe Writer",
      slug: "zoe",
      image: "https://cdn.example.com/zoe.png",
      bio: "Writes things",
      role: "Editor",
      email: "zoe@example.com",
      socials: [
        { platform: "github", url: "https://github.com/zoe" },
        { platform: "x", url: "https://x.com/zoe" },
      ],
      createdAt: isoDate,
      updatedAt: isoDate,
      count: { posts: 2 },
    };
    expect((await writer.ok(QUERY, { id: ids.zoe })).author).toEqual(expected);
    expect((await writer.ok(QUERY, { id: "zoe" })).author).toEqual(expected);
  });

  it("hides the e-mail address from public keys", async () => {
    expect((await reader.ok(QUERY, { id: "zoe" })).author.email).toBeNull();
  });

  it("answers NOT_FOUND for an unknown author", async () => {
    const error = await reader.fails(QUERY, { id: "nobody" });
    expect(error.message).toBe('Author "nobody" does not exist in this workspace');
    expect(error.extensions).toEqual({ code: "NOT_FOUND", http: { status: 404 }, resource: "Author" });
  });
});

describe("authors list", () => {
  it("lists authors by name with their published post counts and the pagination numbers", async () => {
    const data = await reader.ok(`{ authors { items { slug name count { posts } }
      pagination { limit currentPage nextPage previousPage totalPages totalItems } } }`);
    expect(data.authors).toEqual({
      items: [
        { slug: "adam", name: "Adam Author", count: { posts: 1 } },
        { slug: "zoe", name: "Zoe Writer", count: { posts: 2 } },
      ],
      pagination: {
        limit: 10,
        currentPage: 1,
        nextPage: null,
        previousPage: null,
        totalPages: 1,
        totalItems: 2,
      },
    });
  });

  it("paginates and refuses a page past the last", async () => {
    const query =
      "query($page: Int) { authors(limit: 1, page: $page) { items { slug } pagination { currentPage nextPage previousPage } } }";
    expect((await reader.ok(query, { page: 2 })).authors).toEqual({
      items: [{ slug: "zoe" }],
      pagination: { currentPage: 2, nextPage: null, previousPage: 1 },
    });
    const error = await reader.fails(query, { page: 3 });
    expect(error.extensions).toEqual({
      code: "PAGE_OUT_OF_RANGE",
      http: { status: 400 },
      requestedPage: 3,
      totalPages: 2,
    });
  });
});

describe("createAuthor", () => {
  it("creates an author with only name and slug: the rest null, socials empty", async () => {
    const data = await writer.ok(CREATE, { input: { name: "Minimal", slug: "minimal" } });
    expect(data.createAuthor).toEqual({
      id: expect.any(String),
      name: "Minimal",
      slug: "minimal",
      image: null,
      bio: null,
      role: null,
      email: null,
      socials: [],
    });
  });

  it("answers CONFLICT for a slug in use", async () => {
    const error = await writer.fails(CREATE, { input: { name: "Other Zoe", slug: "zoe" } });
    expect(error.extensions).toEqual({
      code: "CONFLICT",
      http: { status: 409 },
      details: [
        {
          field: "slug",
          message: "This slug is already used by another record of this kind in the workspace",
        },
      ],
    });
  });

  it("names each invalid field: name, slug, e-mail, image URL, social platform and URL", async () => {
    const error = await writer.fails(CREATE, {
      input: {
        name: "",
        slug: "Bad Slug",
        email: "not-an-email",
        image: "javascript:alert(1)",
        socials: [
          { platform: "myspace", url: "https://myspace.com/x" },
          { platform: "github", url: "not a url" },
        ],
      },
    });
    expect(error.message).toBe("Invalid author");
    expect(error.extensions).toEqual({
      code: "BAD_USER_INPUT",
      http: { status: 400 },
      details: [
        { field: "name", message: "Must be at least 1 character" },
        { field: "slug", message: SLUG_RULE },
        { field: "email", message: "Must be an e-mail address" },
        { field: "image", message: "Must be an absolute http(s) URL" },
        {
          field: "socials.0.platform",
          message:
            "Must be one of: x, twitter, github, facebook, instagram, youtube, tiktok, linkedin, website, onlyfans, discord, bluesky",
        },
        { field: "socials.1.url", message: "Must be an absolute http(s) URL" },
      ],
    });
  });
});

describe("updateAuthor", () => {
  it("changes only the given fields", async () => {
    const created = (
      await writer.ok(CREATE, { input: { name: "Before", slug: "before", bio: "Bio", role: "Role" } })
    ).createAuthor;
    const updated = (await writer.ok(UPDATE, { id: created.id, input: { name: "After" } })).updateAuthor;
    expect(updated).toEqual({ ...created, name: "After" });
  });

  it("replaces the whole socials list when given, keeps it when not, and clears it with []", async () => {
    const created = (
      await writer.ok(CREATE, {
        input: {
          name: "Social",
          slug: "social",
          socials: [
            { platform: "github", url: "https://github.com/s" },
            { platform: "x", url: "https://x.com/s" },
          ],
        },
      })
    ).createAuthor;
    const replaced = (
      await writer.ok(UPDATE, {
        id: created.id,
        input: { socials: [{ platform: "bluesky", url: "https://bsky.app/s" }] },
      })
    ).updateAuthor;
    expect(replaced.socials).toEqual([{ platform: "bluesky", url: "https://bsky.app/s" }]);
    const kept = (await writer.ok(UPDATE, { id: "social", input: { role: "Guest" } })).updateAuthor;
    expect(kept).toEqual({ ...replaced, role: "Guest" });
    const cleared = (await writer.ok(UPDATE, { id: "social", input: { socials: [] } })).updateAuthor;
    expect(cleared.socials).toEqual([]);
  });

  it("clears optional fields with null", async () => {
    const created = (
      await writer.ok(CREATE, {
        input: {
          name: "Full",
          slug: "full",
          bio: "b",
          role: "r",
          email: "f@example.com",
          image: "https://cdn.example.com/f.png",
        },
      })
    ).createAuthor;
    const cleared = (
      await writer.ok(UPDATE, { id: created.id, input: { bio: null, role: null, email: null, image: null } })
    ).updateAuthor;
    expect(cleared).toEqual({ ...created, bio: null, role: null, email: null, image: null });
  });

  it("refuses null names and slugs, invalid values, another author's slug and unknown authors", async () => {
    const invalid = await writer.fails(UPDATE, {
      id: "adam",
      input: { name: null, slug: null, email: "nope" },
    });
    expect(invalid.extensions?.details).toEqual([
      { field: "email", message: "Must be an e-mail address" },
      { field: "name", message: "Cannot be null" },
      { field: "slug", message: "Cannot be null" },
    ]);
    expect((await writer.fails(UPDATE, { id: "adam", input: { slug: "zoe" } })).extensions?.code).toBe(
      "CONFLICT",
    );
    const missing = await writer.fails(UPDATE, { id: "nobody", input: { name: "X" } });
    expect(missing.extensions).toEqual({ code: "NOT_FOUND", http: { status: 404 }, resource: "Author" });
  });
});

describe("deleteAuthor", () => {
  it("deletes an author, removing them from their posts", async () => {
    const f = graphqlFixtures(writer);
    const author = await f.author("leaving");
    const post = await f.post({
      slug: "shared",
      categoryId: ids.news as string,
      authors: [author.id, ids.adam],
    });
    expect(await writer.ok(DELETE, { id: "leaving" })).toEqual({ deleteAuthor: { id: author.id } });
    const data = await writer.ok(`{ post(identifier: "${post.id}") { authors { slug } } }`);
    expect(data.post.authors).toEqual([{ slug: "adam" }]);
    expect((await writer.fails(DELETE, { id: author.id })).extensions?.code).toBe("NOT_FOUND");
  });
});
