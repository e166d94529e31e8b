// The change feed, /v1/changes: a mirror kept by reading it equals a fresh full listing — for a public
// and a private key, after random sequences of writes (creates, updates, publishes, unpublishes,
// deletes, renames of tags, categories and authors) — and its cursors behave like the log's.
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { restFixtures } from "../helpers/rest-fixtures.ts";
import { startTestApp, type TestApp, type TestWorkspace } from "../helpers/test-app.ts";

const SEED = Number(process.env.FUZZ_SEED ?? 20);
const RUNS = Number(process.env.FUZZ_RUNS ?? 100);

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(() => app?.close());

type Entry =
  | { op: "upsert"; type: string; id: string; data: Record<string, unknown> }
  | { op: "delete"; type: string; id: string; slug: string | null; removedAt: string };

class Mirror {
  readonly records = new Map<string, Record<string, unknown>>();
  /** Every post any entry named, upsert or delete. */
  readonly postsNamed = new Set<string>();
  cursor: string | null = null;

  constructor(
    private readonly key: string,
    private readonly limit = 7,
  ) {}

  async sync(): Promise<void> {
    const limit = this.limit;
    for (;;) {
      const since = this.cursor ? `&since=${this.cursor}` : "";
      const res = await app.request("GET", `/v1/changes?limit=${limit}${since}`, { key: this.key });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.changes.length).toBeLessThanOrEqual(limit);
      for (const entry of res.body.changes as Entry[]) {
        if (entry.type === "post") this.postsNamed.add(entry.id);
        if (entry.op === "upsert") this.records.set(`${entry.type}:${entry.id}`, entry.data);
        else this.records.delete(`${entry.type}:${entry.id}`);
      }
      this.cursor = res.body.nextCursor;
      if (!res.body.hasMore) return;
    }
  }
}

/** Every record the key can list now, each as its single GET answers it. */
async function fullListing(key: string, isPrivate: boolean): Promise<Map<string, Record<string, unknown>>> {
  const records = new Map<string, Record<string, unknown>>();
  const kinds = [
    ["post", "posts", isPrivate ? "&status=all" : ""],
    ["category", "categories", ""],
    ["tag", "tags", ""],
    ["author", "authors", ""],
  ] as const;
  for (const [type, path, extra] of kinds) {
    const list = await app.request("GET", `/v1/${path}?limit=100${extra}`, { key });
    expect(list.status).toBe(200);
    for (const item of list.body[path] as { id: string }[]) {
      const one = await app.request(
        "GET",
        `/v1/${path}/${item.id}${type === "post" && isPrivate ? "?status=all" : ""}`,
        {
          key,
        },
      );
      records.set(`${type}:${item.id}`, one.body[type]);
    }
  }
  return records;
}

/** The posts whose copy in some event of the log was published (no post here is dated ahead). */
async function postsEverPublic(privateKey: string): Promise<Set<string>> {
  const ids = new Set<string>();
  let after = "";
  for (;;) {
    const res = await app.request("GET", `/v1/events?limit=100${after}`, { key: privateKey });
    expect(res.status).toBe(200);
    for (const event of res.body.events as { type: string; resourceId: string; data: { status?: string } }[])
      if (event.type.startsWith("post.") && event.data.status === "published") ids.add(event.resourceId);
    if (!res.body.hasMore) return ids;
    after = `&after=${res.body.nextCursor}`;
  }
}

type Op =
  | { kind: "tag" | "category" | "author"; action: "create" | "rename" | "delete"; n: number }
  | {
      kind: "post";
      action: "create" | "edit" | "publish" | "unpublish" | "move" | "retag" | "delete";
      n: number;
      m: number;
      k: number;
    };

// Few names, so that most steps meet records that exist (and renames reach posts that embed them).
const SMALL = fc.integer({ min: 0, max: 2 });
const opArbitrary: fc.Arbitrary<Op> = fc.oneof(
  fc.record({
    kind: fc.constantFrom("tag" as const, "category" as const, "author" as const),
    action: fc.constantFrom("create" as const, "rename" as const, "delete" as const),
    n: SMALL,
  }),
  fc.record({
    kind: fc.constant("post" as const),
    action: fc.constantFrom(
      "create" as const,
      "edit" as const,
      "publish" as const,
      "unpublish" as const,
      "move" as const,
      "retag" as const,
      "delete" as const,
    ),
    n: SMALL,
    m: SMALL,
    k: SMALL,
  }),
);

/** Applies one write; a write the API refuses (a missing record, a category in use) changes nothing. */
async function apply(ws: TestWorkspace, prefix: string, op: Op, version: number): Promise<void> {
  const key = ws.privateKey;
  const send = (method: string, path: string, body?: unknown) => app.request(method, path, { key, body });
  const slug = (kind: string, n: number) => `${prefix}-${kind}-${n}`;
  if (op.kind !== "post") {
    const path = op.kind === "category" ? "categories" : `${op.kind}s`;
    if (op.action === "create")
      await send("POST", `/v1/${path}`, { name: `${op.kind} ${op.n}`, slug: slug(op.kind, op.n) });
    else if (op.action === "rename")
      await send("PATCH", `/v1/${path}/${slug(op.kind, op.n)}`, { name: `${op.kind} ${op.n} v${version}` });
    else await send("DELETE", `/v1/${path}/${slug(op.kind, op.n)}`);
    return;
  }
  const post = `/v1/posts/${slug("post", op.n)}`;
  const category = async (m: number) => {
    const found = await send("GET", `/v1/categories/${slug("category", m)}`);
    return found.status === 200 ? (found.body.category.id as string) : null;
  };
  const ids = async (kind: "tags" | "authors", singular: string, from: number) => {
    const out: string[] = [];
    for (const n of [from, (from + 1) % 3]) {
      const found = await send("GET", `/v1/${kind}/${slug(singular, n)}`);
      if (found.status === 200) out.push(found.body[singular].id);
    }
    return out;
  };
  switch (op.action) {
    case "create": {
      const categoryId = await category(op.m);
      if (!categoryId) return;
      await send("POST", "/v1/posts", {
        title: `Post ${op.n}`,
        slug: slug("post", op.n),
        content: `<p>Body ${op.n}</p>`,
        description: "d",
        categoryId,
        tags: await ids("tags", "tag", op.k),
        authors: await ids("authors", "author", op.m),
        status: op.k % 2 === 0 ? "published" : "draft",
      });
      return;
    }
    case "edit":
      await send("PATCH", `${post}?status=all`, { title: `Post ${op.n} v${version}` });
      return;
    case "publish":
    case "unpublish":
      await send("PATCH", post, { status: op.action === "publish" ? "published" : "draft" });
      return;
    case "move": {
      const categoryId = await category(op.m);
      if (categoryId) await send("PATCH", post, { categoryId });
      return;
    }
    case "retag":
      await send("PATCH", post, {
        tags: await ids("tags", "tag", op.k),
        authors: await ids("authors", "author", op.m),
      });
      return;
    case "delete":
      await send("DELETE", post);
      return;
  }
}

describe("a mirror kept with /v1/changes equals a fresh full listing", () => {
  it("for a public and a private key, after random sequences of writes", async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(opArbitrary, { minLength: 4, maxLength: 24 }), async (ops) => {
        run += 1;
        const ws = await app.workspace(`Feed ${run}`);
        // Small pages too: a page stops inside the records one event implies, and resumes there.
        const mirrors = [
          { mirror: new Mirror(ws.publicKey), key: ws.publicKey, isPrivate: false },
          { mirror: new Mirror(ws.privateKey), key: ws.privateKey, isPrivate: true },
          { mirror: new Mirror(ws.publicKey, 1), key: ws.publicKey, isPrivate: false },
          { mirror: new Mirror(ws.privateKey, 2), key: ws.privateKey, isPrivate: true },
        ];
        // A base to write on (two of each kind, posts linked to them, one published, one draft), then
        // the random steps; the mirrors sync every few steps.
        for (const n of [0, 1])
          for (const kind of ["category", "tag", "author"] as const)
            await apply(ws, `r${run}`, { kind, action: "create", n }, 0);
        for (const n of [0, 1])
          await apply(ws, `r${run}`, { kind: "post", action: "create", n, m: n, k: n }, 0);
        for (const [index, op] of ops.entries()) {
          await apply(ws, `r${run}`, op, index);
          if (index % 4 === 0) for (const { mirror } of mirrors) await mirror.sync();
        }
        for (const { mirror, key, isPrivate } of mirrors) {
          await mirror.sync();
          expect(Object.fromEntries(mirror.records)).toEqual(
            Object.fromEntries(await fullListing(key, isPrivate)),
          );
        }
        // A public key heard only of posts that were public at some point (the log's copies say when).
        const everPublic = await postsEverPublic(ws.privateKey);
        for (const { mirror, isPrivate } of mirrors)
          if (!isPrivate) for (const id of mirror.postsNamed) expect(everPublic).toContain(id);
      }),
      { seed: SEED, numRuns: Math.max(5, Math.round(RUNS / 5)) },
    );
  }, 240_000);
});

describe("the feed's cursors", () => {
  it("an empty delta answers nothing and the same position; drafts stay out of a public feed", async () => {
    const ws = await app.workspace("Feed cursors");
    const f = restFixtures(app, ws.privateKey);
    const category = await f.category("c");
    await f.post({ slug: "draft-only", categoryId: category.id, status: "draft" });
    const first = await app.request("GET", "/v1/changes", { key: ws.publicKey });
    expect(first.body.changes.map((e: Entry) => e.type)).toEqual(["category"]);
    expect(first.body.hasMore).toBe(false);
    const empty = await app.request("GET", `/v1/changes?since=${first.body.nextCursor}`, {
      key: ws.publicKey,
    });
    expect(empty.body).toMatchObject({ changes: [], hasMore: false });
    const again = await app.request("GET", `/v1/changes?since=${empty.body.nextCursor}`, {
      key: ws.publicKey,
    });
    expect(again.body.changes).toEqual([]);
  });

  it("refuses a cursor of another key kind, another workspace, or another set of types", async () => {
    const ws = await app.workspace("Feed scope");
    const other = await app.workspace("Feed scope other");
    const cursor = (await app.request("GET", "/v1/changes", { key: ws.publicKey })).body.nextCursor;
    for (const [key, query] of [
      [ws.privateKey, ""],
      [other.publicKey, ""],
      [ws.publicKey, "&types=posts"],
    ] as const) {
      const res = await app.request("GET", `/v1/changes?since=${cursor}${query}`, { key });
      expect(res.status).toBe(400);
    }
    expect((await app.request("GET", "/v1/changes?since=garbage", { key: ws.publicKey })).status).toBe(400);
    expect((await app.request("GET", "/v1/changes?types=pages", { key: ws.publicKey })).status).toBe(400);
  });

  it("serves markdown bodies with format=markdown", async () => {
    const ws = await app.workspace("Feed markdown");
    const f = restFixtures(app, ws.privateKey);
    const category = await f.category("md");
    await f.post({
      slug: "md-post",
      categoryId: category.id,
      content: "<p>Hello <strong>world</strong></p>",
    });
    const res = await app.request("GET", "/v1/changes?types=posts&format=markdown", { key: ws.publicKey });
    expect(res.body.changes[0].data.content).toBe("Hello **world**");
  });
});

describe("a locale's feed (?locale=)", () => {
  it("serves each post as that translation shows it, from the changes that concern it, with its own cursors", async () => {
    const ws = await app.workspace("Feed locale");
    const f = restFixtures(app, ws.privateKey);
    for (const code of ["de", "fr"])
      expect((await app.request("POST", "/v1/locales", { key: ws.privateKey, body: { code } })).status).toBe(
        201,
      );
    const category = await f.category("welt");
    const german = {
      title: "Hallo",
      slug: "hallo",
      description: "d",
      content: "<p>x</p>",
      status: "published",
    };
    const both = await f.post({ slug: "both", categoryId: category.id });
    const englishOnly = await f.post({ slug: "english-only", categoryId: category.id });
    const patch = (id: string, body: Record<string, unknown>, query = "") =>
      app.request("PATCH", `/v1/posts/${id}${query}`, { key: ws.privateKey, body });
    expect((await patch(both.id, german, "?locale=de")).status).toBe(200);
    const posts = async (query: string, since?: string) => {
      const res = await app.request(
        "GET",
        `/v1/changes?types=posts${query}${since ? `&since=${since}` : ""}`,
        {
          key: ws.publicKey,
        },
      );
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return res.body as { changes: Entry[]; nextCursor: string };
    };
    const view = (page: { changes: Entry[] }) =>
      page.changes.map((entry) =>
        entry.op === "upsert"
          ? `${entry.id === both.id ? "both" : "english-only"}:${entry.data.slug}:${entry.data.locale}`
          : entry.op,
      );

    // The listing: German translations in German; the default's posts as before, without `locale`.
    const de = await posts("&locale=de");
    expect(view(de)).toEqual(["both:hallo:de"]);
    const plain = await posts("");
    expect(view(plain).sort()).toEqual(["both:both:undefined", "english-only:english-only:undefined"]);
    expect(view(await posts("&locale=en")).sort()).toEqual(["both:both:en", "english-only:english-only:en"]);

    // Then the log: a German write reaches the German feed only, an English-only write the English feed
    // only, a shared field's change both.
    await patch(both.id, { title: "Hallo wieder" }, "?locale=de");
    await patch(englishOnly.id, { title: "Hello again" });
    expect(view(await posts("&locale=de", de.nextCursor))).toEqual(["both:hallo:de"]);
    expect(view(await posts("", plain.nextCursor))).toEqual(["english-only:english-only:undefined"]);
    await patch(both.id, { featured: true });
    const shared = await posts("&locale=de", de.nextCursor);
    expect(shared.changes).toEqual([
      expect.objectContaining({ data: expect.objectContaining({ featured: true }) }),
    ]);
    // Unpublishing the German translation is a tombstone with the slug it was public under in German.
    await patch(both.id, { status: "draft" }, "?locale=de");
    const gone = await posts("&locale=de", shared.nextCursor);
    expect(gone.changes).toEqual([expect.objectContaining({ op: "delete", id: both.id, slug: "hallo" })]);

    // A cursor belongs to its locale's feed.
    expect(
      (await app.request("GET", `/v1/changes?types=posts&since=${de.nextCursor}`, { key: ws.publicKey }))
        .status,
    ).toBe(400);
    expect(
      (
        await app.request("GET", `/v1/changes?types=posts&locale=fr&since=${de.nextCursor}`, {
          key: ws.publicKey,
        })
      ).status,
    ).toBe(400);
  });

  it("refuses a malformed or unknown locale with a 400 naming `locale`, on /v1/changes and /v1/events", async () => {
    const ws = await app.workspace("Feed locale refusals");
    for (const [path, key] of [
      ["/v1/changes", ws.publicKey],
      ["/v1/events", ws.privateKey],
    ] as const)
      for (const [locale, message] of [
        ["not_a_locale!", /not a valid locale code/],
        ["it", /"it" is not a locale of this workspace/],
      ] as const) {
        const res = await app.request("GET", `${path}?locale=${encodeURIComponent(locale)}`, { key });
        expect(res.status, `${path} ${locale}`).toBe(400);
        expect(res.body.details).toEqual([{ field: "locale", message: expect.stringMatching(message) }]);
      }
  });
});
