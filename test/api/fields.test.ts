// /v1/fields and the custom field values of posts, through the REST door: every rule of the contract
// (issue 6) as its own case, with the exact error body.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FORBIDDEN } from "../helpers/expected-bodies.ts";
import { expectMatchesOpenApi } from "../helpers/openapi-check.ts";
import { openApiClient } from "../helpers/openapi-client.ts";
import { isoDate, restFixtures } from "../helpers/rest-fixtures.ts";
import { startTestApp, type TestApp, type TestWorkspace } from "../helpers/test-app.ts";

type Body = Record<string, unknown>;
type Problem = { field: string; message: string };

const KEY_RULE = "Must be 1-50 characters of lowercase letters, digits and underscores (^[a-z0-9_]+$)";
const TYPE_RULE =
  'Invalid option: expected one of "text"|"number"|"boolean"|"date"|"richtext"|"select"|"multiselect"';

const invalidField = (...details: Problem[]) => ({
  error: "Validation failed",
  message: "Invalid field",
  details,
});
const invalidBody = (...details: Problem[]) => ({
  error: "Validation failed",
  message: "Invalid request body",
  details,
});
const invalidPost = (...details: Problem[]) => ({
  error: "Validation failed",
  message: "Invalid post",
  details,
});

const fieldBody = (expected: Body) => ({
  id: expect.any(String),
  description: null,
  required: false,
  position: expect.any(Number),
  options: [],
  createdAt: isoDate,
  updatedAt: isoDate,
  ...expected,
});
const optionBody = (value: string, label: string, position: number) => ({
  id: expect.any(String),
  value,
  label,
  position,
  createdAt: isoDate,
  updatedAt: isoDate,
});
const options = (...values: string[]) => values.map((value) => ({ value, label: value.toUpperCase() }));

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => app?.close());

/** Requests of one workspace, each response checked against the OpenAPI document. */
function client(ws: TestWorkspace) {
  const call = openApiClient(
    () => app,
    () => ws.privateKey,
  );
  const fixtures = restFixtures(app, ws.privateKey);
  return {
    list: (key?: string) => call("GET", "/v1/fields", "/v1/fields", { key }),
    get: (identifier: string, key?: string) =>
      call("GET", `/v1/fields/${identifier}`, "/v1/fields/{identifier}", { key }),
    create: (body: unknown, key?: string) => call("POST", "/v1/fields", "/v1/fields", { body, key }),
    update: (identifier: string, body: unknown, key?: string) =>
      call("PATCH", `/v1/fields/${identifier}`, "/v1/fields/{identifier}", { body, key }),
    remove: (identifier: string, key?: string) =>
      call("DELETE", `/v1/fields/${identifier}`, "/v1/fields/{identifier}", { key }),
    /** Creates a field and returns its body (fails the test unless 201). */
    async field(body: Body) {
      const res = await call("POST", "/v1/fields", "/v1/fields", { body });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      return res.body.field as Body & { id: string; key: string };
    },
    createPost: (body: Body) => call("POST", "/v1/posts", "/v1/posts", { body }),
    updatePost: (identifier: string, body: Body) =>
      call("PATCH", `/v1/posts/${identifier}`, "/v1/posts/{identifier}", { body }),
    async postFields(identifier: string) {
      const res = await call("GET", `/v1/posts/${identifier}?status=all`, "/v1/posts/{identifier}");
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return res.body.post.fields as Body;
    },
    category: fixtures.category,
    post: fixtures.post,
  };
}

describe("POST /v1/fields", () => {
  let ws: TestWorkspace;
  let api: ReturnType<typeof client>;
  beforeAll(async () => {
    ws = await app.workspace();
    api = client(ws);
  });

  it("creates a field: 201 {field} with defaults for what was not given", async () => {
    const res = await api.create({ key: "subtitle", name: "Subtitle", type: "text" });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      field: fieldBody({
        key: "subtitle",
        name: "Subtitle",
        type: "text",
        description: null,
        required: false,
        position: 0,
        options: [],
      }),
    });
  });

  it("stores every given input", async () => {
    const res = await api.create({
      key: "color_2",
      name: "Colour",
      type: "select",
      description: "The main colour",
      required: true,
      options: [
        { value: "red", label: "Red" },
        { value: "blue", label: "Blue" },
      ],
    });
    expect(res.status).toBe(201);
    expect(res.body.field).toEqual(
      fieldBody({
        key: "color_2",
        name: "Colour",
        type: "select",
        description: "The main colour",
        required: true,
        options: [optionBody("red", "Red", 0), optionBody("blue", "Blue", 1)],
      }),
    );
  });

  it("needs a private key: 403", async () => {
    const res = await api.create({ key: "public_try", name: "Nope", type: "text" }, ws.publicKey);
    expect(res.status).toBe(403);
    expect(res.body).toEqual(FORBIDDEN);
  });

  it("requires key, name and type", async () => {
    const res = await api.create({});
    expect(res.status).toBe(400);
    expect(res.body).toEqual(
      invalidBody(
        { field: "key", message: "Invalid input: expected string, received undefined" },
        { field: "name", message: "Invalid input: expected string, received undefined" },
        { field: "type", message: TYPE_RULE },
      ),
    );
  });

  describe("key", () => {
    it.each(["Upper", "with-dash", "with space", "dot.ted", "ümlaut"])(
      "must match ^[a-z0-9_]+$: %j is refused",
      async (key) => {
        const res = await api.create({ key, name: "Name", type: "text" });
        expect(res.status).toBe(400);
        expect(res.body).toEqual(invalidField({ field: "key", message: KEY_RULE }));
      },
    );

    it("accepts lowercase letters, digits and underscores", async () => {
      const res = await api.create({ key: "a_1_z9", name: "Name", type: "text" });
      expect(res.status).toBe(201);
      expect(res.body.field.key).toBe("a_1_z9");
    });

    it("must have at least 1 character", async () => {
      const res = await api.create({ key: "", name: "Name", type: "text" });
      expect(res.status).toBe(400);
      expect(res.body).toEqual(invalidField({ field: "key", message: KEY_RULE }));
    });

    it("may have 50 characters, not 51", async () => {
      expect((await api.create({ key: "k".repeat(50), name: "Name", type: "text" })).status).toBe(201);
      const res = await api.create({ key: "k".repeat(51), name: "Name", type: "text" });
      expect(res.status).toBe(400);
      expect(res.body).toEqual(invalidField({ field: "key", message: KEY_RULE }));
    });

    it("is unique in the workspace: a duplicate is 409", async () => {
      await api.field({ key: "unique_key", name: "First", type: "text" });
      const res = await api.create({ key: "unique_key", name: "Second", type: "number" });
      expect(res.status).toBe(409);
      expect(res.body).toEqual({
        error: "Key already in use",
        message: "A field with this key already exists in the workspace",
      });
    });

    it("may be used again in another workspace", async () => {
      await api.field({ key: "shared_key", name: "Here", type: "text" });
      const other = client(await app.workspace("Other"));
      expect((await other.create({ key: "shared_key", name: "There", type: "text" })).status).toBe(201);
    });
  });

  describe("name", () => {
    it("must have at least 1 character", async () => {
      const res = await api.create({ key: "name_empty", name: "", type: "text" });
      expect(res.status).toBe(400);
      expect(res.body).toEqual(invalidField({ field: "name", message: "Must be at least 1 character" }));
    });

    it("may have 50 characters, not 51", async () => {
      expect((await api.create({ key: "name_50", name: "n".repeat(50), type: "text" })).status).toBe(201);
      const res = await api.create({ key: "name_51", name: "n".repeat(51), type: "text" });
      expect(res.status).toBe(400);
      expect(res.body).toEqual(invalidField({ field: "name", message: "Must be at most 50 characters" }));
    });
  });

  describe("description", () => {
    it("may have 280 characters, not 281", async () => {
      const ok = await api.create({ key: "desc_280", name: "D", type: "text", description: "d".repeat(280) });
      expect(ok.status).toBe(201);
      expect(ok.body.field.description).toBe("d".repeat(280));
      const res = await api.create({
        key: "desc_281",
        name: "D",
        type: "text",
        description: "d".repeat(281),
      });
      expect(res.status).toBe(400);
      expect(res.body).toEqual(
        invalidField({ field: "description", message: "Must be at most 280 characters" }),
      );
    });

    it("may be null", async () => {
      const res = await api.create({ key: "desc_null", name: "D", type: "text", description: null });
      expect(res.status).toBe(201);
      expect(res.body.field.description).toBeNull();
    });
  });

  describe("type", () => {
    it.each(["text", "number", "boolean", "date", "richtext"])("%s is a type", async (type) => {
      const res = await api.create({ key: `type_${type}`, name: type, type });
      expect(res.status).toBe(201);
      expect(res.body.field.type).toBe(type);
    });

    it.each(["select", "multiselect"])("%s is a type (with options)", async (type) => {
      const res = await api.create({ key: `type_${type}`, name: type, type, options: options("a") });
      expect(res.status).toBe(201);
      expect(res.body.field.type).toBe(type);
    });

    it("anything else is refused", async () => {
      const res = await api.create({ key: "type_other", name: "Other", type: "json" });
      expect(res.status).toBe(400);
      expect(res.body).toEqual(invalidBody({ field: "type", message: TYPE_RULE }));
    });
  });

  describe("required", () => {
    it("defaults to false and may be true", async () => {
      expect((await api.field({ key: "req_default", name: "R", type: "text" })).required).toBe(false);
      expect((await api.field({ key: "req_true", name: "R", type: "text", required: true })).required).toBe(
        true,
      );
    });

    it("must be a boolean", async () => {
      const res = await api.create({ key: "req_bad", name: "R", type: "text", required: "yes" });
      expect(res.status).toBe(400);
      expect(res.body).toEqual(
        invalidBody({ field: "required", message: "Invalid input: expected boolean, received string" }),
      );
    });
  });

  describe("position", () => {
    it("puts new fields last", async () => {
      const own = client(await app.workspace("Positions"));
      const first = await own.field({ key: "first", name: "First", type: "text" });
      const second = await own.field({ key: "second", name: "Second", type: "number" });
      const third = await own.field({ key: "third", name: "Third", type: "boolean" });
      expect([first.position, second.position, third.position]).toEqual([0, 1, 2]);
    });

    it("gives fields created at the same moment distinct positions", async () => {
      const own = client(await app.workspace("Concurrent positions"));
      const created = await Promise.all(
        ["a", "b", "c", "d", "e"].map((key) =>
          own.field({ key: `parallel_${key}`, name: key, type: "text" }),
        ),
      );
      expect(created.map((field) => field.position).sort()).toEqual([0, 1, 2, 3, 4]);
    });
  });

  describe("options", () => {
    it.each(["select", "multiselect"])("are required for %s fields", async (type) => {
      const res = await api.create({ key: `no_options_${type}`, name: "O", type });
      expect(res.status).toBe(400);
      expect(res.body).toEqual(
        invalidField({ field: "options", message: `Required for ${type} fields (1 to 100 options)` }),
      );
    });

    it("may not be an empty list for select fields", async () => {
      const res = await api.create({ key: "empty_options", name: "O", type: "select", options: [] });
      expect(res.status).toBe(400);
      expect(res.body).toEqual(
        invalidField({ field: "options", message: "Required for select fields (1 to 100 options)" }),
      );
    });

    it.each(["text", "number", "boolean", "date", "richtext"])("are refused for %s fields", async (type) => {
      const res = await api.create({ key: `options_${type}`, name: "O", type, options: options("a") });
      expect(res.status).toBe(400);
      expect(res.body).toEqual(invalidField({ field: "options", message: `Not allowed for ${type} fields` }));
    });

    it("keep the order they were given in", async () => {
      const field = await api.field({
        key: "ordered",
        name: "O",
        type: "multiselect",
        options: options("c", "a", "b"),
      });
      expect(field.options).toEqual([
        optionBody("c", "C", 0),
        optionBody("a", "A", 1),
        optionBody("b", "B", 2),
      ]);
    });

    it("value: 1 to 80 characters", async () => {
      expect(
        (
          await api.create({
            key: "value_80",
            name: "O",
            type: "select",
            options: [{ value: "v".repeat(80), label: "L" }],
          })
        ).status,
      ).toBe(201);
      const res = await api.create({
        key: "value_bad",
        name: "O",
        type: "select",
        options: [
          { value: "", label: "Empty" },
          { value: "v".repeat(81), label: "Long" },
        ],
      });
      expect(res.status).toBe(400);
      expect(res.body).toEqual(
        invalidField(
          { field: "options.0.value", message: "Must be 1-80 characters" },
          { field: "options.1.value", message: "Must be 1-80 characters" },
        ),
      );
    });

    it("label: 1 to 80 characters", async () => {
      expect(
        (
          await api.create({
            key: "label_80",
            name: "O",
            type: "select",
            options: [{ value: "v", label: "l".repeat(80) }],
          })
        ).status,
      ).toBe(201);
      const res = await api.create({
        key: "label_bad",
        name: "O",
        type: "select",
        options: [
          { value: "a", label: "" },
          { value: "b", label: "l".repeat(81) },
        ],
      });
      expect(res.status).toBe(400);
      expect(res.body).toEqual(
        invalidField(
          { field: "options.0.label", message: "Must be 1-80 characters" },
          { field: "options.1.label", message: "Must be 1-80 characters" },
        ),
      );
    });

    it("each need a value and a label", async () => {
      const res = await api.create({
        key: "option_shape",
        name: "O",
        type: "select",
        options: [{ value: "a" }],
      });
      expect(res.status).toBe(400);
      expect(res.body).toEqual(
        invalidBody({
          field: "options.0.label",
          message: "Invalid input: expected string, received undefined",
        }),
      );
    });

    it("at most 100", async () => {
      const hundred = Array.from({ length: 100 }, (_, i) => ({ value: `v${i}`, label: `L${i}` }));
      const ok = await api.create({ key: "options_100", name: "O", type: "multiselect", options: hundred });
      expect(ok.status).toBe(201);
      expect(ok.body.field.options).toHaveLength(100);
      const res = await api.create({
        key: "options_101",
        name: "O",
        type: "multiselect",
        options: [...hundred, { value: "v100", label: "L100" }],
      });
      expect(res.status).toBe(400);
      expect(res.body).toEqual(invalidField({ field: "options", message: "At most 100 options" }));
    });

    it("values are unique within a field", async () => {
      const res = await api.create({
        key: "dup_values",
        name: "O",
        type: "select",
        options: [
          { value: "a", label: "A" },
          { value: "a", label: "Another A" },
        ],
      });
      expect(res.status).toBe(400);
      expect(res.body).toEqual(
        invalidField({ field: "options.1.value", message: 'Duplicate option value "a"' }),
      );
    });

    it("labels may repeat, and values may repeat across fields", async () => {
      await api.field({
        key: "same_a",
        name: "A",
        type: "select",
        options: [
          { value: "x", label: "Same" },
          { value: "y", label: "Same" },
        ],
      });
      expect(
        (await api.create({ key: "same_b", name: "B", type: "select", options: options("x") })).status,
      ).toBe(201);
    });
  });

  it("reports every problem at once", async () => {
    const res = await api.create({
      key: "Bad Key",
      name: "",
      type: "text",
      description: "d".repeat(281),
      options: options("a"),
    });
    expect(res.status).toBe(400);
    expect(res.body).toEqual(
      invalidField(
        { field: "name", message: "Must be at least 1 character" },
        { field: "description", message: "Must be at most 280 characters" },
        { field: "key", message: KEY_RULE },
        { field: "options", message: "Not allowed for text fields" },
      ),
    );
  });
});

describe("GET /v1/fields", () => {
  let api: ReturnType<typeof client>;
  let ws: TestWorkspace;
  beforeAll(async () => {
    ws = await app.workspace();
    api = client(ws);
  });

  it("is an empty list for a workspace without fields", async () => {
    const res = await api.list();
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ fields: [] });
  });

  it("lists every definition in position order, without pagination, with any key", async () => {
    const created: Body[] = [];
    for (let i = 0; i < 12; i++)
      created.push(await api.field({ key: `f${i}`, name: `Field ${i}`, type: "text" }));
    await client(await app.workspace("Elsewhere")).field({ key: "not_mine", name: "Not mine", type: "text" });

    const res = await api.list(ws.publicKey);
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(["fields"]);
    expect(res.body.fields).toEqual(created);
    expect(res.body.fields.map((f: Body) => f.position)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
  });

  it("is also served without a key at /v1/{workspace_id}/fields", async () => {
    const res = await app.request("GET", `/v1/${ws.id}/fields`);
    expectMatchesOpenApi(res, "get", "/v1/{workspace_id}/fields");
    expect(res.status).toBe(200);
    expect(res.body).toEqual((await api.list()).body);
    const one = await app.request("GET", `/v1/${ws.id}/fields/f3`);
    expectMatchesOpenApi(one, "get", "/v1/{workspace_id}/fields/{identifier}");
    expect(one.status).toBe(200);
    expect(one.body.field.key).toBe("f3");
  });

  it("follows position changes", async () => {
    await api.update("f11", { position: 0 });
    const res = await api.list();
    expect(res.body.fields.map((f: Body) => f.key)).toEqual([
      "f11",
      "f0",
      "f1",
      "f2",
      "f3",
      "f4",
      "f5",
      "f6",
      "f7",
      "f8",
      "f9",
      "f10",
    ]);
  });
});

describe("GET /v1/fields/{identifier}", () => {
  let api: ReturnType<typeof client>;
  let ws: TestWorkspace;
  let field: Body & { id: string };
  beforeAll(async () => {
    ws = await app.workspace();
    api = client(ws);
    field = await api.field({ key: "rating", name: "Rating", type: "number", description: "Stars" });
  });

  it("finds a field by id: 200 {field}", async () => {
    const res = await api.get(field.id, ws.publicKey);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ field });
  });

  it("finds a field by key", async () => {
    const res = await api.get("rating");
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ field });
  });

  it("404 for an unknown identifier", async () => {
    const res = await api.get("missing");
    expect(res.status).toBe(404);
    expect(res.body).toEqual({
      error: "Field not found",
      message: 'Field "missing" does not exist in this workspace',
    });
  });

  it("404 for another workspace's field", async () => {
    const other = client(await app.workspace("Other"));
    expect((await other.get(field.id)).status).toBe(404);
    expect((await other.get("rating")).status).toBe(404);
  });
});

describe("PATCH /v1/fields/{identifier}", () => {
  let ws: TestWorkspace;
  let api: ReturnType<typeof client>;
  let categoryId: string;
  beforeAll(async () => {
    ws = await app.workspace();
    api = client(ws);
    categoryId = (await api.category("news")).id;
  });

  it("changes nothing when nothing is given: 200 {field}", async () => {
    const field = await api.field({ key: "unchanged", name: "Unchanged", type: "text", description: "Same" });
    const res = await api.update("unchanged", {});
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ field: { ...field, updatedAt: isoDate } });
  });

  it("changes only the given inputs, by id or key", async () => {
    const field = await api.field({ key: "partial", name: "Partial", type: "text", description: "Old" });
    const byId = await api.update(field.id, { name: "Renamed" });
    expect(byId.status).toBe(200);
    expect(byId.body.field).toEqual({ ...field, name: "Renamed", updatedAt: isoDate });
    const byKey = await api.update("partial", { key: "partial_2", description: null });
    expect(byKey.status).toBe(200);
    expect(byKey.body.field).toEqual({
      ...field,
      key: "partial_2",
      name: "Renamed",
      description: null,
      updatedAt: isoDate,
    });
  });

  it("moves updatedAt", async () => {
    const field = await api.field({ key: "stamped", name: "Stamped", type: "text" });
    await new Promise((resolve) => setTimeout(resolve, 5));
    const res = await api.update("stamped", { name: "Stamped again" });
    expect(new Date(res.body.field.updatedAt).getTime()).toBeGreaterThan(
      new Date(field.updatedAt as string).getTime(),
    );
  });

  it("applies the create rules to key, name and description", async () => {
    await api.field({ key: "rules", name: "Rules", type: "text" });
    const res = await api.update("rules", {
      key: "Not Valid",
      name: "n".repeat(51),
      description: "d".repeat(281),
    });
    expect(res.status).toBe(400);
    expect(res.body).toEqual(
      invalidField(
        { field: "name", message: "Must be at most 50 characters" },
        { field: "description", message: "Must be at most 280 characters" },
        { field: "key", message: KEY_RULE },
      ),
    );
    const empty = await api.update("rules", { key: "", name: "" });
    expect(empty.body).toEqual(
      invalidField(
        { field: "name", message: "Must be at least 1 character" },
        { field: "key", message: KEY_RULE },
      ),
    );
  });

  it("refuses null for key, name, type and required", async () => {
    await api.field({ key: "nulls", name: "Nulls", type: "text" });
    const res = await api.update("nulls", { key: null, name: null, type: null, required: null });
    expect(res.status).toBe(400);
    expect(res.body).toEqual(
      invalidBody(
        { field: "key", message: "Invalid input: expected string, received null" },
        { field: "name", message: "Invalid input: expected string, received null" },
        { field: "type", message: TYPE_RULE },
        { field: "required", message: "Invalid input: expected boolean, received null" },
      ),
    );
  });

  it("a key taken by another field of the workspace is 409", async () => {
    await api.field({ key: "taken", name: "Taken", type: "text" });
    await api.field({ key: "taker", name: "Taker", type: "text" });
    const res = await api.update("taker", { key: "taken" });
    expect(res.status).toBe(409);
    expect(res.body).toEqual({
      error: "Key already in use",
      message: "A field with this key already exists in the workspace",
    });
  });

  it("renaming a key keeps the values of posts, under the new key", async () => {
    await api.field({ key: "old_name", name: "Old", type: "text" });
    await api.post({ slug: "renamed-key", categoryId, fields: { old_name: "kept" } });
    expect((await api.update("old_name", { key: "new_name" })).status).toBe(200);
    const fields = await api.postFields("renamed-key");
    expect(fields.new_name).toBe("kept");
    expect(fields).not.toHaveProperty("old_name");
  });

  it("needs a private key: 403", async () => {
    await api.field({ key: "guarded", name: "Guarded", type: "text" });
    const res = await api.update("guarded", { name: "Hacked" }, ws.publicKey);
    expect(res.status).toBe(403);
    expect(res.body).toEqual(FORBIDDEN);
  });

  it("404 for an unknown field", async () => {
    const res = await api.update("nowhere", { name: "X" });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({
      error: "Field not found",
      message: 'Field "nowhere" does not exist in this workspace',
    });
  });

  describe("position", () => {
    let own: ReturnType<typeof client>;
    const keys = async () => (await own.list()).body.fields.map((f: Body) => `${f.key}@${f.position}`);
    beforeAll(async () => {
      own = client(await app.workspace("Ordering"));
      for (const key of ["a", "b", "c", "d"]) await own.field({ key, name: key, type: "text" });
    });

    it("moves a field to the given place; the others close up", async () => {
      const res = await own.update("d", { position: 1 });
      expect(res.status).toBe(200);
      expect(res.body.field.position).toBe(1);
      expect(await keys()).toEqual(["a@0", "d@1", "b@2", "c@3"]);
    });

    it("moves a field to the front with 0", async () => {
      await own.update("c", { position: 0 });
      expect(await keys()).toEqual(["c@0", "a@1", "d@2", "b@3"]);
    });

    it("a position past the end puts the field last", async () => {
      await own.update("c", { position: 99 });
      expect(await keys()).toEqual(["a@0", "d@1", "b@2", "c@3"]);
    });

    it("new fields still go last after moves", async () => {
      const created = await own.field({ key: "e", name: "e", type: "text" });
      expect(created.position).toBe(4);
      expect(await keys()).toEqual(["a@0", "d@1", "b@2", "c@3", "e@4"]);
    });

    it("must be 0 or greater", async () => {
      const res = await own.update("a", { position: -1 });
      expect(res.status).toBe(400);
      expect(res.body).toEqual(invalidField({ field: "position", message: "Must be 0 or greater" }));
    });

    it("must be an integer", async () => {
      const res = await own.update("a", { position: 1.5 });
      expect(res.status).toBe(400);
      expect(res.body).toEqual(
        invalidBody({ field: "position", message: "Invalid input: expected int, received number" }),
      );
    });
  });

  describe("options", () => {
    it("replace the whole list", async () => {
      await api.field({ key: "replaced", name: "Replaced", type: "select", options: options("a", "b") });
      const res = await api.update("replaced", {
        options: [
          { value: "c", label: "See" },
          { value: "a", label: "Eh" },
        ],
      });
      expect(res.status).toBe(200);
      expect(res.body.field.options).toEqual([optionBody("c", "See", 0), optionBody("a", "Eh", 1)]);
    });

    it("are kept when not given", async () => {
      await api.field({ key: "kept_options", name: "Kept", type: "multiselect", options: options("a", "b") });
      const res = await api.update("kept_options", { name: "Still kept" });
      expect(res.body.field.options).toEqual([optionBody("a", "A", 0), optionBody("b", "B", 1)]);
    });

    it("are valid only for select and multiselect fields", async () => {
      await api.field({ key: "plain", name: "Plain", type: "text" });
      const res = await api.update("plain", { options: options("a") });
      expect(res.status).toBe(400);
      expect(res.body).toEqual(invalidField({ field: "options", message: "Not allowed for text fields" }));
    });

    it("may not be emptied", async () => {
      await api.field({ key: "not_empty", name: "Not empty", type: "select", options: options("a") });
      const res = await api.update("not_empty", { options: [] });
      expect(res.status).toBe(400);
      expect(res.body).toEqual(invalidField({ field: "options", message: "Must have 1 to 100 options" }));
    });

    it("follow the create rules", async () => {
      await api.field({ key: "option_rules", name: "Rules", type: "select", options: options("a") });
      const res = await api.update("option_rules", {
        options: [
          { value: "a", label: "" },
          { value: "a", label: "A" },
        ],
      });
      expect(res.status).toBe(400);
      expect(res.body).toEqual(
        invalidField(
          { field: "options.0.label", message: "Must be 1-80 characters" },
          { field: "options.1.value", message: 'Duplicate option value "a"' },
        ),
      );
      const many = Array.from({ length: 101 }, (_, i) => ({ value: `v${i}`, label: `L${i}` }));
      expect((await api.update("option_rules", { options: many })).body).toEqual(
        invalidField({ field: "options", message: "At most 100 options" }),
      );
    });
  });

  describe("type", () => {
    it("may change while no post has a value", async () => {
      await api.field({ key: "retyped", name: "Retyped", type: "text" });
      await api.post({ slug: "no-retyped-value", categoryId });
      const res = await api.update("retyped", { type: "number" });
      expect(res.status).toBe(200);
      expect(res.body.field.type).toBe("number");
    });

    it("to select or multiselect needs options", async () => {
      await api.field({ key: "to_select", name: "To select", type: "text" });
      const res = await api.update("to_select", { type: "select" });
      expect(res.status).toBe(400);
      expect(res.body).toEqual(
        invalidField({ field: "options", message: "Required when changing the type to select" }),
      );
      const ok = await api.update("to_select", { type: "multiselect", options: options("x") });
      expect(ok.status).toBe(200);
      expect(ok.body.field).toMatchObject({ type: "multiselect", options: [optionBody("x", "X", 0)] });
    });

    it("away from select drops the options", async () => {
      await api.field({ key: "from_select", name: "From select", type: "select", options: options("a") });
      const res = await api.update("from_select", { type: "text" });
      expect(res.status).toBe(200);
      expect(res.body.field).toMatchObject({ type: "text", options: [] });
    });

    it("a change to a non-option type may not bring options", async () => {
      await api.field({ key: "from_select_2", name: "From select", type: "select", options: options("a") });
      const res = await api.update("from_select_2", { type: "text", options: options("a") });
      expect(res.status).toBe(400);
      expect(res.body).toEqual(invalidField({ field: "options", message: "Not allowed for text fields" }));
    });
  });

  describe("changes that would invalidate stored values are refused", () => {
    it("changing the type while posts store values: 400 saying why", async () => {
      await api.field({ key: "typed", name: "Typed", type: "text" });
      await api.post({ slug: "typed-1", categoryId, fields: { typed: "words" } });
      await api.post({ slug: "typed-2", categoryId, fields: { typed: "more words" } });
      const res = await api.update("typed", { type: "number" });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({
        error: "Validation failed",
        message: 'Cannot change the type of "typed": 2 post(s) store values of type text',
        details: [{ field: "type", message: "2 post(s) have a text value; clear them first" }],
      });
      expect((await api.get("typed")).body.field.type).toBe("text");
      expect((await api.postFields("typed-1")).typed).toBe("words");
    });

    it("the type may change once the values are cleared", async () => {
      await api.field({ key: "cleared_first", name: "Cleared", type: "text" });
      await api.post({ slug: "cleared-first", categoryId, fields: { cleared_first: "x" } });
      await api.updatePost("cleared-first", { fields: { cleared_first: null } });
      expect((await api.update("cleared_first", { type: "boolean" })).status).toBe(200);
    });

    it("removing a select option still in use: 400 saying why", async () => {
      await api.field({
        key: "in_use",
        name: "In use",
        type: "select",
        options: options("red", "green", "blue"),
      });
      await api.post({ slug: "in-use", categoryId, fields: { in_use: "red" } });
      const res = await api.update("in_use", { options: options("green", "blue") });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({
        error: "Validation failed",
        message: "Cannot remove options still used by posts: red",
        details: [{ field: "options", message: "Still in use: red" }],
      });
      expect((await api.get("in_use")).body.field.options.map((o: Body) => o.value)).toEqual([
        "red",
        "green",
        "blue",
      ]);
    });

    it("removing a multiselect option still in use: 400 saying why", async () => {
      await api.field({
        key: "multi_in_use",
        name: "Multi",
        type: "multiselect",
        options: options("s", "m", "l"),
      });
      await api.post({ slug: "multi-in-use", categoryId, fields: { multi_in_use: ["s", "l"] } });
      const res = await api.update("multi_in_use", { options: options("m") });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({
        error: "Validation failed",
        message: "Cannot remove options still used by posts: s, l",
        details: [{ field: "options", message: "Still in use: s, l" }],
      });
    });

    it("removing unused options and relabelling used ones is fine", async () => {
      await api.field({ key: "relabel", name: "Relabel", type: "select", options: options("red", "green") });
      await api.post({ slug: "relabel", categoryId, fields: { relabel: "red" } });
      const res = await api.update("relabel", { options: [{ value: "red", label: "Crimson" }] });
      expect(res.status).toBe(200);
      expect(res.body.field.options).toEqual([optionBody("red", "Crimson", 0)]);
      expect((await api.postFields("relabel")).relabel).toBe("red");
    });

    it("making a field required while posts lack a value: 400 saying why", async () => {
      const own = client(await app.workspace("Required"));
      const category = (await own.category("news")).id;
      await own.field({ key: "must", name: "Must", type: "text" });
      await own.post({ slug: "has-value", categoryId: category, fields: { must: "yes" } });
      await own.post({ slug: "no-value-1", categoryId: category, status: "draft" });
      await own.post({ slug: "no-value-2", categoryId: category });
      const res = await own.update("must", { required: true });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({
        error: "Validation failed",
        message: 'Cannot make "must" required: 2 post(s) have no value',
        details: [{ field: "required", message: '2 post(s) have no value for "must"' }],
      });
      expect((await own.get("must")).body.field.required).toBe(false);

      await own.updatePost("no-value-1", { fields: { must: "now" } });
      await own.updatePost("no-value-2", { fields: { must: "too" } });
      const ok = await own.update("must", { required: true });
      expect(ok.status).toBe(200);
      expect(ok.body.field.required).toBe(true);
    });
  });
});

describe("DELETE /v1/fields/{identifier}", () => {
  let ws: TestWorkspace;
  let api: ReturnType<typeof client>;
  let categoryId: string;
  beforeAll(async () => {
    ws = await app.workspace();
    api = client(ws);
    categoryId = (await api.category("news")).id;
  });

  it("deletes the definition: 200 {id}, and its values disappear from posts", async () => {
    const doomed = await api.field({
      key: "doomed",
      name: "Doomed",
      type: "multiselect",
      options: options("a", "b"),
    });
    await api.field({ key: "survivor", name: "Survivor", type: "number" });
    await api.post({ slug: "carrier", categoryId, fields: { doomed: ["a"], survivor: 7 } });

    const res = await api.remove(doomed.id);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: doomed.id });
    expect(await api.postFields("carrier")).toEqual({ survivor: 7 });
    expect((await api.get("doomed")).status).toBe(404);
    expect((await api.list()).body.fields.map((f: Body) => f.key)).toEqual(["survivor"]);
  });

  it("a later field with the same key starts empty", async () => {
    await api.field({ key: "reborn", name: "Reborn", type: "text" });
    await api.post({ slug: "reborn", categoryId, fields: { reborn: "old value" } });
    await api.remove("reborn");
    await api.field({ key: "reborn", name: "Reborn", type: "text" });
    expect((await api.postFields("reborn")).reborn).toBeNull();
  });

  it("accepts the key as identifier", async () => {
    const field = await api.field({ key: "by_key", name: "By key", type: "text" });
    const res = await api.remove("by_key");
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: field.id });
  });

  it("404 for an unknown or already deleted field", async () => {
    const field = await api.field({ key: "twice", name: "Twice", type: "text" });
    expect((await api.remove(field.id)).status).toBe(200);
    const res = await api.remove(field.id);
    expect(res.status).toBe(404);
    expect(res.body).toEqual({
      error: "Field not found",
      message: `Field "${field.id}" does not exist in this workspace`,
    });
  });

  it("needs a private key, and cannot reach another workspace", async () => {
    const field = await api.field({ key: "protected", name: "Protected", type: "text" });
    const forbidden = await api.remove(field.id, ws.publicKey);
    expect(forbidden.status).toBe(403);
    expect(forbidden.body).toEqual(FORBIDDEN);
    expect((await client(await app.workspace("Other")).remove(field.id)).status).toBe(404);
    expect((await api.get(field.id)).status).toBe(200);
  });
});

describe("custom field values of posts", () => {
  let ws: TestWorkspace;
  let api: ReturnType<typeof client>;
  let categoryId: string;
  let postCount = 0;
  const post = (fields: unknown, extra: Body = {}) =>
    api.createPost({
      title: "Post",
      content: "<p>Body</p>",
      description: "About",
      slug: `post-${++postCount}`,
      categoryId,
      status: "published",
      ...(fields === undefined ? {} : { fields }),
      ...extra,
    });
  const rejects = async (fields: unknown, ...details: Problem[]) => {
    const res = await post(fields);
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    expect(res.body).toEqual(invalidPost(...details));
  };
  const stores = async (fields: Body) => {
    const res = await post(fields);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return api.postFields(res.body.post.id);
  };
  const UNSET = { title: null, body: null, rating: null, flag: null, day: null, color: null, sizes: null };

  beforeAll(async () => {
    ws = await app.workspace();
    api = client(ws);
    categoryId = (await api.category("news")).id;
    await api.field({ key: "title", name: "Title", type: "text" });
    await api.field({ key: "body", name: "Body", type: "richtext" });
    await api.field({ key: "rating", name: "Rating", type: "number" });
    await api.field({ key: "flag", name: "Flag", type: "boolean" });
    await api.field({ key: "day", name: "Day", type: "date" });
    await api.field({ key: "color", name: "Color", type: "select", options: options("red", "blue") });
    await api.field({ key: "sizes", name: "Sizes", type: "multiselect", options: options("s", "m", "l") });
  });

  describe("reads", () => {
    it("a post without values has every key of the workspace's definitions, null where unset", async () => {
      const res = await post(undefined);
      expect(res.status).toBe(201);
      expect(await api.postFields(res.body.post.id)).toEqual(UNSET);
    });

    it("values come back in their own JSON type, in definition order", async () => {
      const fields = await stores({
        sizes: ["l", "s"],
        color: "blue",
        day: "2024-02-29",
        flag: false,
        rating: 4.5,
        body: "<p>Rich</p>",
        title: "Subtitle",
      });
      expect(fields).toEqual({
        title: "Subtitle",
        body: "<p>Rich</p>",
        rating: 4.5,
        flag: false,
        day: "2024-02-29",
        color: "blue",
        sizes: ["l", "s"],
      });
      expect(Object.keys(fields)).toEqual(["title", "body", "rating", "flag", "day", "color", "sizes"]);
    });

    it("lists carry the same fields object", async () => {
      const created = await post({ rating: 1 });
      const res = await app.request("GET", "/v1/posts?limit=100", { key: ws.publicKey });
      expectMatchesOpenApi(res, "get", "/v1/posts");
      const listed = res.body.posts.find((p: Body) => p.id === created.body.post.id);
      expect(listed.fields).toEqual({ ...UNSET, rating: 1 });
    });

    it("a definition added later appears as null on existing posts", async () => {
      const own = client(await app.workspace("Later"));
      const category = (await own.category("news")).id;
      await own.field({ key: "early", name: "Early", type: "text" });
      await own.post({ slug: "older", categoryId: category, fields: { early: "here" } });
      await own.field({ key: "late", name: "Late", type: "number" });
      expect(await own.postFields("older")).toEqual({ early: "here", late: null });
    });
  });

  describe("text", () => {
    it("stores a string as given", async () => {
      expect((await stores({ title: "  <b>as is</b>  " })).title).toBe("  <b>as is</b>  ");
    });
    it("refuses anything but a string", async () => {
      await rejects({ title: 5 }, { field: "fields.title", message: "Must be a string" });
      await rejects({ title: ["a"] }, { field: "fields.title", message: "Must be a string" });
    });
  });

  describe("richtext", () => {
    it("is sanitized like post content", async () => {
      const fields = await stores({
        body: '<p onclick="steal()">Hi<script>alert(1)</script> <a href="javascript:x()">there</a></p>',
      });
      expect(fields.body).toBe("<p>Hi <a>there</a></p>");
    });
    it("refuses anything but a string", async () => {
      await rejects(
        { body: { html: "<p>x</p>" } },
        { field: "fields.body", message: "Must be a string of HTML" },
      );
    });
  });

  describe("number", () => {
    it("stores integers, decimals, negatives and zero", async () => {
      expect((await stores({ rating: 0 })).rating).toBe(0);
      expect((await stores({ rating: -12 })).rating).toBe(-12);
      expect((await stores({ rating: 3.25 })).rating).toBe(3.25);
    });
    it("refuses a numeric string", async () => {
      await rejects({ rating: "4" }, { field: "fields.rating", message: "Must be a finite number" });
    });
    it("refuses a number that is not finite (1e999 parses to Infinity)", async () => {
      const body = `{"title":"P","content":"<p>x</p>","description":"d","slug":"infinite","categoryId":"${categoryId}","status":"published","fields":{"rating":1e999}}`;
      const res = await app.request("POST", "/v1/posts", { key: ws.privateKey, body });
      expectMatchesOpenApi(res, "post", "/v1/posts");
      expect(res.status).toBe(400);
      expect(res.body).toEqual(invalidPost({ field: "fields.rating", message: "Must be a finite number" }));
    });
  });

  describe("boolean", () => {
    it("stores true and false", async () => {
      expect((await stores({ flag: true })).flag).toBe(true);
      expect((await stores({ flag: false })).flag).toBe(false);
    });
    it("refuses strings and numbers", async () => {
      await rejects({ flag: "true" }, { field: "fields.flag", message: "Must be true or false" });
      await rejects({ flag: 1 }, { field: "fields.flag", message: "Must be true or false" });
    });
  });

  describe("date", () => {
    it.each(["2024-02-29", "2024-06-01T12:30:00Z", "2024-06-01T12:30:00.123Z", "2024-06-01T23:59:59+02:00"])(
      "stores the ISO 8601 value %s",
      async (day) => {
        expect((await stores({ day })).day).toBe(day);
      },
    );
    it.each([
      "2023-02-29",
      "2024-02-31T10:00:00Z",
      "2024-13-01",
      "2024-06-01T25:00:00Z",
      "01/06/2024",
      "2024-6-1",
      "tomorrow",
      "",
    ])("refuses %j", async (day) => {
      await rejects(
        { day },
        { field: "fields.day", message: "Must be an ISO 8601 date (YYYY-MM-DD) or date-time" },
      );
    });
    it("refuses a timestamp number", async () => {
      await rejects(
        { day: 1717243800000 },
        { field: "fields.day", message: "Must be an ISO 8601 date (YYYY-MM-DD) or date-time" },
      );
    });
  });

  describe("select", () => {
    it("stores one of the option values", async () => {
      expect((await stores({ color: "red" })).color).toBe("red");
    });
    it("refuses a value that is not an option value (a label is not one)", async () => {
      await rejects({ color: "green" }, { field: "fields.color", message: "Must be one of: red, blue" });
      await rejects({ color: "RED" }, { field: "fields.color", message: "Must be one of: red, blue" });
    });
    it("refuses an array", async () => {
      await rejects({ color: ["red"] }, { field: "fields.color", message: "Must be one of: red, blue" });
    });
  });

  describe("multiselect", () => {
    it("stores an array of option values in the given order, also an empty one", async () => {
      expect((await stores({ sizes: ["m", "s"] })).sizes).toEqual(["m", "s"]);
      expect((await stores({ sizes: [] })).sizes).toEqual([]);
    });
    it("refuses a single value", async () => {
      await rejects({ sizes: "s" }, { field: "fields.sizes", message: "Must be an array of option values" });
    });
    it("refuses non-string items", async () => {
      await rejects(
        { sizes: ["s", 1] },
        { field: "fields.sizes", message: "Must be an array of option values" },
      );
    });
    it("refuses values that are not options", async () => {
      await rejects(
        { sizes: ["s", "xl", "xxl"] },
        { field: "fields.sizes", message: "Not options of this field: xl, xxl" },
      );
    });
    it("refuses duplicates", async () => {
      await rejects(
        { sizes: ["s", "m", "s"] },
        { field: "fields.sizes", message: "Must not contain duplicates" },
      );
    });
  });

  describe("on create", () => {
    it("an unknown key is refused", async () => {
      await rejects(
        { subtitle: "x" },
        { field: "fields.subtitle", message: 'Unknown custom field "subtitle"' },
      );
    });

    it("fields must be an object", async () => {
      const res = await post(["rating"]);
      expect(res.status).toBe(400);
      expect(res.body).toEqual(
        invalidBody({ field: "fields", message: "Invalid input: expected record, received array" }),
      );
    });

    it("one details entry per problem", async () => {
      await rejects(
        {
          nope: 1,
          also_nope: 2,
          title: 3,
          rating: "4",
          flag: "yes",
          day: "2024-02-30",
          color: "green",
          sizes: ["s", "s"],
        },
        { field: "fields.nope", message: 'Unknown custom field "nope"' },
        { field: "fields.also_nope", message: 'Unknown custom field "also_nope"' },
        { field: "fields.title", message: "Must be a string" },
        { field: "fields.rating", message: "Must be a finite number" },
        { field: "fields.flag", message: "Must be true or false" },
        { field: "fields.day", message: "Must be an ISO 8601 date (YYYY-MM-DD) or date-time" },
        { field: "fields.color", message: "Must be one of: red, blue" },
        { field: "fields.sizes", message: "Must not contain duplicates" },
      );
    });

    it("null leaves an optional field unset", async () => {
      expect(await stores({ rating: null, color: null })).toEqual(UNSET);
    });

    it("nothing is written when a value is refused", async () => {
      const res = await post({ title: "would be stored", rating: "bad" });
      expect(res.status).toBe(400);
      const list = await app.request("GET", "/v1/posts?status=all&limit=100", { key: ws.privateKey });
      expect(list.body.posts.some((p: Body) => (p.fields as Body).title === "would be stored")).toBe(false);
    });
  });

  describe("required fields", () => {
    let own: ReturnType<typeof client>;
    let category: string;
    beforeAll(async () => {
      own = client(await app.workspace("Required values"));
      category = (await own.category("news")).id;
      await own.field({ key: "headline", name: "Headline", type: "text", required: true });
      await own.field({ key: "score", name: "Score", type: "number", required: true });
      await own.field({ key: "note", name: "Note", type: "text" });
    });
    const create = (slug: string, fields?: Body) =>
      own.createPost({
        title: "P",
        content: "<p>x</p>",
        description: "d",
        slug,
        categoryId: category,
        status: "published",
        ...(fields ? { fields } : {}),
      });

    it("a missing required field on create: one details entry per field", async () => {
      const res = await create("missing");
      expect(res.status).toBe(400);
      expect(res.body).toEqual(
        invalidPost(
          { field: "fields.headline", message: '"headline" is required' },
          { field: "fields.score", message: '"score" is required' },
        ),
      );
    });

    it("null does not satisfy a required field on create", async () => {
      const res = await create("null-required", { headline: null, score: 1 });
      expect(res.status).toBe(400);
      expect(res.body).toEqual(invalidPost({ field: "fields.headline", message: '"headline" is required' }));
    });

    it("a required field cannot be cleared; the post keeps its value", async () => {
      expect((await create("keeps", { headline: "Big news", score: 3 })).status).toBe(201);
      const res = await own.updatePost("keeps", { fields: { headline: null } });
      expect(res.status).toBe(400);
      expect(res.body).toEqual(invalidPost({ field: "fields.headline", message: '"headline" is required' }));
      expect(await own.postFields("keeps")).toEqual({ headline: "Big news", score: 3, note: null });
    });

    it("an update need not repeat required fields", async () => {
      expect((await create("partial-update", { headline: "H", score: 1 })).status).toBe(201);
      const res = await own.updatePost("partial-update", { fields: { note: "added" } });
      expect(res.status).toBe(200);
      expect(await own.postFields("partial-update")).toEqual({ headline: "H", score: 1, note: "added" });
    });
  });

  describe("on update", () => {
    it("only the given keys change", async () => {
      const created = await post({ title: "Keep me", rating: 1, sizes: ["s"] });
      const res = await api.updatePost(created.body.post.id, { fields: { rating: 2, flag: true } });
      expect(res.status).toBe(200);
      expect(await api.postFields(created.body.post.id)).toEqual({
        ...UNSET,
        title: "Keep me",
        rating: 2,
        flag: true,
        sizes: ["s"],
      });
    });

    it("an update without fields leaves them alone", async () => {
      const created = await post({ color: "red" });
      await api.updatePost(created.body.post.id, { title: "Retitled" });
      expect((await api.postFields(created.body.post.id)).color).toBe("red");
    });

    it("null clears an optional field", async () => {
      const created = await post({ title: "Gone soon", color: "blue", sizes: ["m"] });
      const res = await api.updatePost(created.body.post.id, { fields: { title: null, sizes: null } });
      expect(res.status).toBe(200);
      expect(await api.postFields(created.body.post.id)).toEqual({ ...UNSET, color: "blue" });
    });

    it("values are validated as on create, one details entry per problem, and nothing changes", async () => {
      const created = await post({ rating: 5 });
      const res = await api.updatePost(created.body.post.id, {
        fields: { rating: "six", unknown: true, color: "pink" },
      });
      expect(res.status).toBe(400);
      expect(res.body).toEqual(
        invalidPost(
          { field: "fields.unknown", message: 'Unknown custom field "unknown"' },
          { field: "fields.rating", message: "Must be a finite number" },
          { field: "fields.color", message: "Must be one of: red, blue" },
        ),
      );
      expect((await api.postFields(created.body.post.id)).rating).toBe(5);
    });

    it("a change of fields alone moves the post's updatedAt", async () => {
      const created = await post({ rating: 1 });
      await new Promise((resolve) => setTimeout(resolve, 5));
      const res = await api.updatePost(created.body.post.id, { fields: { rating: 2 } });
      expect(new Date(res.body.post.updatedAt).getTime()).toBeGreaterThan(
        new Date(created.body.post.createdAt).getTime(),
      );
    });
  });
});
