// A workspace's locales (issue 56, its first step): /v1/locales and the GraphQL fields behind it, as a
// client sees them. Codes are canonical BCP 47 (`en-us` is stored and answered as `en-US`); every
// workspace has exactly one default; fallback chains name locales of the workspace, at most five, and
// never make a cycle across the workspace's chains. Reading needs any key, writing `locales:write`.
// Over HTTP only (GraphQL through /graphql too), so it also runs against the built server.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectMatchesOpenApi } from "../helpers/openapi-check.ts";
import { openApiClient } from "../helpers/openapi-client.ts";
import { isoDate } from "../helpers/rest-fixtures.ts";
import { startTestApp, type TestApp, type TestWorkspace } from "../helpers/test-app.ts";

type Body = Record<string, unknown>;
type Problem = { field: string; message: string };

const ADMIN_TOKEN = "admin-token-for-locale-tests-0123456789";
const CODE_RULE = "Must be a BCP 47 language tag, such as en, en-US or pt-BR";

const locale = (code: string, name: string, extra: Body = {}) => ({
  id: expect.any(String),
  code,
  name,
  isDefault: false,
  fallback: [],
  createdAt: isoDate,
  updatedAt: isoDate,
  ...extra,
});
const invalid = (message: string, ...details: Problem[]) => ({
  error: "Validation failed",
  message,
  details,
});

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp({ env: { ADMIN_TOKEN } });
});
afterAll(async () => app?.close());

/** The REST calls of one workspace, each answer checked against the OpenAPI document. */
function client(ws: TestWorkspace) {
  const call = openApiClient(
    () => app,
    () => ws.privateKey,
  );
  return {
    list: (key?: string) => call("GET", "/v1/locales", "/v1/locales", { key }),
    create: (body: unknown, key?: string) => call("POST", "/v1/locales", "/v1/locales", { body, key }),
    update: (code: string, body: unknown, key?: string) =>
      call("PATCH", `/v1/locales/${code}`, "/v1/locales/{code}", { body, key }),
    remove: (code: string, key?: string) =>
      call("DELETE", `/v1/locales/${code}`, "/v1/locales/{code}", { key }),
    async add(body: Body) {
      const res = await call("POST", "/v1/locales", "/v1/locales", { body });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      return res.body.locale as Body;
    },
    async codes() {
      const res = await call("GET", "/v1/locales", "/v1/locales");
      return (res.body.locales as Body[]).map((l) => `${l.code}${l.isDefault ? "*" : ""}`);
    },
    graphql: (query: string, variables: Body = {}, key = ws.privateKey) =>
      app.request("POST", "/graphql", { key, body: { query, variables } }),
  };
}

async function freshWorkspace() {
  const ws = await app.workspace();
  return { ws, api: client(ws) };
}

describe("a new workspace", () => {
  it("has one locale, en (English), its default, readable with its public key", async () => {
    const { ws, api } = await freshWorkspace();
    const res = await api.list(ws.publicKey);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ locales: [locale("en", "English", { isDefault: true })] });
    expect((await api.list()).body).toEqual(res.body);
  });

  it("is also readable without a key at /v1/{workspace_id}/locales", async () => {
    const { ws } = await freshWorkspace();
    const res = await app.request("GET", `/v1/${ws.id}/locales`);
    expect(res.status).toBe(200);
    expect(res.body.locales.map((l: Body) => l.code)).toEqual(["en"]);
    expectMatchesOpenApi(res, "get", "/v1/{workspace_id}/locales");
  });

  it("made by the admin API with a locale starts with that one, canonicalised and named", async () => {
    const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };
    const created = await app.request("POST", "/admin/workspaces", {
      headers: admin,
      body: { name: "Brasil", locale: "pt-br" },
    });
    expect(created.status).toBe(201);
    expect(created.body.locale).toEqual({ code: "pt-BR", name: "Brazilian Portuguese" });
    const listed = await app.request("GET", "/v1/locales", { key: created.body.publicKey });
    expect(listed.body.locales).toEqual([locale("pt-BR", "Brazilian Portuguese", { isDefault: true })]);

    const bad = await app.request("POST", "/admin/workspaces", {
      headers: admin,
      body: { name: "Nowhere", locale: "en_US!" },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.details).toEqual([
      { field: "locale", message: `"en_US!" is not a valid locale code. ${CODE_RULE}` },
    ]);
  });

  it("stores the slug setting (per locale by default) and the admin API changes it", async () => {
    const { ws } = await freshWorkspace();
    const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };
    const set = await app.request("PATCH", `/admin/workspaces/${ws.id}`, {
      headers: admin,
      body: { slugsUniqueAcrossLocales: true },
    });
    expect(set.status).toBe(200);
    expect(set.body).toEqual({
      workspace: expect.objectContaining({ id: ws.id }),
      slugsUniqueAcrossLocales: true,
    });
    const back = await app.request("PATCH", `/admin/workspaces/${ws.id}`, {
      headers: admin,
      body: { slugsUniqueAcrossLocales: false },
    });
    expect(back.body.slugsUniqueAcrossLocales).toBe(false);
    const empty = await app.request("PATCH", `/admin/workspaces/${ws.id}`, { headers: admin, body: {} });
    expect(empty.status).toBe(400);
  });
});

describe("POST /v1/locales", () => {
  let api: ReturnType<typeof client>;
  beforeAll(async () => {
    ({ api } = await freshWorkspace());
  });

  it("canonicalises the code and names the locale after its language: 201 {locale}", async () => {
    const res = await api.create({ code: "en-us" });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ locale: locale("en-US", "American English") });
  });

  it("keeps a given name and canonicalises the fallback chain", async () => {
    expect(await api.add({ code: "de", name: "Deutsch" })).toEqual(locale("de", "Deutsch"));
    expect(await api.add({ code: "DE-at", fallback: ["DE", "en"] })).toEqual(
      locale("de-AT", "Austrian German", { fallback: ["de", "en"] }),
    );
  });

  it("refuses a malformed code or fallback entry with a 400 naming it", async () => {
    const res = await api.create({ code: "not a locale", fallback: ["en", "12"] });
    expect(res.status).toBe(400);
    expect(res.body).toEqual(
      invalid(
        "Invalid request body",
        { field: "code", message: `"not a locale" is not a valid locale code. ${CODE_RULE}` },
        { field: "fallback.1", message: `"12" is not a valid locale code. ${CODE_RULE}` },
      ),
    );
    const missing = await api.create({ name: "Nameless" });
    expect(missing.status).toBe(400);
    expect(missing.body.details.map((d: Problem) => d.field)).toEqual(["code"]);
  });

  it("refuses fallback entries that are unknown, itself or repeated, naming each", async () => {
    const res = await api.create({ code: "fr", fallback: ["es", "fr", "en", "en"] });
    expect(res.status).toBe(400);
    expect(res.body).toEqual(
      invalid(
        "Invalid fallback chain",
        { field: "fallback.0", message: 'No locale "es" in this workspace; add it first' },
        { field: "fallback.1", message: "A locale cannot fall back to itself (fr)" },
        { field: "fallback.3", message: '"en" is already in the chain' },
      ),
    );
    expect(await api.codes()).not.toContain("fr");
  });

  it("refuses a chain longer than five", async () => {
    const { api: own } = await freshWorkspace();
    for (const code of ["de", "fr", "it", "es", "pt"]) await own.add({ code });
    const res = await own.create({ code: "nl", fallback: ["de", "fr", "it", "es", "pt", "en"] });
    expect(res.status).toBe(400);
    expect(res.body).toEqual(
      invalid("Invalid fallback chain", { field: "fallback", message: "At most 5 locales" }),
    );
    expect((await own.create({ code: "nl", fallback: ["de", "fr", "it", "es", "pt"] })).status).toBe(201);
  });

  it("answers 409 for a code the workspace has, however it is spelled", async () => {
    const res = await api.create({ code: "EN-US" });
    expect(res.status).toBe(409);
    expect(res.body).toEqual({
      error: "Locale already exists",
      message: 'Locale "en-US" already exists in this workspace',
    });
  });

  it("two concurrent creates of one code: one 201, one 409, one row", async () => {
    const { api: own } = await freshWorkspace();
    const answers = await Promise.all([
      own.create({ code: "sv" }),
      own.create({ code: "sv", name: "Svenska" }),
    ]);
    expect(answers.map((res) => res.status).sort()).toEqual([201, 409]);
    expect(await own.codes()).toEqual(["en*", "sv"]);
  });

  it("with isDefault: the new locale becomes the default and the old one no longer is", async () => {
    const { api: own } = await freshWorkspace();
    expect(await own.add({ code: "nb", isDefault: true })).toEqual(
      locale("nb", "Norwegian Bokmål", { isDefault: true }),
    );
    expect(await own.codes()).toEqual(["nb*", "en"]);
  });
});

describe("PATCH /v1/locales/{code}", () => {
  it("renames a locale addressed in any spelling, and clears its chain with []", async () => {
    const { api } = await freshWorkspace();
    await api.add({ code: "fr" });
    await api.add({ code: "fr-CA", fallback: ["fr"] });
    const res = await api.update("FR-ca", { name: "Français (Canada)" });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ locale: locale("fr-CA", "Français (Canada)", { fallback: ["fr"] }) });
    expect((await api.update("fr-CA", { fallback: [] })).body.locale.fallback).toEqual([]);
  });

  it("makes a locale the default and the old default not, in one write", async () => {
    const { api } = await freshWorkspace();
    await api.add({ code: "de" });
    const res = await api.update("de", { isDefault: true });
    expect(res.status).toBe(200);
    expect(res.body.locale).toEqual(locale("de", "German", { isDefault: true }));
    expect(await api.codes()).toEqual(["de*", "en"]);
    // The default cannot just stop being one: a workspace always has a default.
    const refused = await api.update("de", { isDefault: false });
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual(
      invalid("A workspace always has a default locale", {
        field: "isDefault",
        message: "Make another locale the default instead",
      }),
    );
  });

  it("refuses a chain that makes a cycle across the workspace's chains, naming it", async () => {
    const { api } = await freshWorkspace();
    await api.add({ code: "de" });
    await api.add({ code: "fr", fallback: ["de"] });
    const direct = await api.update("de", { fallback: ["fr"] });
    expect(direct.status).toBe(400);
    expect(direct.body).toEqual(
      invalid("The fallback chain would make a cycle: de → fr → de", {
        field: "fallback",
        message: "Makes a cycle: de → fr → de",
      }),
    );
    await api.add({ code: "it", fallback: ["fr"] });
    const longer = await api.update("de", { fallback: ["en", "it"] });
    expect(longer.status).toBe(400);
    expect(longer.body.details).toEqual([{ field: "fallback", message: "Makes a cycle: de → it → fr → de" }]);
    // Pointing the same way as the existing chains is fine.
    expect((await api.update("de", { fallback: ["en"] })).status).toBe(200);
  });

  it("answers 404 for a code the workspace does not have, 400 for a malformed one", async () => {
    const { api } = await freshWorkspace();
    const unknown = await api.update("fr", { name: "Français" });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({
      error: "Locale not found",
      message: 'Locale "fr" does not exist in this workspace',
    });
    const malformed = await api.update("x_y_z", { name: "?" });
    expect(malformed.status).toBe(400);
    expect(malformed.body).toEqual(
      invalid("Invalid locale code", {
        field: "code",
        message: `"x_y_z" is not a valid locale code. ${CODE_RULE}`,
      }),
    );
  });
});

describe("DELETE /v1/locales/{code}", () => {
  it("removes a locale: 200 {id}; then it is gone (404)", async () => {
    const { api } = await freshWorkspace();
    const added = await api.add({ code: "fi" });
    const res = await api.remove("FI");
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: added.id });
    expect(await api.codes()).toEqual(["en*"]);
    expect((await api.remove("fi")).status).toBe(404);
  });

  it("refuses the default locale: 409", async () => {
    const { api } = await freshWorkspace();
    const res = await api.remove("en");
    expect(res.status).toBe(409);
    expect(res.body).toEqual({
      error: "Default locale",
      message: `Locale "en" is the workspace's default; make another locale the default first`,
    });
  });

  it("refuses a locale another locale falls back to: 409 naming them", async () => {
    const { api } = await freshWorkspace();
    await api.add({ code: "es" });
    await api.add({ code: "es-MX", fallback: ["es"] });
    await api.add({ code: "ca", fallback: ["es", "en"] });
    const res = await api.remove("es");
    expect(res.status).toBe(409);
    expect(res.body).toEqual({
      error: "Locale in use",
      message: 'Locale "es" is in the fallback chain of ca, es-MX; remove it from there first',
    });
    await api.update("es-MX", { fallback: [] });
    await api.update("ca", { fallback: ["en"] });
    expect((await api.remove("es")).status).toBe(200);
  });
});

describe("who may write locales", () => {
  it("a public key reads them but may not write: 403 naming locales:write", async () => {
    const { ws, api } = await freshWorkspace();
    for (const res of [
      await api.create({ code: "de" }, ws.publicKey),
      await api.update("en", { name: "x" }, ws.publicKey),
      await api.remove("en", ws.publicKey),
    ]) {
      expect(res.status).toBe(403);
      expect(res.body).toEqual({
        error: "Forbidden",
        message: "Writes need a private API key; this key is public and can only read",
        requiredScope: "locales:write",
      });
    }
  });

  it("a private key without locales:write is refused with 403; one with it may write", async () => {
    const { ws, api } = await freshWorkspace();
    const issue = async (scopes: string[]) => {
      const res = await app.request("POST", "/v1/keys", {
        key: ws.privateKey,
        body: { kind: "private", scopes },
      });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      return res.body.key as string;
    };
    const narrow = await issue(["content:read", "posts:write", "fields:write"]);
    const refused = await api.create({ code: "de" }, narrow);
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({
      error: "Forbidden",
      message: "This API key does not have the locales:write scope",
      requiredScope: "locales:write",
    });
    expect((await api.list(narrow)).status).toBe(200);
    expect((await api.create({ code: "de" }, await issue(["locales:write"]))).status).toBe(201);
  });
});

describe("locale events and cached reads", () => {
  it("records locale.created, .updated (both sides of a default switch) and .deleted with the locale as listed", async () => {
    const { ws, api } = await freshWorkspace();
    const created = await api.add({ code: "pl" });
    await api.update("pl", { isDefault: true });
    await api.update("en", { isDefault: true });
    await api.update("en", { fallback: ["pl"] });
    await api.update("en", { fallback: [] });
    await api.remove("pl");
    const res = await app.request("GET", "/v1/events?types=locale.created,locale.updated,locale.deleted", {
      key: ws.privateKey,
    });
    expect(res.status).toBe(200);
    const events = res.body.events as Body[];
    expect(events.map((e) => `${e.type} ${e.slug}`)).toEqual([
      "locale.created pl",
      "locale.updated en",
      "locale.updated pl",
      "locale.updated pl",
      "locale.updated en",
      "locale.updated en",
      "locale.updated en",
      "locale.deleted pl",
    ]);
    expect(events[0]?.data).toEqual(created);
    expect(events[0]?.resourceId).toBe(created.id);
    expect(events.at(-1)?.data).toEqual({ id: created.id, code: "pl" });
  });

  it("a cached list never outlives a write: each write is in the next read, for either key", async () => {
    const { ws, api } = await freshWorkspace();
    expect(await api.codes()).toEqual(["en*"]);
    expect((await api.list(ws.publicKey)).body.locales).toHaveLength(1);
    await api.add({ code: "ja" });
    expect(await api.codes()).toEqual(["en*", "ja"]);
    expect((await api.list(ws.publicKey)).body.locales.map((l: Body) => l.code)).toEqual(["en", "ja"]);
    await api.update("ja", { isDefault: true });
    expect((await api.list(ws.publicKey)).body.locales.map((l: Body) => l.code)).toEqual(["ja", "en"]);
  });
});

describe("GraphQL", () => {
  const FIELDS = "code name isDefault fallback";

  it("the LocaleCode scalar canonicalises input, and Query.locales answers any key", async () => {
    const { ws, api } = await freshWorkspace();
    const created = await api.graphql(
      `mutation($input: CreateLocaleInput!) { createLocale(input: $input) { ${FIELDS} } }`,
      { input: { code: "zh-hant-tw", name: "Chinese (Taiwan)", fallback: ["EN"] } },
    );
    expect(created.body).toEqual({
      data: {
        createLocale: {
          code: "zh-Hant-TW",
          name: "Chinese (Taiwan)",
          isDefault: false,
          fallback: ["en"],
        },
      },
    });
    const literal = await api.graphql(
      `mutation { updateLocale(code: "ZH-HANT-tw", input: { name: "繁體中文" }) { code name } }`,
    );
    expect(literal.body).toEqual({ data: { updateLocale: { code: "zh-Hant-TW", name: "繁體中文" } } });
    const read = await api.graphql(`{ locales { ${FIELDS} } }`, {}, ws.publicKey);
    expect(read.body.data.locales.map((l: Body) => l.code)).toEqual(["en", "zh-Hant-TW"]);
  });

  it("a malformed LocaleCode is BAD_USER_INPUT (400), naming the variable", async () => {
    const { api } = await freshWorkspace();
    const res = await api.graphql(`mutation($code: LocaleCode!) { deleteLocale(code: $code) { id } }`, {
      code: "not-a-real-tag-at-all-x",
    });
    expect(res.status).toBe(400);
    expect(res.body.errors[0].message).toContain('Variable "$code"');
    expect(res.body.errors[0].message).toContain(CODE_RULE);
    expect(res.body.errors[0].extensions).toMatchObject({ code: "BAD_USER_INPUT" });
  });

  it("deleting the default is CONFLICT; a cycle is BAD_USER_INPUT naming fallback; a public key is FORBIDDEN", async () => {
    const { ws, api } = await freshWorkspace();
    const conflict = await api.graphql(`mutation { deleteLocale(code: "en") { id } }`);
    expect(conflict.body.errors[0].extensions).toMatchObject({ code: "CONFLICT" });
    await api.graphql(`mutation { createLocale(input: { code: "ko", fallback: ["en"] }) { code } }`);
    const cycle = await api.graphql(
      `mutation { updateLocale(code: "en", input: { fallback: ["ko"] }) { code } }`,
    );
    expect(cycle.body.errors[0].extensions).toMatchObject({
      code: "BAD_USER_INPUT",
      details: [{ field: "fallback", message: "Makes a cycle: en → ko → en" }],
    });
    const forbidden = await api.graphql(
      `mutation { createLocale(input: { code: "th" }) { code } }`,
      {},
      ws.publicKey,
    );
    expect(forbidden.body.errors[0].extensions).toMatchObject({
      code: "FORBIDDEN",
      requiredScope: "locales:write",
    });
  });
});
