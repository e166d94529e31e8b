// Custom field definitions (Field, FieldOption; fields, field, createField, updateField, deleteField)
// and the custom field values of posts (`fields`, `fieldEntries`), through GraphQL: every rule of
// issue 6 as its own case, with the exact error.
import type { ExecutionResult } from "graphql";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isoDate, restFixtures } from "../helpers/rest-fixtures.ts";
import { startTestApp, type TestApp, type TestWorkspace } from "../helpers/test-app.ts";

type Body = Record<string, unknown>;
type Problem = { field: string; message: string };

const KEY_RULE = "Must be 1-50 characters of lowercase letters, digits and underscores (^[a-z0-9_]+$)";
const FIELD =
  "id key name description type required position options { id value label position createdAt updatedAt } createdAt updatedAt";
const CREATE = `mutation Create($input: CreateFieldInput!) { createField(input: $input) { ${FIELD} } }`;
const UPDATE = `mutation Update($identifier: String!, $input: UpdateFieldInput!) { updateField(identifier: $identifier, input: $input) { ${FIELD} } }`;
const DELETE = "mutation Delete($identifier: String!) { deleteField(identifier: $identifier) { id } }";
const LIST = `{ fields { ${FIELD} } }`;
const GET = `query Get($identifier: String!) { field(identifier: $identifier) { ${FIELD} } }`;
const POST_VALUES = "id fields fieldEntries { key type value text number boolean values }";
const CREATE_POST = `mutation CreatePost($input: CreatePostInput!) { createPost(input: $input) { ${POST_VALUES} } }`;
const UPDATE_POST = `mutation UpdatePost($identifier: String!, $input: UpdatePostInput!) { updatePost(identifier: $identifier, input: $input) { ${POST_VALUES} } }`;
const READ_POST = `query Read($identifier: String!) { post(identifier: $identifier, status: ALL) { ${POST_VALUES} } }`;

/** The errors of a result in the shape clients see them: message and extensions. */
const errorsOf = (result: ExecutionResult) =>
  result.errors?.map((error) => ({ message: error.message, extensions: error.extensions }));
const badInput = (message: string, ...details: Problem[]) => [
  { message, extensions: { code: "BAD_USER_INPUT", http: { status: 400 }, details } },
];
const invalidField = (...details: Problem[]) => badInput("Invalid field", ...details);
const invalidPost = (...details: Problem[]) => badInput("Invalid post", ...details);
const notFound = (identifier: string) => [
  {
    message: `Field "${identifier}" does not exist in this workspace`,
    extensions: { code: "NOT_FOUND", http: { status: 404 }, resource: "Field" },
  },
];
const forbidden = [
  {
    message: "Writes need a private API key; this key is public and can only read",
    extensions: { code: "FORBIDDEN", http: { status: 403 }, requiredScope: "fields:write" },
  },
];

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

function client(ws: TestWorkspace) {
  const run = (query: string, variables: Body = {}, key = ws.privateKey) =>
    app.graphql(key, query, variables);
  return {
    run,
    create: (input: Body, key?: string) => run(CREATE, { input }, key),
    update: (identifier: string, input: Body, key?: string) => run(UPDATE, { identifier, input }, key),
    remove: (identifier: string, key?: string) => run(DELETE, { identifier }, key),
    get: (identifier: string, key?: string) => run(GET, { identifier }, key),
    list: async (key?: string) => {
      const result = await run(LIST, {}, key);
      expect(result.errors).toBeUndefined();
      return result.data.fields as Body[];
    },
    async field(input: Body) {
      const result = await run(CREATE, { input });
      expect(errorsOf(result)).toBeUndefined();
      return result.data.createField as Body & { id: string; key: string };
    },
    async category() {
      return (
        await restFixtures(app, ws.privateKey).category(`news-${Math.random().toString(36).slice(2, 8)}`)
      ).id;
    },
  };
}

describe("createField", () => {
  let ws: TestWorkspace;
  let api: ReturnType<typeof client>;
  beforeAll(async () => {
    ws = await app.workspace();
    api = client(ws);
  });

  it("creates a field with defaults for what was not given", async () => {
    const result = await api.create({ key: "subtitle", name: "Subtitle", type: "TEXT" });
    expect(result.errors).toBeUndefined();
    expect(result.data).toEqual({
      createField: fieldBody({ key: "subtitle", name: "Subtitle", type: "TEXT", position: 0 }),
    });
  });

  it("stores every given input, options in order", async () => {
    const field = await api.field({
      key: "color",
      name: "Colour",
      type: "SELECT",
      description: "The main colour",
      required: true,
      options: [
        { value: "red", label: "Red" },
        { value: "blue", label: "Blue" },
      ],
    });
    expect(field).toEqual(
      fieldBody({
        key: "color",
        name: "Colour",
        type: "SELECT",
        description: "The main colour",
        required: true,
        options: [optionBody("red", "Red", 0), optionBody("blue", "Blue", 1)],
      }),
    );
  });

  it("needs a private key", async () => {
    const result = await api.create({ key: "public_try", name: "Nope", type: "TEXT" }, ws.publicKey);
    expect(result.data).toBeNull();
    expect(errorsOf(result)).toEqual(forbidden);
  });

  describe("key", () => {
    it.each(["Upper", "with-dash", "with space", "ümlaut"])(
      "must match ^[a-z0-9_]+$: %j is refused",
      async (key) => {
        expect(errorsOf(await api.create({ key, name: "N", type: "TEXT" }))).toEqual(
          invalidField({ field: "key", message: KEY_RULE }),
        );
      },
    );

    it("must have at least 1 character", async () => {
      expect(errorsOf(await api.create({ key: "", name: "N", type: "TEXT" }))).toEqual(
        invalidField({ field: "key", message: KEY_RULE }),
      );
    });

    it("may have 50 characters, not 51", async () => {
      expect((await api.create({ key: "k".repeat(50), name: "N", type: "TEXT" })).errors).toBeUndefined();
      expect(errorsOf(await api.create({ key: "k".repeat(51), name: "N", type: "TEXT" }))).toEqual(
        invalidField({ field: "key", message: KEY_RULE }),
      );
    });

    it("is unique in the workspace: CONFLICT (409)", async () => {
      await api.field({ key: "unique_key", name: "First", type: "TEXT" });
      const result = await api.create({ key: "unique_key", name: "Second", type: "NUMBER" });
      expect(errorsOf(result)).toEqual([
        {
          message: "A field with this key already exists in the workspace",
          extensions: {
            code: "CONFLICT",
            http: { status: 409 },
            details: [{ field: "key", message: "A field with this key already exists in the workspace" }],
          },
        },
      ]);
    });

    it("may be used again in another workspace", async () => {
      await api.field({ key: "shared_key", name: "Here", type: "TEXT" });
      const other = client(await app.workspace("Other"));
      expect((await other.create({ key: "shared_key", name: "There", type: "TEXT" })).errors).toBeUndefined();
    });
  });

  describe("name", () => {
    it("must have at least 1 character", async () => {
      expect(errorsOf(await api.create({ key: "name_empty", name: "", type: "TEXT" }))).toEqual(
        invalidField({ field: "name", message: "Must be at least 1 character" }),
      );
    });

    it("may have 50 characters, not 51", async () => {
      expect(
        (await api.create({ key: "name_50", name: "n".repeat(50), type: "TEXT" })).errors,
      ).toBeUndefined();
      expect(errorsOf(await api.create({ key: "name_51", name: "n".repeat(51), type: "TEXT" }))).toEqual(
        invalidField({ field: "name", message: "Must be at most 50 characters" }),
      );
    });
  });

  describe("description", () => {
    it("may have 280 characters, not 281", async () => {
      expect(
        (await api.field({ key: "desc_280", name: "D", type: "TEXT", description: "d".repeat(280) }))
          .description,
      ).toBe("d".repeat(280));
      expect(
        errorsOf(
          await api.create({ key: "desc_281", name: "D", type: "TEXT", description: "d".repeat(281) }),
        ),
      ).toEqual(invalidField({ field: "description", message: "Must be at most 280 characters" }));
    });

    it("may be null", async () => {
      expect(
        (await api.field({ key: "desc_null", name: "D", type: "TEXT", description: null })).description,
      ).toBeNull();
    });
  });

  describe("type", () => {
    it.each(["TEXT", "NUMBER", "BOOLEAN", "DATE", "RICHTEXT"])("%s is a type", async (type) => {
      expect((await api.field({ key: `type_${type.toLowerCase()}`, name: type, type })).type).toBe(type);
    });

    it.each(["SELECT", "MULTISELECT"])("%s is a type (with options)", async (type) => {
      expect(
        (await api.field({ key: `type_${type.toLowerCase()}`, name: type, type, options: options("a") }))
          .type,
      ).toBe(type);
    });

    it("anything else fails validation of the operation at /graphql", async () => {
      const res = await app.request("POST", "/graphql", {
        key: ws.privateKey,
        body: {
          query: 'mutation { createField(input: { key: "type_json", name: "J", type: JSON }) { id } }',
        },
        headers: { accept: "application/json" },
      });
      // An application/json response keeps 200 for a request error, as GraphQL over HTTP prescribes.
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        errors: [
          {
            message: 'Value "JSON" does not exist in "FieldType" enum.',
            locations: [{ line: 1, column: 68 }],
            extensions: { code: "GRAPHQL_VALIDATION_FAILED" },
          },
        ],
      });
    });
  });

  describe("required", () => {
    it("defaults to false and may be true", async () => {
      expect((await api.field({ key: "req_default", name: "R", type: "TEXT" })).required).toBe(false);
      expect((await api.field({ key: "req_true", name: "R", type: "TEXT", required: true })).required).toBe(
        true,
      );
    });
  });

  describe("position", () => {
    it("puts new fields last", async () => {
      const own = client(await app.workspace("Positions"));
      const positions = [];
      for (const key of ["first", "second", "third"])
        positions.push((await own.field({ key, name: key, type: "TEXT" })).position);
      expect(positions).toEqual([0, 1, 2]);
    });
  });

  describe("options", () => {
    it.each(["SELECT", "MULTISELECT"])("are required for %s fields", async (type) => {
      expect(
        errorsOf(await api.create({ key: `no_options_${type.toLowerCase()}`, name: "O", type })),
      ).toEqual(
        invalidField({
          field: "options",
          message: `Required for ${type.toLowerCase()} fields (1 to 100 options)`,
        }),
      );
      expect(
        errorsOf(
          await api.create({ key: `empty_options_${type.toLowerCase()}`, name: "O", type, options: [] }),
        ),
      ).toEqual(
        invalidField({
          field: "options",
          message: `Required for ${type.toLowerCase()} fields (1 to 100 options)`,
        }),
      );
    });

    it.each(["TEXT", "NUMBER", "BOOLEAN", "DATE", "RICHTEXT"])("are refused for %s fields", async (type) => {
      expect(
        errorsOf(
          await api.create({ key: `options_${type.toLowerCase()}`, name: "O", type, options: options("a") }),
        ),
      ).toEqual(invalidField({ field: "options", message: `Not allowed for ${type.toLowerCase()} fields` }));
    });

    it("value: 1 to 80 characters", async () => {
      expect(
        (
          await api.create({
            key: "value_80",
            name: "O",
            type: "SELECT",
            options: [{ value: "v".repeat(80), label: "L" }],
          })
        ).errors,
      ).toBeUndefined();
      const result = await api.create({
        key: "value_bad",
        name: "O",
        type: "SELECT",
        options: [
          { value: "", label: "Empty" },
          { value: "v".repeat(81), label: "Long" },
        ],
      });
      expect(errorsOf(result)).toEqual(
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
            type: "SELECT",
            options: [{ value: "v", label: "l".repeat(80) }],
          })
        ).errors,
      ).toBeUndefined();
      const result = await api.create({
        key: "label_bad",
        name: "O",
        type: "SELECT",
        options: [
          { value: "a", label: "" },
          { value: "b", label: "l".repeat(81) },
        ],
      });
      expect(errorsOf(result)).toEqual(
        invalidField(
          { field: "options.0.label", message: "Must be 1-80 characters" },
          { field: "options.1.label", message: "Must be 1-80 characters" },
        ),
      );
    });

    it("at most 100", async () => {
      const hundred = Array.from({ length: 100 }, (_, i) => ({ value: `v${i}`, label: `L${i}` }));
      expect(
        (await api.field({ key: "options_100", name: "O", type: "MULTISELECT", options: hundred })).options,
      ).toHaveLength(100);
      const result = await api.create({
        key: "options_101",
        name: "O",
        type: "MULTISELECT",
        options: [...hundred, { value: "v100", label: "L100" }],
      });
      expect(errorsOf(result)).toEqual(invalidField({ field: "options", message: "At most 100 options" }));
    });

    it("values are unique within a field", async () => {
      const result = await api.create({
        key: "dup_values",
        name: "O",
        type: "SELECT",
        options: [
          { value: "a", label: "A" },
          { value: "a", label: "Another A" },
        ],
      });
      expect(errorsOf(result)).toEqual(
        invalidField({ field: "options.1.value", message: 'Duplicate option value "a"' }),
      );
    });
  });
});

describe("fields and field(identifier)", () => {
  let ws: TestWorkspace;
  let api: ReturnType<typeof client>;
  let created: Body[];
  beforeAll(async () => {
    ws = await app.workspace();
    api = client(ws);
    created = [];
    for (const key of ["alpha", "beta", "gamma"])
      created.push(await api.field({ key, name: key, type: "TEXT" }));
    await client(await app.workspace("Elsewhere")).field({ key: "not_mine", name: "Not mine", type: "TEXT" });
  });

  it("fields lists the workspace's definitions in position order, with any key", async () => {
    expect(await api.list(ws.publicKey)).toEqual(created);
  });

  it("fields follows position changes", async () => {
    expect((await api.update("gamma", { position: 0 })).errors).toBeUndefined();
    expect((await api.list()).map((f) => `${f.key}@${f.position}`)).toEqual(["gamma@0", "alpha@1", "beta@2"]);
  });

  it("field finds a definition by id or key", async () => {
    const beta = created[1] as Body & { id: string };
    const byId = await api.get(beta.id, ws.publicKey);
    expect(byId.data).toEqual({ field: { ...beta, updatedAt: isoDate, position: expect.any(Number) } });
    const byKey = await api.get("beta");
    expect(byKey.data).toEqual(byId.data);
  });

  it("field: NOT_FOUND (404) for an unknown identifier or another workspace's field", async () => {
    const missing = await api.get("missing");
    expect(missing.data).toBeNull();
    expect(errorsOf(missing)).toEqual(notFound("missing"));
    const foreign = await client(await app.workspace("Foreign")).get("alpha");
    expect(errorsOf(foreign)).toEqual(notFound("alpha"));
  });
});

describe("updateField", () => {
  let ws: TestWorkspace;
  let api: ReturnType<typeof client>;
  let categoryId: string;
  let slugs = 0;
  const post = async (fields: Body, status = "PUBLISHED") => {
    const result = await api.run(CREATE_POST, {
      input: {
        title: "P",
        content: "<p>x</p>",
        description: "d",
        slug: `post-${++slugs}`,
        categoryId,
        status,
        fields,
      },
    });
    expect(errorsOf(result)).toBeUndefined();
    return result.data.createPost as Body & { id: string };
  };
  beforeAll(async () => {
    ws = await app.workspace();
    api = client(ws);
    categoryId = await api.category();
  });

  it("every input is optional: an empty input changes nothing", async () => {
    const field = await api.field({ key: "unchanged", name: "Unchanged", type: "TEXT", description: "Same" });
    const result = await api.update("unchanged", {});
    expect(result.data).toEqual({ updateField: { ...field, updatedAt: isoDate } });
  });

  it("changes only the given inputs, by id or key", async () => {
    const field = await api.field({ key: "partial", name: "Partial", type: "TEXT", description: "Old" });
    const byId = await api.update(field.id, { name: "Renamed" });
    expect(byId.data?.updateField).toEqual({ ...field, name: "Renamed", updatedAt: isoDate });
    const byKey = await api.update("partial", { key: "partial_2", description: null });
    expect(byKey.data?.updateField).toEqual({
      ...field,
      key: "partial_2",
      name: "Renamed",
      description: null,
      updatedAt: isoDate,
    });
  });

  it("applies the create rules to key, name and description", async () => {
    await api.field({ key: "rules", name: "Rules", type: "TEXT" });
    expect(
      errorsOf(await api.update("rules", { key: "Not Valid", name: "", description: "d".repeat(281) })),
    ).toEqual(
      invalidField(
        { field: "name", message: "Must be at least 1 character" },
        { field: "description", message: "Must be at most 280 characters" },
        { field: "key", message: KEY_RULE },
      ),
    );
  });

  it("refuses null for key, name, type and required", async () => {
    await api.field({ key: "nulls", name: "Nulls", type: "TEXT" });
    expect(
      errorsOf(await api.update("nulls", { key: null, name: null, type: null, required: null })),
    ).toEqual(
      invalidField(
        { field: "key", message: "Cannot be null" },
        { field: "name", message: "Cannot be null" },
        { field: "type", message: "Cannot be null" },
        { field: "required", message: "Cannot be null" },
      ),
    );
  });

  it("a key taken in the workspace: CONFLICT (409)", async () => {
    await api.field({ key: "taken", name: "Taken", type: "TEXT" });
    await api.field({ key: "taker", name: "Taker", type: "TEXT" });
    const result = await api.update("taker", { key: "taken" });
    expect(errorsOf(result)?.[0]?.extensions).toEqual({
      code: "CONFLICT",
      http: { status: 409 },
      details: [{ field: "key", message: "A field with this key already exists in the workspace" }],
    });
  });

  it("needs a private key; NOT_FOUND for an unknown field", async () => {
    await api.field({ key: "guarded", name: "Guarded", type: "TEXT" });
    expect(errorsOf(await api.update("guarded", { name: "X" }, ws.publicKey))).toEqual(forbidden);
    expect(errorsOf(await api.update("nowhere", { name: "X" }))).toEqual(notFound("nowhere"));
  });

  it("position moves a field; the others close up; past the end means last; below 0 is refused", async () => {
    const own = client(await app.workspace("Ordering"));
    for (const key of ["a", "b", "c", "d"]) await own.field({ key, name: key, type: "TEXT" });
    const order = async () => (await own.list()).map((f) => `${f.key}@${f.position}`);
    expect((await own.update("d", { position: 1 })).data?.updateField.position).toBe(1);
    expect(await order()).toEqual(["a@0", "d@1", "b@2", "c@3"]);
    await own.update("a", { position: 50 });
    expect(await order()).toEqual(["d@0", "b@1", "c@2", "a@3"]);
    expect((await own.field({ key: "e", name: "e", type: "TEXT" })).position).toBe(4);
    expect(errorsOf(await own.update("a", { position: -1 }))).toEqual(
      invalidField({ field: "position", message: "Must be 0 or greater" }),
    );
  });

  describe("options", () => {
    it("replace the whole list", async () => {
      await api.field({ key: "replaced", name: "Replaced", type: "MULTISELECT", options: options("a", "b") });
      const result = await api.update("replaced", {
        options: [
          { value: "c", label: "See" },
          { value: "a", label: "Eh" },
        ],
      });
      expect(result.data?.updateField.options).toEqual([optionBody("c", "See", 0), optionBody("a", "Eh", 1)]);
    });

    it("are valid only for select and multiselect fields", async () => {
      await api.field({ key: "plain", name: "Plain", type: "NUMBER" });
      expect(errorsOf(await api.update("plain", { options: options("a") }))).toEqual(
        invalidField({ field: "options", message: "Not allowed for number fields" }),
      );
    });

    it("may not be emptied", async () => {
      await api.field({ key: "not_empty", name: "Not empty", type: "SELECT", options: options("a") });
      expect(errorsOf(await api.update("not_empty", { options: [] }))).toEqual(
        invalidField({ field: "options", message: "Must have 1 to 100 options" }),
      );
    });

    it("changing the type to select needs options", async () => {
      await api.field({ key: "to_select", name: "To select", type: "TEXT" });
      expect(errorsOf(await api.update("to_select", { type: "SELECT" }))).toEqual(
        invalidField({ field: "options", message: "Required when changing the type to select" }),
      );
      const result = await api.update("to_select", { type: "SELECT", options: options("x") });
      expect(result.data?.updateField).toMatchObject({ type: "SELECT", options: [optionBody("x", "X", 0)] });
    });
  });

  describe("changes that would invalidate stored values are refused", () => {
    it("changing the type while posts store values", async () => {
      await api.field({ key: "typed", name: "Typed", type: "TEXT" });
      await post({ typed: "words" });
      expect(errorsOf(await api.update("typed", { type: "NUMBER" }))).toEqual(
        badInput('Cannot change the type of "typed": 1 post(s) store values of type text', {
          field: "type",
          message: "1 post(s) have a text value; clear them first",
        }),
      );
      expect((await api.get("typed")).data?.field.type).toBe("TEXT");
    });

    it("the type may change while no post has a value", async () => {
      await api.field({ key: "retyped", name: "Retyped", type: "TEXT" });
      expect((await api.update("retyped", { type: "DATE" })).data?.updateField.type).toBe("DATE");
    });

    it("removing an option still in use", async () => {
      await api.field({ key: "in_use", name: "In use", type: "SELECT", options: options("red", "green") });
      await post({ in_use: "green" });
      expect(errorsOf(await api.update("in_use", { options: options("red") }))).toEqual(
        badInput("Cannot remove options still used by posts: green", {
          field: "options",
          message: "Still in use: green",
        }),
      );
      expect((await api.update("in_use", { options: options("green", "blue") })).errors).toBeUndefined();
    });

    it("making a field required while posts lack a value", async () => {
      const own = client(await app.workspace("Required"));
      const category = await own.category();
      await own.field({ key: "must", name: "Must", type: "BOOLEAN" });
      const created = await own.run(CREATE_POST, {
        input: {
          title: "P",
          content: "<p>x</p>",
          description: "d",
          slug: "no-value",
          categoryId: category,
          status: "DRAFT",
        },
      });
      expect(created.errors).toBeUndefined();
      expect(errorsOf(await own.update("must", { required: true }))).toEqual(
        badInput('Cannot make "must" required: 1 post(s) have no value', {
          field: "required",
          message: '1 post(s) have no value for "must"',
        }),
      );
      await own.run(UPDATE_POST, { identifier: "no-value", input: { fields: { must: false } } });
      expect((await own.update("must", { required: true })).data?.updateField.required).toBe(true);
    });
  });
});

describe("deleteField", () => {
  let ws: TestWorkspace;
  let api: ReturnType<typeof client>;
  beforeAll(async () => {
    ws = await app.workspace();
    api = client(ws);
  });

  it("deletes the definition and its values disappear from posts", async () => {
    const categoryId = await api.category();
    const doomed = await api.field({ key: "doomed", name: "Doomed", type: "SELECT", options: options("a") });
    await api.field({ key: "survivor", name: "Survivor", type: "TEXT" });
    const created = await api.run(CREATE_POST, {
      input: {
        title: "P",
        content: "<p>x</p>",
        description: "d",
        slug: "carrier",
        categoryId,
        status: "PUBLISHED",
        fields: { doomed: "a", survivor: "s" },
      },
    });
    expect(created.errors).toBeUndefined();

    const result = await api.remove("doomed");
    expect(result.data).toEqual({ deleteField: { id: doomed.id } });
    const read = await api.run(READ_POST, { identifier: "carrier" });
    expect(read.data?.post.fields).toEqual({ survivor: "s" });
    expect(read.data?.post.fieldEntries).toEqual([
      { key: "survivor", type: "TEXT", value: "s", text: "s", number: null, boolean: null, values: null },
    ]);
    expect(errorsOf(await api.get(doomed.id))).toEqual(notFound(doomed.id));
  });

  it("needs a private key; NOT_FOUND for an unknown field or another workspace's", async () => {
    const field = await api.field({ key: "protected", name: "Protected", type: "TEXT" });
    expect(errorsOf(await api.remove(field.id, ws.publicKey))).toEqual(forbidden);
    expect(errorsOf(await client(await app.workspace("Other")).remove(field.id))).toEqual(notFound(field.id));
    expect(errorsOf(await api.remove("nowhere"))).toEqual(notFound("nowhere"));
    expect((await api.get(field.id)).errors).toBeUndefined();
  });
});

describe("post field values", () => {
  let ws: TestWorkspace;
  let api: ReturnType<typeof client>;
  let categoryId: string;
  let slugs = 0;
  const createPost = (fields?: unknown) =>
    api.run(CREATE_POST, {
      input: {
        title: "P",
        content: "<p>x</p>",
        description: "d",
        slug: `post-${++slugs}`,
        categoryId,
        status: "PUBLISHED",
        ...(fields === undefined ? {} : { fields }),
      },
    });
  const stores = async (fields: Body) => {
    const result = await createPost(fields);
    expect(errorsOf(result)).toBeUndefined();
    return result.data.createPost as { id: string; fields: Body; fieldEntries: Body[] };
  };
  const UNSET = { title: null, body: null, rating: null, flag: null, day: null, color: null, sizes: null };
  const entry = (key: string, type: string, value: unknown, typed: Body = {}) => ({
    key,
    type,
    value,
    text: null,
    number: null,
    boolean: null,
    values: null,
    ...typed,
  });

  beforeAll(async () => {
    ws = await app.workspace();
    api = client(ws);
    categoryId = await api.category();
    await api.field({ key: "title", name: "Title", type: "TEXT" });
    await api.field({ key: "body", name: "Body", type: "RICHTEXT" });
    await api.field({ key: "rating", name: "Rating", type: "NUMBER" });
    await api.field({ key: "flag", name: "Flag", type: "BOOLEAN" });
    await api.field({ key: "day", name: "Day", type: "DATE" });
    await api.field({ key: "color", name: "Color", type: "SELECT", options: options("red", "blue") });
    await api.field({ key: "sizes", name: "Sizes", type: "MULTISELECT", options: options("s", "m", "l") });
  });

  it("fields has every key of the definitions, null where unset; fieldEntries one typed entry per definition", async () => {
    const created = await stores({});
    expect(created.fields).toEqual(UNSET);
    expect(created.fieldEntries).toEqual([
      entry("title", "TEXT", null),
      entry("body", "RICHTEXT", null),
      entry("rating", "NUMBER", null),
      entry("flag", "BOOLEAN", null),
      entry("day", "DATE", null),
      entry("color", "SELECT", null),
      entry("sizes", "MULTISELECT", null),
    ]);
  });

  it("stores a value of every type, read back in its own JSON type and as typed entries", async () => {
    const created = await stores({
      title: "Subtitle",
      body: "<p>Rich<script>x()</script></p>",
      rating: 4.5,
      flag: true,
      day: "2024-06-01T12:30:00Z",
      color: "blue",
      sizes: ["l", "s"],
    });
    const expected = {
      title: "Subtitle",
      body: "<p>Rich</p>",
      rating: 4.5,
      flag: true,
      day: "2024-06-01T12:30:00Z",
      color: "blue",
      sizes: ["l", "s"],
    };
    expect(created.fields).toEqual(expected);
    expect(created.fieldEntries).toEqual([
      entry("title", "TEXT", "Subtitle", { text: "Subtitle" }),
      entry("body", "RICHTEXT", "<p>Rich</p>", { text: "<p>Rich</p>" }),
      entry("rating", "NUMBER", 4.5, { number: 4.5 }),
      entry("flag", "BOOLEAN", true, { boolean: true }),
      entry("day", "DATE", "2024-06-01T12:30:00Z", { text: "2024-06-01T12:30:00Z" }),
      entry("color", "SELECT", "blue", { text: "blue" }),
      entry("sizes", "MULTISELECT", ["l", "s"], { values: ["l", "s"] }),
    ]);
    const read = await api.run(READ_POST, { identifier: created.id });
    expect(read.data?.post.fields).toEqual(expected);
  });

  it.each([
    ["text", { title: 1 }, "Must be a string"],
    ["richtext", { body: false }, "Must be a string of HTML"],
    ["number", { rating: "4.5" }, "Must be a finite number"],
    ["boolean", { flag: "false" }, "Must be true or false"],
    ["date", { day: "2024-02-30" }, "Must be an ISO 8601 date (YYYY-MM-DD) or date-time"],
    ["select", { color: "Red" }, "Must be one of: red, blue"],
    ["multiselect (not an array)", { sizes: "s" }, "Must be an array of option values"],
    ["multiselect (not options)", { sizes: ["xl"] }, "Not options of this field: xl"],
    ["multiselect (duplicates)", { sizes: ["m", "m"] }, "Must not contain duplicates"],
  ])("a wrong %s value is refused", async (_type, fields, message) => {
    const [key] = Object.keys(fields);
    const result = await createPost(fields);
    expect(result.data).toBeNull();
    expect(errorsOf(result)).toEqual(invalidPost({ field: `fields.${key}`, message }));
  });

  it("an unknown key is refused", async () => {
    expect(errorsOf(await createPost({ subtitle: "x" }))).toEqual(
      invalidPost({ field: "fields.subtitle", message: 'Unknown custom field "subtitle"' }),
    );
  });

  it("fields must be an object", async () => {
    expect(errorsOf(await createPost(["title"]))).toEqual(
      invalidPost({ field: "fields", message: "Must be an object keyed by field key" }),
    );
  });

  it("one details entry per problem", async () => {
    expect(errorsOf(await createPost({ unknown: 1, title: 2, flag: null, rating: "x" }))).toEqual(
      invalidPost(
        { field: "fields.unknown", message: 'Unknown custom field "unknown"' },
        { field: "fields.title", message: "Must be a string" },
        { field: "fields.rating", message: "Must be a finite number" },
      ),
    );
  });

  it("on update only the given keys change, and null clears an optional field", async () => {
    const created = await stores({ title: "Keep", rating: 1, sizes: ["s"] });
    const result = await api.run(UPDATE_POST, {
      identifier: created.id,
      input: { fields: { rating: 2, sizes: null, flag: false } },
    });
    expect(errorsOf(result)).toBeUndefined();
    expect(result.data.updatePost.fields).toEqual({ ...UNSET, title: "Keep", rating: 2, flag: false });
  });

  it("updates are validated too, and change nothing when refused", async () => {
    const created = await stores({ rating: 5 });
    const result = await api.run(UPDATE_POST, {
      identifier: created.id,
      input: { fields: { rating: "six", nope: 1 } },
    });
    expect(errorsOf(result)).toEqual(
      invalidPost(
        { field: "fields.nope", message: 'Unknown custom field "nope"' },
        { field: "fields.rating", message: "Must be a finite number" },
      ),
    );
    expect((await api.run(READ_POST, { identifier: created.id })).data?.post.fields.rating).toBe(5);
  });

  describe("required fields", () => {
    let own: ReturnType<typeof client>;
    let category: string;
    beforeAll(async () => {
      own = client(await app.workspace("Required values"));
      category = await own.category();
      await own.field({ key: "headline", name: "Headline", type: "TEXT", required: true });
      await own.field({ key: "note", name: "Note", type: "TEXT" });
    });
    const create = (slug: string, fields?: Body) =>
      own.run(CREATE_POST, {
        input: {
          title: "P",
          content: "<p>x</p>",
          description: "d",
          slug,
          categoryId: category,
          status: "PUBLISHED",
          ...(fields ? { fields } : {}),
        },
      });

    it("are needed on create", async () => {
      expect(errorsOf(await create("missing"))).toEqual(
        invalidPost({ field: "fields.headline", message: '"headline" is required' }),
      );
      expect(errorsOf(await create("null", { headline: null }))).toEqual(
        invalidPost({ field: "fields.headline", message: '"headline" is required' }),
      );
    });

    it("cannot be cleared, and need not be repeated on update", async () => {
      expect((await create("kept", { headline: "Big news" })).errors).toBeUndefined();
      const cleared = await own.run(UPDATE_POST, {
        identifier: "kept",
        input: { fields: { headline: null } },
      });
      expect(errorsOf(cleared)).toEqual(
        invalidPost({ field: "fields.headline", message: '"headline" is required' }),
      );
      const noted = await own.run(UPDATE_POST, { identifier: "kept", input: { fields: { note: "n" } } });
      expect(noted.data?.updatePost.fields).toEqual({ headline: "Big news", note: "n" });
    });
  });
});
