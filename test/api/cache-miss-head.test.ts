// A list the response cache holds nothing for (CACHE=memory) reads the change log head in its page's own
// statement (`headInAnswer` in the route table, AnswerHead in src/graphql/context.ts): the miss costs no
// statement more than an uncached read, and the answer is stored under the head its content is at.
// Never stale all the same: the next read after a write misses and shows it; a search, whose first
// statement is the text match, reads the head before it.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { logHeadExpression } from "../../src/content/changes/change-log.ts";
import { ONE_STATEMENT_PAGE_SIZES } from "../../src/graphql/read-model/post-rows.ts";
import { restFixtures } from "../helpers/rest-fixtures.ts";
import { startTestApp, type TestApp, type TestWorkspace } from "../helpers/test-app.ts";

const HEAD_STATEMENT = `SELECT ${logHeadExpression("$1")} AS head`;
/** Whether a statement reads the head, whatever its placeholder's number. */
const readsHead = (sql: string) => sql.includes(logHeadExpression("$").replace(/\$\)$/, ""));

let app: TestApp;
let ws: TestWorkspace;
let categoryId: string;
let recording: string[] | null = null;

beforeAll(async () => {
  app = await startTestApp({ env: { CACHE: "memory" }, onQuery: (sql) => recording?.push(sql) });
  ws = await app.workspace("Head in answer");
  const f = restFixtures(app, ws.privateKey);
  categoryId = (await f.category("head-news")).id;
  for (const slug of ["first-body", "second-body"]) await f.post({ slug, categoryId, status: "published" });
  // The key's lookup is cached from here on: the statements below are the reads' own.
  await app.request("GET", "/v1/categories", { key: ws.publicKey });
});
afterAll(() => app?.close());

/** A read and the statements it made. */
async function read(path: string) {
  recording = [];
  try {
    const res = await app.request("GET", path, { key: ws.publicKey });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return { body: res.body, cache: res.headers.get("x-cache"), statements: recording };
  } finally {
    recording = null;
  }
}

const slugsOf = (body: { posts: { slug: string }[] }) => body.posts.map((post) => post.slug);

describe("a list miss with the head in its page statement", () => {
  it("makes the uncached read's one statement, which reads the head, and is then a hit", async () => {
    const miss = await read("/v1/posts?limit=5");
    expect(miss.cache).toBe("MISS");
    expect(miss.statements, miss.statements.join("\n---\n")).toHaveLength(1);
    expect(readsHead(miss.statements[0] ?? "")).toBe(true);
    expect(miss.statements).not.toContain(HEAD_STATEMENT);
    expect(slugsOf(miss.body)).toEqual(["second-body", "first-body"]);

    const hit = await read("/v1/posts?limit=5");
    expect(hit.cache).toBe("HIT");
    // Its one statement is the head's; on the embedded store, which only this process writes, not even
    // that once the head is known (src/content/changes/tracked-log-head.ts).
    expect(hit.statements).toEqual(app.db.kind === "postgres" ? [HEAD_STATEMENT] : []);
    expect(hit.body).toEqual(miss.body);
  });

  it("of a page size read in two statements (src/graphql/post-rows.ts), reads the head in the first", async () => {
    expect(ONE_STATEMENT_PAGE_SIZES.has(3)).toBe(false);
    const miss = await read("/v1/posts?limit=3");
    expect(miss.cache).toBe("MISS");
    expect(miss.statements, miss.statements.join("\n---\n")).toHaveLength(2);
    expect(readsHead(miss.statements[0] ?? "")).toBe(true);
    expect(readsHead(miss.statements[1] ?? "")).toBe(false);
    expect(slugsOf(miss.body)).toEqual(["second-body", "first-body"]);
    expect((await read("/v1/posts?limit=3")).cache).toBe("HIT");
  });

  it("misses on the very next read after a write, shows it, and is a hit again after that", async () => {
    await read("/v1/posts?limit=5");
    const f = restFixtures(app, ws.privateKey);
    await f.post({ slug: "third-body", categoryId, status: "published" });
    const next = await read("/v1/posts?limit=5");
    expect(next.cache).toBe("MISS");
    expect(slugsOf(next.body)).toEqual(["third-body", "second-body", "first-body"]);
    const again = await read("/v1/posts?limit=5");
    expect(again.cache).toBe("HIT");
    expect(again.body).toEqual(next.body);
  });

  it("reads the head before a search's text match, the search's first statement", async () => {
    const miss = await read("/v1/posts?query=body");
    expect(miss.cache).toBe("MISS");
    expect(miss.statements[0]).toBe(HEAD_STATEMENT);
    expect(miss.statements.slice(1).some(readsHead)).toBe(false);
    expect(slugsOf(miss.body)).toHaveLength(3);
    const hit = await read("/v1/posts?query=body");
    expect(hit.cache).toBe("HIT");
    expect(hit.body).toEqual(miss.body);
  });

  it("keeps reading the head first for routes whose operation does not read it (a single post)", async () => {
    const miss = await read("/v1/posts/first-body");
    expect(miss.cache).toBe("MISS");
    expect(miss.statements.filter((sql) => sql !== HEAD_STATEMENT).some(readsHead)).toBe(false);
    // Read before the operation's statements (embedded: kept from an earlier read, no statement).
    if (app.db.kind === "postgres") expect(miss.statements[0]).toBe(HEAD_STATEMENT);
    else expect(miss.statements).not.toContain(HEAD_STATEMENT);
    expect((await read("/v1/posts/first-body")).cache).toBe("HIT");
  });

  it("after a write, a hit the write left makes no statement where this process is the only writer", async () => {
    const f = restFixtures(app, ws.privateKey);
    await f.post({ slug: "a-draft", categoryId, status: "draft" });
    expect((await read("/v1/posts/first-body")).cache).toBe("HIT");
    const saved = await app.request("PATCH", "/v1/posts/a-draft", {
      key: ws.privateKey,
      body: { title: "Saved" },
    });
    expect(saved.status).toBe(200);
    // The write handed its events to the change index and its head to the kept one after COMMIT
    // (src/app/services.ts): neither is read back. On PostgreSQL, the head, and the events it is missing.
    const hit = await read("/v1/posts/first-body");
    expect(hit.cache).toBe("HIT");
    if (app.db.kind === "postgres") expect(hit.statements[0]).toBe(HEAD_STATEMENT);
    else expect(hit.statements).toEqual([]);
    // An edit of the post itself: the next read misses and shows it.
    await app.request("PATCH", "/v1/posts/first-body", { key: ws.privateKey, body: { title: "Edited" } });
    const edited = await read("/v1/posts/first-body");
    expect(edited.cache).toBe("MISS");
    expect((edited.body as { post: { title: string } }).post.title).toBe("Edited");
  });
});
