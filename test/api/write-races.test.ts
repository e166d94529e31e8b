// Write races on every resource: PATCHes racing a DELETE of the same record, DELETEs racing each other,
// creates racing for one slug or key, and post writes racing the deletion of what they reference.
// Every answer is a contract status (never a 5xx) with the contract's body, and what is left afterwards
// is what one of the writes made. Each scenario is repeated with fresh records, the DELETE started a
// little later each round, so the requests really interleave. Over HTTP they do on PostgreSQL (several
// connections); on embedded PGlite, which serves one statement at a time, HTTP timing mostly lets one
// side finish first, so every resource also races in-process through GraphQL, where statements of both
// sides interleave at every await on both storage modes.
import type { ExecutionResult } from "graphql";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mapPrismaError } from "../../src/graphql/map-prisma-errors.ts";
import { notFoundBody } from "../helpers/expected-bodies.ts";
import { expectMatchesOpenApi } from "../helpers/openapi-check.ts";
import { startTestApp, type TestApp, type TestWorkspace } from "../helpers/test-app.ts";
import { makeImage } from "../media/helpers/make-files.ts";

const ROUNDS = 5;
const WRITERS = 8;

// biome-ignore lint/suspicious/noExplicitAny: parsed JSON bodies
type Body = Record<string, any>;
interface Answer {
  status: number;
  body: Body;
}

const SLUG_CONFLICT = {
  error: "Slug already in use",
  message: "This slug is already used by another record of this kind in the workspace",
};
const KEY_CONFLICT = {
  error: "Key already in use",
  message: "A field with this key already exists in the workspace",
};

let app: TestApp;
let png: Buffer;
let statementsSeen = 0;
let onStatement: (() => void) | null = null;

beforeAll(async () => {
  app = await startTestApp({
    onQuery: () => {
      statementsSeen++;
      onStatement?.();
    },
  });
  png = await makeImage("png");
});
afterAll(async () => app?.close());

const range = (n: number) => Array.from({ length: n }, (_, i) => i);

/** Sends a request with a private key and checks the answer against the OpenAPI document. */
async function send(key: string, method: string, path: string, body?: unknown): Promise<Answer> {
  const res = await app.request(method, path, { key, body });
  expectMatchesOpenApi(res, method.toLowerCase(), path);
  return res;
}

function expectStatusIn(answer: Answer, allowed: number[]): void {
  expect(allowed, `${answer.status} ${JSON.stringify(answer.body)}`).toContain(answer.status);
}

/**
 * Sends PATCHes and, while they run, a DELETE: in round n once the PATCHes have issued 4n SQL statements
 * (or have all answered). Sent with them the DELETE mostly wins outright (it has less to do), so later
 * rounds let it land in the middle of the others' writes. Connections are opened first, so no request
 * waits for a handshake that another one skips.
 */
async function patchesAndDelete(
  round: number,
  patches: (() => Promise<Answer>)[],
  remove: () => Promise<Answer>,
): Promise<{ removed: Answer; patched: Answer[] }> {
  await Promise.all([remove, ...patches].map(() => fetch(`${app.url}/status`).then((res) => res.text())));
  const from = statementsSeen;
  let startDelete = () => {};
  const deleteMayStart = new Promise<void>((resolve) => {
    startDelete = resolve;
  });
  onStatement = () => {
    if (statementsSeen - from >= round * 4) startDelete();
  };
  onStatement();
  try {
    const patched = Promise.all(patches.map((send) => send())).finally(startDelete);
    const [removed, answers] = await Promise.all([deleteMayStart.then(remove), patched]);
    return { removed, patched: answers };
  } finally {
    onStatement = null;
  }
}

/** Starts GraphQL updates and a delete in-process, the delete as the (2 × round)-th: no HTTP between. */
async function deleteAmongUpdates(
  round: number,
  updates: (() => Promise<ExecutionResult<Body>>)[],
  remove: () => Promise<ExecutionResult<Body>>,
): Promise<{ removed: ExecutionResult<Body>; updated: ExecutionResult<Body>[] }> {
  const at = Math.min(round * 2, updates.length);
  const results = await Promise.all(
    [...updates.slice(0, at), remove, ...updates.slice(at)].map((run) => run()),
  );
  const [removed] = results.splice(at, 1);
  return { removed: removed as ExecutionResult<Body>, updated: results };
}

/** A mutation that lost the race to a delete fails as the record not found, like a REST 404. */
function expectOnlyNotFound(errors: ExecutionResult["errors"], resource: string, identifier: string): void {
  for (const error of errors ?? []) {
    expect(error.extensions).toMatchObject({ code: "NOT_FOUND", http: { status: 404 }, resource });
    expect(error.message).toBe(`${resource} "${identifier}" does not exist in this workspace`);
  }
}

function pick(record: Body, keys: string[]): Body {
  return Object.fromEntries(keys.map((key) => [key, record[key]]));
}

/** A 400 saying a record the write points at does not exist (any more). */
function expectMissingReference(answer: Answer): void {
  expect(answer.body).toMatchObject({
    error: "Validation failed",
    message: expect.stringMatching(/not exist/),
  });
}

interface RacedResource {
  /** The resource named by its 404 body. */
  label: string;
  path: string;
  /** The member of the success body holding the record. */
  wrapper: string;
  create(key: string, n: number): Promise<string>;
  /** The body of the i-th PATCH; every PATCH sets the same fields to different values. */
  patch(i: number): Body;
  /** Its creates race for one slug or key (media have neither). */
  conflict?: { body(n: number): Body; expected: Body };
  /** The same PATCH (renaming, `$name`) and DELETE as GraphQL mutations of the record `$id`. */
  graphql: { update: string; remove: string };
}

/** GraphQL mutations renaming and deleting one record: `update<Type>` / `delete<Type>`. */
function mutations(type: string, idArg = "identifier: $id", idType = "String!") {
  return {
    update: `mutation($id: ${idType}, $name: String!) { update${type}(${idArg}, input: { name: $name }) { id name } }`,
    remove: `mutation($id: ${idType}) { delete${type}(${idArg}) { id } }`,
  };
}

async function created(key: string, path: string, body: Body, wrapper: string): Promise<string> {
  const res = await send(key, "POST", path, body);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body[wrapper].id;
}

async function uploadedMedia(key: string, n: number): Promise<string> {
  const form = new FormData();
  form.append("file", new Blob([new Uint8Array(png)], { type: "image/png" }), `race-${n}.png`);
  const response = await fetch(`${app.url}/v1/media/upload`, {
    method: "POST",
    headers: { authorization: key },
    body: form,
  });
  const body = await response.json();
  expect(response.status, JSON.stringify(body)).toBe(201);
  return body.media.id;
}

const taxonomy = (label: string, path: string, wrapper: string): RacedResource => ({
  label,
  path,
  wrapper,
  create: (key, n) => created(key, path, { name: `${label} ${n}`, slug: `${wrapper}-${n}` }, wrapper),
  patch: (i) => ({ name: `${label} version ${i}`, description: `Version ${i}` }),
  conflict: { body: (n) => ({ name: `${label} ${n}`, slug: "contested" }), expected: SLUG_CONFLICT },
  graphql: mutations(label),
});

const RESOURCES: RacedResource[] = [
  taxonomy("Category", "/v1/categories", "category"),
  taxonomy("Tag", "/v1/tags", "tag"),
  {
    label: "Author",
    path: "/v1/authors",
    wrapper: "author",
    create: (key, n) => created(key, "/v1/authors", { name: `Author ${n}`, slug: `author-${n}` }, "author"),
    patch: (i) => ({ name: `Author version ${i}`, bio: `Bio ${i}` }),
    conflict: { body: (n) => ({ name: `Author ${n}`, slug: "contested" }), expected: SLUG_CONFLICT },
    graphql: mutations("Author"),
  },
  {
    label: "Media",
    path: "/v1/media",
    wrapper: "media",
    create: uploadedMedia,
    patch: (i) => ({ name: `Media version ${i}`, alt: `Alt ${i}` }),
    graphql: {
      update: "mutation($id: ID!, $name: String!) { updateMedia(id: $id, name: $name) { id name } }",
      remove: "mutation($id: ID!) { deleteMedia(id: $id) { id } }",
    },
  },
  {
    label: "Field",
    path: "/v1/fields",
    wrapper: "field",
    create: (key, n) =>
      created(key, "/v1/fields", { key: `field_${n}`, name: `Field ${n}`, type: "text" }, "field"),
    patch: (i) => ({ name: `Field version ${i}`, description: `Version ${i}`, position: i % 3 }),
    conflict: {
      body: (n) => ({ key: "contested", name: `Field ${n}`, type: "text" }),
      expected: KEY_CONFLICT,
    },
    graphql: mutations("Field"),
  },
];

describe.each(RESOURCES)("$path", (resource) => {
  let ws: TestWorkspace;
  let serial = 0;
  const one = (id: string) => `${resource.path}/${id}`;
  const states = range(WRITERS).map((i) => resource.patch(i));
  const stateKeys = Object.keys(resource.patch(0));
  const create = () => resource.create(ws.privateKey, serial++);

  beforeAll(async () => {
    ws = await app.workspace(`Races on ${resource.path}`);
    // Neighbours, so writes that touch other records (field positions) have some to touch.
    await create();
    await create();
  });

  it("PATCHes racing a DELETE: each PATCH 200 (one of the writes) or 404, the DELETE 200, then gone", async () => {
    for (const round of range(ROUNDS)) {
      const id = await create();
      const { removed, patched } = await patchesAndDelete(
        round,
        states.map((body) => () => send(ws.privateKey, "PATCH", one(id), body)),
        () => send(ws.privateKey, "DELETE", one(id)),
      );
      for (const answer of patched) {
        expectStatusIn(answer, [200, 404]);
        if (answer.status === 200)
          expect(states).toContainEqual(pick(answer.body[resource.wrapper], stateKeys));
        else expect(answer.body).toEqual(notFoundBody(resource.label, id));
      }
      expect(removed).toMatchObject({ status: 200, body: { id } });
      expect((await send(ws.privateKey, "GET", one(id))).status).toBe(404);
    }
  });

  it("PATCHes at once: every one 200, and the record holds one of them whole", async () => {
    for (const _round of range(ROUNDS)) {
      const id = await create();
      const patched = await Promise.all(states.map((body) => send(ws.privateKey, "PATCH", one(id), body)));
      for (const answer of patched) expectStatusIn(answer, [200]);
      const read = await send(ws.privateKey, "GET", one(id));
      expect(states).toContainEqual(pick(read.body[resource.wrapper], stateKeys));
    }
  });

  it("two DELETEs at once: one 200, the other 404", async () => {
    for (const _round of range(ROUNDS)) {
      const id = await create();
      const answers = await Promise.all([0, 1].map(() => send(ws.privateKey, "DELETE", one(id))));
      for (const answer of answers) expectStatusIn(answer, [200, 404]);
      expect(answers.map((answer) => answer.status).sort()).toEqual([200, 404]);
      expect(answers.find((answer) => answer.status === 404)?.body).toEqual(notFoundBody(resource.label, id));
    }
  });

  it("through /graphql, where requests interleave at every await on both storage modes: only NOT_FOUND", async () => {
    for (const round of range(ROUNDS)) {
      const id = await create();
      const results = await deleteAmongUpdates(
        round,
        range(WRITERS).map(
          (i) => () => app.graphql(ws.privateKey, resource.graphql.update, { id, name: `V${i}` }),
        ),
        () => app.graphql(ws.privateKey, resource.graphql.remove, { id }),
      );
      expect(results.removed.errors).toBeUndefined();
      for (const result of results.updated) expectOnlyNotFound(result.errors, resource.label, id);
    }
  });

  const { conflict } = resource;
  if (conflict) {
    it("creates racing for one slug or key: one 201, the others 409", async () => {
      for (const round of range(ROUNDS)) {
        const other = await app.workspace(`Creates on ${resource.path} ${round}`);
        const answers = await Promise.all(
          range(WRITERS).map((n) => send(other.privateKey, "POST", resource.path, conflict.body(n))),
        );
        for (const answer of answers) expectStatusIn(answer, [201, 409]);
        expect(answers.filter((answer) => answer.status === 201)).toHaveLength(1);
        for (const answer of answers.filter((answer) => answer.status === 409))
          expect(answer.body).toEqual(conflict.expected);
      }
    });
  }
});

describe("/v1/posts", () => {
  let ws: TestWorkspace;
  let serial = 0;
  const ids: Record<string, string> = {};
  const key = () => ws.privateKey;

  beforeAll(async () => {
    ws = await app.workspace("Races on posts");
    ids.news = await created(key(), "/v1/categories", { name: "News", slug: "news" }, "category");
    for (const n of [0, 1, 2])
      ids[`tag${n}`] = await created(key(), "/v1/tags", { name: `Tag ${n}`, slug: `tag-${n}` }, "tag");
    for (const n of [0, 1])
      ids[`author${n}`] = await created(
        key(),
        "/v1/authors",
        { name: `Author ${n}`, slug: `author-${n}` },
        "author",
      );
    await created(key(), "/v1/fields", { key: "subtitle", name: "Subtitle", type: "text" }, "field");
  });

  const post = (extra: Body = {}) =>
    created(
      key(),
      "/v1/posts",
      {
        title: "Raced",
        slug: `raced-${serial++}`,
        description: "A post written by many at once",
        content: "<p>Raced</p>",
        status: "published",
        categoryId: ids.news,
        tags: [ids.tag0],
        authors: [ids.author0],
        ...extra,
      },
      "post",
    );

  /** Each PATCH sets the title, a tag set, an author list and a field value of its own. */
  const patches = () =>
    range(WRITERS).map((i) => ({
      title: `Version ${i}`,
      tags: [ids.tag0, ids.tag1, ids.tag2].slice(0, 1 + (i % 3)),
      authors: i % 2 ? [ids.author1, ids.author0] : [ids.author0],
      fields: { subtitle: `Subtitle ${i}` },
    }));
  const stateOf = (stored: Body) => ({
    title: stored.title,
    tags: (stored.tags as Body[]).map((tag) => tag.id).sort(),
    authors: (stored.authors as Body[]).map((author) => author.id),
    fields: stored.fields,
  });
  const written = () => patches().map((body) => ({ ...body, tags: [...body.tags].sort() }));
  const read = async (id: string) => send(key(), "GET", `/v1/posts/${id}?status=all`);

  it("PATCHes of title, tags, authors and fields racing the post's DELETE: 200 or 404, then gone", async () => {
    for (const round of range(ROUNDS)) {
      const id = await post();
      const { removed, patched } = await patchesAndDelete(
        round,
        patches().map((body) => () => send(key(), "PATCH", `/v1/posts/${id}`, body)),
        () => send(key(), "DELETE", `/v1/posts/${id}`),
      );
      patched.forEach((answer, i) => {
        expectStatusIn(answer, [200, 404]);
        if (answer.status === 200) expect(answer.body.post.title).toMatch(/^Version \d$/);
        else expect(answer.body, `PATCH ${i}`).toEqual(notFoundBody("Post", id));
      });
      expect(removed).toMatchObject({ status: 200, body: { id } });
      expect((await read(id)).status).toBe(404);
    }
  });

  it("PATCHes at once: every one 200, and the post holds one of them whole", async () => {
    for (const _round of range(ROUNDS)) {
      const id = await post();
      const patched = await Promise.all(
        patches().map((body) => send(key(), "PATCH", `/v1/posts/${id}`, body)),
      );
      for (const answer of patched) expectStatusIn(answer, [200]);
      expect(written()).toContainEqual(stateOf((await read(id)).body.post));
    }
  });

  it("two DELETEs at once: one 200, the other 404", async () => {
    for (const _round of range(ROUNDS)) {
      const id = await post();
      const answers = await Promise.all([0, 1].map(() => send(key(), "DELETE", `/v1/posts/${id}`)));
      expect(answers.map((answer) => answer.status).sort()).toEqual([200, 404]);
      expect(answers.find((answer) => answer.status === 404)?.body).toEqual(notFoundBody("Post", id));
    }
  });

  it("creates racing for one slug: one 201, the others 409", async () => {
    for (const round of range(ROUNDS)) {
      const body = {
        title: "Contested",
        slug: `contested-${round}`,
        description: "Everyone wants this slug",
        content: "<p>Mine</p>",
        status: "draft",
        categoryId: ids.news,
        tags: [ids.tag0],
        fields: { subtitle: "Contested" },
      };
      const answers = await Promise.all(range(WRITERS).map(() => send(key(), "POST", "/v1/posts", body)));
      for (const answer of answers) expectStatusIn(answer, [201, 409]);
      expect(answers.filter((answer) => answer.status === 201)).toHaveLength(1);
      for (const answer of answers.filter((answer) => answer.status === 409))
        expect(answer.body).toEqual(SLUG_CONFLICT);
    }
  });

  it("PATCHes adding a tag racing that tag's DELETE: 200 or 400, and the tag leaves the post too", async () => {
    for (const round of range(ROUNDS)) {
      const id = await post();
      const doomed = await created(key(), "/v1/tags", { name: "Doomed", slug: `doomed-${round}` }, "tag");
      const { removed, patched } = await patchesAndDelete(
        round,
        range(WRITERS).map(
          () => () =>
            send(key(), "PATCH", `/v1/posts/${id}`, { tags: [ids.tag0, doomed], fields: { subtitle: "x" } }),
        ),
        () => send(key(), "DELETE", `/v1/tags/${doomed}`),
      );
      for (const answer of patched) {
        expectStatusIn(answer, [200, 400]);
        if (answer.status === 400) expectMissingReference(answer);
      }
      expect(removed.status).toBe(200);
      expect((await read(id)).body.post.tags.map((tag: Body) => tag.id)).toEqual([ids.tag0]);
    }
  });

  it("PATCHes adding an author racing that author's DELETE: 200 or 400, and the author leaves the post too", async () => {
    for (const round of range(ROUNDS)) {
      const id = await post();
      const doomed = await created(
        key(),
        "/v1/authors",
        { name: "Doomed", slug: `doomed-${round}` },
        "author",
      );
      const { removed, patched } = await patchesAndDelete(
        round,
        range(WRITERS).map(
          () => () =>
            send(key(), "PATCH", `/v1/posts/${id}`, { authors: [doomed, ids.author0], title: "Co-written" }),
        ),
        () => send(key(), "DELETE", `/v1/authors/${doomed}`),
      );
      for (const answer of patched) {
        expectStatusIn(answer, [200, 400]);
        if (answer.status === 400) expectMissingReference(answer);
      }
      expect(removed.status).toBe(200);
      expect((await read(id)).body.post.authors.map((author: Body) => author.id)).toEqual([ids.author0]);
    }
  });

  it("PATCHes moving the post to a category racing that category's DELETE: the move or the DELETE wins", async () => {
    for (const round of range(ROUNDS)) {
      const id = await post();
      const target = await created(
        key(),
        "/v1/categories",
        { name: "Target", slug: `target-${round}` },
        "category",
      );
      const { removed, patched } = await patchesAndDelete(
        round,
        range(WRITERS).map(() => () => send(key(), "PATCH", `/v1/posts/${id}`, { categoryId: target })),
        () => send(key(), "DELETE", `/v1/categories/${target}`),
      );
      for (const answer of [removed, ...patched]) expectStatusIn(answer, [200, 400]);
      for (const answer of patched.filter((answer) => answer.status === 400)) expectMissingReference(answer);
      const category = (await read(id)).body.post.category.id;
      if (removed.status === 200) {
        // Deleted while unused: no move can have happened before, none can after.
        expect(patched.map((answer) => answer.status)).not.toContain(200);
        expect(category).toBe(ids.news);
      } else {
        expect(removed.body).toMatchObject({
          error: "Validation failed",
          message: `Category "${target}" still has 1 post`,
        });
        expect(category).toBe(target);
      }
    }
  });

  it("PATCHes setting a custom field racing the field's DELETE: 200 or 400, and the value goes with the field", async () => {
    for (const round of range(ROUNDS)) {
      const id = await post();
      const field = `rating_${round}`;
      await created(key(), "/v1/fields", { key: field, name: "Rating", type: "number" }, "field");
      const { removed, patched } = await patchesAndDelete(
        round,
        range(WRITERS).map((i) => () => send(key(), "PATCH", `/v1/posts/${id}`, { fields: { [field]: i } })),
        () => send(key(), "DELETE", `/v1/fields/${field}`),
      );
      for (const answer of patched) {
        expectStatusIn(answer, [200, 400]);
        if (answer.status === 400) expect(answer.body.error).toBe("Validation failed");
      }
      expect(removed.status).toBe(200);
      expect(Object.keys((await read(id)).body.post.fields)).toEqual(["subtitle"]);
    }
  });

  it("through /graphql, where requests interleave at every await on both storage modes: only NOT_FOUND", async () => {
    const update = `mutation($id: String!, $title: String!, $tags: [String!], $authors: [String!], $fields: JSON) {
      updatePost(identifier: $id, input: { title: $title, tags: $tags, authors: $authors, fields: $fields }) { id title }
    }`;
    const remove = "mutation($id: String!) { deletePost(identifier: $id) { id } }";
    for (const round of range(ROUNDS)) {
      const id = await post();
      const results = await deleteAmongUpdates(
        round,
        patches().map((input) => () => app.graphql(key(), update, { id, ...input })),
        () => app.graphql(key(), remove, { id }),
      );
      expect(results.removed.errors).toBeUndefined();
      for (const result of results.updated) expectOnlyNotFound(result.errors, "Post", id);
    }
  });
});

describe("Prisma's 'record not found' from any write not covered above", () => {
  it("maps to NOT_FOUND (404) naming the model, not to a 500", async () => {
    const error = await app.db.prisma.tag
      .update({ where: { id: "deleted-meanwhile" }, data: { name: "Renamed" } })
      .catch((caught: unknown) => caught);
    const mapped = mapPrismaError(error);
    expect(mapped?.message).toBe("This tag no longer exists in this workspace");
    expect(mapped?.extensions).toEqual({ code: "NOT_FOUND", http: { status: 404 }, resource: "Tag" });
  });
});
