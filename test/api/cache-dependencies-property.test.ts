// The cache's dependency rules (src/cache/answer-dependencies.ts), checked as a property over real
// instances: two service processes sharing one PostgreSQL and one Redis (CACHE=redis), and a third with
// CACHE=off as the truth. Random interleavings of every kind of content write (through either cached
// instance) and reads of every cached kind (through either, with either key kind) — every read must
// equal the same read made on the uncached instance at that moment. A rule removed from the dependency
// rules makes some interleaving serve an answer a write had changed (checked by sabotage: issue 38).
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { adminWorkspace, type Instance, instanceGroup } from "../helpers/server-instances.ts";
import { storageMode } from "../helpers/test-database.ts";
import { makeImage } from "../media/helpers/make-files.ts";

/** Runs of the property: each a fresh workspace and up to 24 steps, about a second each (CI stays fast). */
const RUNS = 40;
const redisUrl = process.env.REDIS_URL;

interface Workspace {
  publicKey: string;
  privateKey: string;
}

/** What the run has made so far: the targets writes and reads pick from (by index, modulo their count). */
interface Made {
  posts: { id: string; slug: string }[];
  categories: { id: string; slug: string }[];
  tags: { id: string; slug: string }[];
  authors: { id: string; slug: string }[];
  fields: { id: string; key: string }[];
  media: string[];
  serial: number;
}

const pick = <T>(items: readonly T[], n: number): T | undefined => items[n % Math.max(1, items.length)];

type Write =
  | { kind: "create"; n: number; published: boolean }
  | { kind: "edit"; n: number }
  | { kind: "publish"; n: number }
  | { kind: "unpublish"; n: number }
  | { kind: "schedule"; n: number }
  | { kind: "delete"; n: number }
  | { kind: "retag"; n: number; tags: number[] }
  | { kind: "recategorise"; n: number; category: number }
  | { kind: "rename"; resource: "tags" | "categories" | "authors"; n: number }
  /** Renames the category, a tag or an author that post `n` carries, right after its single reads. */
  | { kind: "rename-carried"; resource: "tags" | "categories" | "authors"; n: number }
  | { kind: "field-value"; n: number; field: number }
  | { kind: "field-definition"; action: "create" | "rename" | "delete"; n: number }
  | { kind: "media-delete"; n: number };

interface Read {
  kind: "read";
  /** Which of the reads (REST paths, GraphQL documents) and with which key, on which cached instance. */
  n: number;
  privateKey: boolean;
  onSecond: boolean;
}

const nat = fc.nat({ max: 50 });
const writeArbitrary: fc.Arbitrary<Write> = fc.oneof(
  fc.record({ kind: fc.constant("create" as const), n: nat, published: fc.boolean() }),
  fc.record({ kind: fc.constant("edit" as const), n: nat }),
  fc.record({ kind: fc.constant("publish" as const), n: nat }),
  fc.record({ kind: fc.constant("unpublish" as const), n: nat }),
  fc.record({ kind: fc.constant("schedule" as const), n: nat }),
  fc.record({ kind: fc.constant("delete" as const), n: nat }),
  fc.record({ kind: fc.constant("retag" as const), n: nat, tags: fc.array(nat, { maxLength: 3 }) }),
  fc.record({ kind: fc.constant("recategorise" as const), n: nat, category: nat }),
  fc.record({
    kind: fc.constant("rename" as const),
    resource: fc.constantFrom("tags" as const, "categories" as const, "authors" as const),
    n: nat,
  }),
  fc.record({
    kind: fc.constant("rename-carried" as const),
    resource: fc.constantFrom("tags" as const, "categories" as const, "authors" as const),
    n: nat,
  }),
  fc.record({ kind: fc.constant("field-value" as const), n: nat, field: nat }),
  fc.record({
    kind: fc.constant("field-definition" as const),
    action: fc.constantFrom("create" as const, "rename" as const, "delete" as const),
    n: nat,
  }),
  fc.record({ kind: fc.constant("media-delete" as const), n: nat }),
);
const readArbitrary: fc.Arbitrary<Read> = fc.record({
  kind: fc.constant("read" as const),
  n: fc.nat({ max: 1_000 }),
  privateKey: fc.boolean(),
  onSecond: fc.boolean(),
});
/** Reads twice as often as writes: answers get cached, then meet the writes. */
const steps = fc.array(
  fc.oneof({ arbitrary: readArbitrary, weight: 2 }, { arbitrary: writeArbitrary, weight: 1 }),
  {
    minLength: 8,
    maxLength: 24,
  },
);

const POSTS_DOCUMENT = `{ posts(limit: 20) { items { slug title status category { name count { posts } }
  tags { name } authors { name } fields } } }`;
const TAXONOMY_DOCUMENT = `{ categories(limit: 20) { items { slug name count { posts } } }
  tags(limit: 20) { items { slug name count { posts } } } }`;
const POST_DOCUMENT = `query One($id: String!) { post(identifier: $id) { slug title status fields
  category { name } tags { name } authors { name } } }`;
/** Lists of posts without counts or search: they depend on the records they hold and on the listings. */
const LISTING_DOCUMENT = `{ posts(limit: 5) { items { slug title featured publishedAt fields category { name }
  tags { name } } pagination { totalItems } } postsConnection(first: 3) { totalCount edges { cursor
  node { slug authors { name } } } } }`;
const SEARCH_DOCUMENT = `{ posts(query: "Edited", limit: 20) { items { slug title } } }`;
const FILTERED_LISTING_DOCUMENT = `query Filtered($category: String!, $tag: String!) {
  inCategory: posts(categories: [$category], limit: 5) { items { title } pagination { totalItems } }
  withTag: posts(tags: [$tag], limit: 5) { items { title tags { slug } } } }`;

/** Every read of a cached kind the run can make now: REST lists (filtered), singles, counts, GraphQL. */
function readsOf(
  made: Made,
): { rest?: string; graphql?: { query: string; variables?: object }; single?: boolean }[] {
  const category = pick(made.categories, made.serial);
  const tag = pick(made.tags, made.serial);
  return [
    { rest: "/v1/posts" },
    { rest: "/v1/posts?status=all" },
    ...(category
      ? [{ rest: `/v1/posts?categories=${category.slug}` }, { rest: `/v1/categories/${category.slug}` }]
      : []),
    ...(tag ? [{ rest: `/v1/posts?tags=${tag.slug}` }] : []),
    { rest: "/v1/posts?featured=true" },
    // A search: an edit of a post it did not hold can make it match ("Edited …") without moving a list.
    { rest: "/v1/posts?query=Edited" },
    { rest: "/v1/categories" },
    { rest: "/v1/tags" },
    { rest: "/v1/authors" },
    { rest: "/v1/fields" },
    { rest: "/v1/media" },
    ...made.posts.map((post) => ({ rest: `/v1/posts/${post.slug}`, single: true })),
    ...made.posts.map((post) => ({ rest: `/v1/posts/${post.id}?status=all`, single: true })),
    { graphql: { query: POSTS_DOCUMENT } },
    { graphql: { query: TAXONOMY_DOCUMENT } },
    ...made.posts.map((post) => ({
      graphql: { query: POST_DOCUMENT, variables: { id: post.slug } },
      single: true,
    })),
    { graphql: { query: LISTING_DOCUMENT } },
    { graphql: { query: SEARCH_DOCUMENT } },
    ...(category && tag
      ? [
          {
            graphql: {
              query: FILTERED_LISTING_DOCUMENT,
              variables: { category: category.slug, tag: tag.slug },
            },
          },
        ]
      : []),
  ];
}

describe.skipIf(storageMode !== "postgres" || !redisUrl)(
  "cached answers are invalidated by exactly the writes that can change them",
  { timeout: 600_000 },
  () => {
    const group = instanceGroup("cache-deps");
    let first: Instance;
    let second: Instance;
    let uncached: Instance;
    beforeAll(async () => {
      // One public URL for all three: media URLs in the bodies must not differ by port.
      const env = {
        RATE_LIMIT_AUTHENTICATED: "10000000",
        REDIS_URL: redisUrl ?? "",
        PUBLIC_URL: "http://127.0.0.1:8080",
      };
      // One after another: the first migrates the fresh schema.
      first = await group.start({ ...env, CACHE: "redis" });
      second = await group.start({ ...env, CACHE: "redis" });
      uncached = await group.start({ ...env, CACHE: "off" });
    }, 120_000);
    afterAll(() => group.stop());

    const call = async (instance: Instance, key: string, method: string, path: string, body?: unknown) => {
      const res = await fetch(`${instance.url}${path}`, {
        method,
        headers: {
          authorization: key,
          ...(body === undefined ? {} : { "content-type": "application/json" }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await res.text();
      return { status: res.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : null };
    };

    const created = async (
      instance: Instance,
      ws: Workspace,
      path: string,
      body: object,
      wrapper: string,
    ) => {
      const res = await call(instance, ws.privateKey, "POST", path, body);
      expect(res.status, `${path}: ${JSON.stringify(res.body)}`).toBe(201);
      return res.body?.[wrapper] as { id: string; slug: string; key: string };
    };

    async function uploadMedia(instance: Instance, ws: Workspace): Promise<string> {
      const form = new FormData();
      form.append(
        "file",
        new Blob([new Uint8Array(await makeImage("png", 8, 8))], { type: "image/png" }),
        "m.png",
      );
      const res = await fetch(`${instance.url}/v1/media/upload`, {
        method: "POST",
        headers: { authorization: ws.privateKey },
        body: form,
      });
      expect(res.status).toBe(201);
      return ((await res.json()) as { media: { id: string } }).media.id;
    }

    async function seed(ws: Workspace, run: number): Promise<Made> {
      const made: Made = {
        posts: [],
        categories: [],
        tags: [],
        authors: [],
        fields: [],
        media: [],
        serial: 0,
      };
      for (const slug of ["news", "guides"])
        made.categories.push(await created(first, ws, "/v1/categories", { name: slug, slug }, "category"));
      for (const slug of ["red", "green", "blue"])
        made.tags.push(await created(first, ws, "/v1/tags", { name: slug, slug }, "tag"));
      for (const slug of ["ann", "bob"])
        made.authors.push(await created(first, ws, "/v1/authors", { name: slug, slug }, "author"));
      const field = await created(
        first,
        ws,
        "/v1/fields",
        { key: "mood", name: "Mood", type: "text" },
        "field",
      );
      made.fields.push({ id: field.id, key: field.key });
      made.media.push(await uploadMedia(first, ws));
      for (const [n, status] of ["published", "published", "draft"].entries())
        await createPost(first, ws, made, { n: n + run, published: status === "published" });
      return made;
    }

    async function createPost(
      instance: Instance,
      ws: Workspace,
      made: Made,
      write: { n: number; published: boolean },
    ) {
      made.serial++;
      const slug = `post-${made.serial}`;
      const res = await call(instance, ws.privateKey, "POST", "/v1/posts", {
        title: `Post ${made.serial}`,
        slug,
        content: `<p>Body ${made.serial}</p>`,
        description: `About ${made.serial}`,
        status: write.published ? "published" : "draft",
        publishedAt: new Date(Date.UTC(2024, 0, 1 + made.serial)).toISOString(),
        categoryId: pick(made.categories, write.n)?.id,
        tags: made.tags.filter((_, i) => (write.n >> i) & 1).map((tag) => tag.id),
        authors: [pick(made.authors, write.n)?.id].filter(Boolean),
        featured: write.n % 2 === 0,
      });
      const id = (res.body?.post as { id?: string } | undefined)?.id;
      if (res.status === 201 && id) made.posts.push({ id, slug });
    }

    /** Makes the write through `instance`; a refused write (e.g. a category still in use) changes nothing. */
    async function makeWrite(instance: Instance, ws: Workspace, made: Made, write: Write): Promise<void> {
      made.serial++;
      const patchPost = (n: number, body: object) => {
        const post = pick(made.posts, n);
        return post ? call(instance, ws.privateKey, "PATCH", `/v1/posts/${post.id}`, body) : null;
      };
      switch (write.kind) {
        case "create":
          await createPost(instance, ws, made, write);
          return;
        case "edit":
          // On a draft: an editor's draft save, which no public answer may notice.
          await patchPost(write.n, { title: `Edited ${made.serial}` });
          return;
        case "publish":
          await patchPost(write.n, {
            status: "published",
            publishedAt: new Date(Date.UTC(2024, 5, 1)).toISOString(),
          });
          return;
        case "unpublish":
          await patchPost(write.n, { status: "draft" });
          return;
        case "schedule":
          await patchPost(write.n, {
            status: "published",
            publishedAt: new Date(Date.now() + 86_400_000 * 30).toISOString(),
          });
          return;
        case "delete": {
          const post = pick(made.posts, write.n);
          if (!post) return;
          const res = await call(instance, ws.privateKey, "DELETE", `/v1/posts/${post.id}`);
          // Its slug stays among the single reads: a 404 from now on, on every instance.
          if (res.status < 300)
            made.posts = made.posts
              .filter((p) => p.id !== post.id)
              .concat([{ ...post, id: `gone-${post.id}` }]);
          return;
        }
        case "retag":
          await patchPost(write.n, {
            tags: [...new Set(write.tags.map((n) => pick(made.tags, n)?.id))].filter(Boolean),
          });
          return;
        case "recategorise":
          await patchPost(write.n, { categoryId: pick(made.categories, write.category)?.id });
          return;
        case "rename": {
          const record = pick(made[write.resource], write.n);
          if (record)
            await call(instance, ws.privateKey, "PATCH", `/v1/${write.resource}/${record.id}`, {
              name: `Renamed ${made.serial}`,
            });
          return;
        }
        case "rename-carried": {
          const post = pick(made.posts, write.n);
          if (!post) return;
          // What the post carries now, as the uncached instance sees it (a retag may have changed it).
          const res = await call(uncached, ws.privateKey, "GET", `/v1/posts/${post.id}?status=all`);
          const carried = res.body?.post as
            | { category?: { id: string }; tags?: { id: string }[]; authors?: { id: string }[] }
            | undefined;
          const records =
            write.resource === "categories"
              ? [carried?.category].filter(Boolean)
              : write.resource === "tags"
                ? (carried?.tags ?? [])
                : (carried?.authors ?? []);
          const record = pick(records, write.n);
          if (record)
            await call(instance, ws.privateKey, "PATCH", `/v1/${write.resource}/${record?.id}`, {
              name: `Renamed ${made.serial}`,
            });
          return;
        }
        case "field-value": {
          const field = pick(made.fields, write.field);
          if (field) await patchPost(write.n, { fields: { [field.key]: `value ${made.serial}` } });
          return;
        }
        case "field-definition":
          await changeFieldDefinition(instance, ws, made, write);
          return;
        case "media-delete": {
          const media = pick(made.media, write.n);
          if (!media) return;
          await call(instance, ws.privateKey, "DELETE", `/v1/media/${media}`);
          made.media = made.media.filter((id) => id !== media);
          return;
        }
      }
    }

    async function changeFieldDefinition(
      instance: Instance,
      ws: Workspace,
      made: Made,
      write: Extract<Write, { kind: "field-definition" }>,
    ) {
      const field = pick(made.fields, write.n);
      if (write.action === "create" || !field) {
        const key = `field${made.serial}`;
        const res = await call(instance, ws.privateKey, "POST", "/v1/fields", {
          key,
          name: key,
          type: "text",
        });
        const id = (res.body?.field as { id?: string } | undefined)?.id;
        if (res.status === 201 && id) made.fields.push({ id, key });
      } else if (write.action === "rename") {
        await call(instance, ws.privateKey, "PATCH", `/v1/fields/${field.id}`, {
          name: `Renamed ${made.serial}`,
        });
      } else {
        const res = await call(instance, ws.privateKey, "DELETE", `/v1/fields/${field.id}`);
        if (res.status < 300) made.fields = made.fields.filter((f) => f.id !== field.id);
      }
    }

    /** The single reads (REST by slug, REST by id, GraphQL) of post `n`, with either key, on either instance. */
    function singleReadsOf(made: Made, n: number): Read[] {
      const count = made.posts.length;
      if (count === 0) return [];
      const index = n % count;
      // readBoth picks single reads by even `n`, at (n / 2) modulo their number, in readsOf's order:
      // every post by slug, then every post by id, then every post through GraphQL.
      return [index, count + index, 2 * count + index].flatMap((single) =>
        [false, true].map((privateKey) => ({
          kind: "read" as const,
          n: 2 * single,
          privateKey,
          onSecond: privateKey,
        })),
      );
    }

    async function readBoth(ws: Workspace, made: Made, read: Read) {
      // Half the reads are single posts (REST or GraphQL), whatever the number of posts: the answers a
      // write of one post, or of a category, tag or author one of them holds, must change or keep.
      const reads = readsOf(made);
      const singles = reads.filter((r) => r.single);
      const others = reads.filter((r) => !r.single);
      const group = read.n % 2 === 0 && singles.length > 0 ? singles : others;
      const chosen = group[Math.floor(read.n / 2) % group.length];
      const key = read.privateKey ? ws.privateKey : ws.publicKey;
      const instance = read.onSecond ? second : first;
      const make = (on: Instance) =>
        chosen?.rest ? call(on, key, "GET", chosen.rest) : call(on, key, "POST", "/graphql", chosen?.graphql);
      const cachedAnswer = await make(instance);
      const truth = await make(uncached);
      return { what: chosen?.rest ?? JSON.stringify(chosen?.graphql), cachedAnswer, truth };
    }

    it("every read equals the same read with the cache off, after any interleaving of writes", async () => {
      let run = 0;
      await fc.assert(
        fc.asyncProperty(steps, async (plan) => {
          run++;
          const ws = await adminWorkspace(first, `Dependencies ${run}`);
          const made = await seed(ws, run);
          /** The reads made lately: after each write they are made again, so cached answers meet it. */
          let recent: Read[] = [];
          const check = async (read: Read, index: number) => {
            const { what, cachedAnswer, truth } = await readBoth(ws, made, read);
            expect(cachedAnswer, `step ${index}: ${what}`).toEqual(truth);
          };
          for (const [index, step] of plan.entries()) {
            if (step.kind === "read") {
              await check(step, index);
              recent = [step, ...recent].slice(0, 6);
            } else {
              if (step.kind === "rename-carried") {
                // The post's answers are cached right before what they carry is renamed.
                const singles = singleReadsOf(made, step.n);
                for (const read of singles) await check(read, index);
                recent = [...singles, ...recent].slice(0, 6 + singles.length);
              }
              // Writes alternate between the cached instances: the other's index learns of them from the log.
              await makeWrite(index % 2 === 0 ? first : second, ws, made, step);
              for (const read of recent) await check({ ...read, onSecond: !read.onSecond }, index);
              for (const read of recent) await check(read, index);
            }
          }
        }),
        { numRuns: RUNS },
      );
    });
  },
);
