// U+0000 (NUL) cannot be stored or compared by PostgreSQL, so no content, identifier or filter can hold
// one: every door refuses it as the client's mistake. A JSON body or query parameter with a NUL is a 400
// validation error naming the field, a path with %00 names nothing (404), and GraphQL variables and
// string literals holding one are BAD_USER_INPUT (400) — never a 500.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findUnstorableText } from "../../src/domain/null-bytes.ts";
import { mapPrismaError } from "../../src/graphql/map-prisma-errors.ts";
import { restFixtures } from "../helpers/rest-fixtures.ts";
import { startTestApp, type TestApp, type TestWorkspace } from "../helpers/test-app.ts";
import { makeImage } from "../media/helpers/make-files.ts";

const ADMIN_TOKEN = "x".repeat(20);
const NUL = "\u0000";
const NUL_PROBLEM = "Must not contain the NUL character (U+0000)";

let app: TestApp;
let ws: TestWorkspace;
let mediaId: string;

beforeAll(async () => {
  app = await startTestApp({ env: { ADMIN_TOKEN } });
  ws = await app.workspace();
  const f = restFixtures(app, ws.privateKey);
  const { id: categoryId } = await f.category("news");
  await f.tag("tech");
  await f.author("ada");
  await f.post({ slug: "hello", categoryId });
  const field = await app.request("POST", "/v1/fields", {
    key: ws.privateKey,
    body: { key: "mood", name: "Mood", type: "text" },
  });
  expect(field.status, JSON.stringify(field.body)).toBe(201);
  mediaId = (await uploadImage()).id;
});
afterAll(async () => app?.close());

async function uploadImage(fields: Record<string, string> = {}) {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  form.append("file", new Blob([new Uint8Array(await makeImage("png"))]), "a.png");
  const response = await fetch(`${app.url}/v1/media/upload`, {
    method: "POST",
    headers: { authorization: ws.privateKey },
    body: form,
  });
  const body = await response.json();
  if (Object.keys(fields).length === 0) expect(response.status, JSON.stringify(body)).toBe(201);
  return { status: response.status, body, id: body.media?.id as string };
}

const invalidBody = (field: string) => ({
  error: "Validation failed",
  message: "Invalid request body",
  details: [{ field, message: NUL_PROBLEM }],
});
const invalidQuery = (field: string) => ({
  error: "Validation failed",
  message: "Invalid query parameters",
  details: [{ field, message: NUL_PROBLEM }],
});

describe("JSON bodies", () => {
  it.each([
    ["POST", "/v1/posts", { title: `a${NUL}`, slug: "p1", content: "<p>c</p>", description: "d" }, "title"],
    ["POST", "/v1/posts", { title: "t", slug: "p2", content: `<p>${NUL}</p>`, categoryId: "x" }, "content"],
    ["PATCH", "/v1/posts/hello", { tags: ["tech", `te${NUL}ch`] }, "tags.1"],
    ["PATCH", "/v1/posts/hello", { fields: { mood: `calm${NUL}` } }, "fields.mood"],
    ["POST", "/v1/categories", { name: "N", slug: `a${NUL}` }, "slug"],
    ["PATCH", "/v1/categories/news", { description: NUL }, "description"],
    ["POST", "/v1/tags", { name: `T${NUL}`, slug: "t2" }, "name"],
    ["PATCH", "/v1/tags/tech", { name: `T${NUL}` }, "name"],
    ["POST", "/v1/authors", { name: "A", slug: "a2", bio: `b${NUL}` }, "bio"],
    ["PATCH", "/v1/authors/ada", { name: `A${NUL}` }, "name"],
    ["POST", "/v1/fields", { key: `k${NUL}`, name: "K", type: "text" }, "key"],
    ["PATCH", "/v1/fields/mood", { options: [{ value: "a", label: `b${NUL}` }] }, "options.0.label"],
    ["POST", "/v1/categories", { name: "N", slug: "n2", [`x${NUL}`]: 1 }, `x${NUL}`],
  ])("%s %s with a NUL in a string or key is a 400 naming the field", async (method, path, body, field) => {
    const res = await app.request(method, path, { key: ws.privateKey, body });
    expect(res.status).toBe(400);
    expect(res.body).toEqual(invalidBody(field));
  });

  it("PATCH /v1/media/{id} with a NUL is a 400, and the record is unchanged", async () => {
    const res = await app.request("PATCH", `/v1/media/${mediaId}`, {
      key: ws.privateKey,
      body: { alt: `alt${NUL}` },
    });
    expect(res.status).toBe(400);
    expect(res.body).toEqual(invalidBody("alt"));
    const read = await app.request("GET", `/v1/media/${mediaId}`, { key: ws.privateKey });
    expect(read.body.media.alt).toBeNull();
  });

  it("a NUL in an upload's form fields is a 400", async () => {
    const res = await uploadImage({ name: `photo${NUL}` });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: "Validation failed", details: [{ field: "name" }] });
  });

  it("a deeply nested body is refused before any walk (400), and the NUL walk itself cannot overflow", async () => {
    const depth = 100_000;
    const body = `${"[".repeat(depth)}"${"\\u0000"}"${"]".repeat(depth)}`;
    const res = await app.request("POST", "/v1/tags", { key: ws.privateKey, body });
    expect(res.status).toBe(400);
    expect(res.body.details[0].message).toBe(
      "The request body nests arrays or objects deeper than 64 levels",
    );
    // The walk behind refuseNullBytesInBody, on a value no request can bring any more.
    let nested: unknown = "\u0000";
    for (let level = 0; level < depth; level++) nested = [nested];
    expect(findUnstorableText(nested)?.problem).toBe(NUL_PROBLEM);
  });
});

describe("paths", () => {
  it.each([
    "/v1/posts/a%00b",
    "/v1/categories/%00",
    "/v1/tags/a%00",
    "/v1/authors/a%00",
    "/v1/fields/a%00",
    "/v1/media/a%00",
  ])("GET %s is a 404: no record can be named with a NUL", async (path) => {
    const res = await app.request("GET", path, { key: ws.privateKey });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: "Not found", message: expect.stringContaining("%00") });
  });

  it("PATCH and DELETE of a path with %00 are 404s too", async () => {
    for (const method of ["PATCH", "DELETE"]) {
      const res = await app.request(method, "/v1/posts/a%00b", { key: ws.privateKey, body: { title: "t" } });
      expect(res.status).toBe(404);
    }
  });

  it("the workspace path form with %00 in the workspace id is a 404, with or without a key", async () => {
    for (const key of [undefined, ws.publicKey]) {
      const res = await app.request("GET", "/v1/a%00b/posts", { key });
      expect(res.status).toBe(404);
      expect(res.body.error).toBe("Not found");
    }
  });
});

describe("query parameters", () => {
  it.each([
    ["/v1/posts?tags=x%00", "tags"],
    ["/v1/posts?categories=news,a%00", "categories"],
    ["/v1/posts?excludeTags=%00", "excludeTags"],
    ["/v1/posts?query=a%00", "query"],
    ["/v1/posts?tags=a&tags=b%00", "tags.1"],
    ["/v1/media?query=%00", "query"],
    ["/v1/posts/hello?format=%00", "format"],
  ])("GET %s is a 400 naming the parameter", async (path, field) => {
    const res = await app.request("GET", path, { key: ws.publicKey });
    expect(res.status).toBe(400);
    expect(res.body).toEqual(invalidQuery(field));
  });

  it("a NUL in a parameter's name is refused too", async () => {
    const res = await app.request("GET", "/v1/posts?a%00=1", { key: ws.publicKey });
    expect(res.status).toBe(400);
    expect(res.body.details[0].message).toBe(NUL_PROBLEM);
  });
});

describe("admin API", () => {
  const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };

  it.each([
    ["GET", "/admin/workspaces/a%00b/keys"],
    ["POST", "/admin/workspaces/a%00b/keys"],
    ["POST", "/admin/keys/a%00/revoke"],
  ])("%s %s is a 404", async (method, path) => {
    const body = method === "POST" ? { kind: "public" } : undefined;
    const res = await app.request(method, path, { headers: admin, body });
    expect(res.status).toBe(404);
    expect(res.body.error).toBe("Not found");
  });

  it("a NUL in a workspace's name is a 400", async () => {
    const res = await app.request("POST", "/admin/workspaces", { headers: admin, body: { name: `W${NUL}` } });
    expect(res.status).toBe(400);
    expect(res.body).toEqual(invalidBody("name"));
  });

  it("a NUL in a key's kind is a 400", async () => {
    const res = await app.request("POST", `/admin/workspaces/${ws.id}/keys`, {
      headers: admin,
      body: { kind: `public${NUL}` },
    });
    expect(res.status).toBe(400);
    expect(res.body).toEqual(invalidBody("kind"));
  });
});

describe("GraphQL over HTTP", () => {
  async function graphql(query: string, variables?: Record<string, unknown>) {
    const response = await fetch(`${app.url}/graphql`, {
      method: "POST",
      headers: { authorization: ws.privateKey, "content-type": "application/json" },
      body: JSON.stringify({ query, variables }),
    });
    return { status: response.status, body: await response.json() };
  }
  const badUserInput = (field: string) => ({
    message: "Text must not contain the NUL character (U+0000)",
    extensions: { code: "BAD_USER_INPUT", details: [{ field, message: NUL_PROBLEM }] },
  });

  it("a NUL in a variable is BAD_USER_INPUT (400) naming the variable's path", async () => {
    const res = await graphql("mutation($input: CreateTagInput!) { createTag(input: $input) { id } }", {
      input: { name: `T${NUL}`, slug: "gt" },
    });
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([badUserInput("input.name")]);
  });

  it("a NUL in a variable of a read is BAD_USER_INPUT too", async () => {
    const res = await graphql("query($id: String!) { post(identifier: $id) { id } }", { id: `a${NUL}` });
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([badUserInput("id")]);
  });

  it.each([
    ['query { post(identifier: "a\\u0000b") { id } }'],
    ['query { posts(query: "x\\u0000") { items { id } } }'],
    ['mutation { createCategory(input: { name: "N", slug: "a\\u0000" }) { id } }'],
    ['query($id: String! = "\\u0000") { post(identifier: $id) { id } }'],
  ])("a NUL in a string literal is BAD_USER_INPUT: %s", async (query) => {
    const res = await graphql(query);
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([badUserInput("literal")]);
  });
});

describe("the database's own refusal, should a NUL ever get past the doors", () => {
  it("is mapped to BAD_USER_INPUT, from the query API and from raw SQL", async () => {
    const failures = [
      app.db.prisma.tag.findFirst({ where: { slug: `a${NUL}` } }),
      app.db.prisma.$queryRawUnsafe("SELECT $1::text AS value", `a${NUL}`),
    ];
    for (const failure of failures) {
      const error = await failure.then(
        () => expect.unreachable("PostgreSQL stores no NUL"),
        (caught: unknown) => caught,
      );
      expect(mapPrismaError(error)?.extensions).toMatchObject({
        code: "BAD_USER_INPUT",
        http: { status: 400 },
      });
    }
  });
});

// A lone UTF-16 surrogate is the other text PostgreSQL cannot store faithfully (it refuses one inside
// JSON, so in a custom field value it was a 500; the embedded database garbled it elsewhere).
describe("unpaired surrogates, refused like NUL", () => {
  const LONE = "\ud800";
  const SURROGATE_PROBLEM = "Must be well-formed Unicode (an unpaired surrogate U+D800-U+DFFF is not)";

  it("in a custom field value of a post body: 400 naming the field", async () => {
    const res = await app.request("PATCH", "/v1/posts/hello", {
      key: ws.privateKey,
      body: { fields: { mood: `calm${LONE}` } },
    });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      error: "Validation failed",
      message: "Invalid request body",
      details: [{ field: "fields.mood", message: SURROGATE_PROBLEM }],
    });
  });

  it("cannot arrive in a URL (UTF-8 has no surrogates): the encoded halves decode to U+FFFD, no 500", async () => {
    const res = await app.request("GET", `/v1/posts?tags=${encodeURIComponent("ß")}%ED%BF%BF`, {
      key: ws.publicKey,
    });
    expect(res.status).toBe(200);
  });

  it("in a GraphQL variable: BAD_USER_INPUT, while a well-formed pair (an emoji) is fine", async () => {
    const send = (name: string) =>
      fetch(`${app.url}/graphql`, {
        method: "POST",
        headers: { authorization: ws.privateKey, "content-type": "application/json" },
        body: JSON.stringify({
          query: "mutation($input: CreateTagInput!) { createTag(input: $input) { name } }",
          variables: { input: { name, slug: `s-${name.length}` } },
        }),
      });
    const refused = await send(`tag${LONE}`);
    expect(refused.status).toBe(400);
    expect((await refused.json()).errors).toEqual([
      {
        message: "Text must be well-formed Unicode",
        extensions: {
          code: "BAD_USER_INPUT",
          details: [{ field: "input.name", message: SURROGATE_PROBLEM }],
        },
      },
    ]);
    const accepted = await send("tag 😀");
    expect((await accepted.json()).data).toEqual({ createTag: { name: "tag 😀" } });
  });
});
