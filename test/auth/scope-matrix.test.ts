// The scope matrix (issue 57), generated from the schema and the route table rather than written by
// hand: every root field of the GraphQL schema and every /v1 route is called with a key that has every
// scope but the one it needs (refused: 403 / FORBIDDEN naming that scope) and with a key that has only
// the scopes it needs (let through: whatever else it answers, never a scope refusal). A field or route
// added without a scope fails here, as does a door that checks another scope than the table says.
import {
  type GraphQLField,
  type GraphQLInputType,
  getNamedType,
  isEnumType,
  isInputObjectType,
  isLeafType,
  isListType,
  isNonNullType,
  isObjectType,
} from "graphql";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { issueKey } from "../../src/auth/api-keys.ts";
import { ALL_SCOPES, type Scope, withImpliedScopes } from "../../src/auth/scopes.ts";
import { loadConfig } from "../../src/config.ts";
import { schema } from "../../src/graphql/executable-schema.ts";
import { BYTE_ROUTE_SCOPES, FIELD_SCOPES } from "../../src/graphql/execution/scope-rules.ts";
import { routeScopes } from "../../src/rest/route.ts";
import { restRoutes } from "../../src/rest/routes/index.ts";
import { graphqlClient, graphqlFixtures } from "../graphql/support/graphql.ts";
import { subscribe } from "../helpers/sse-subscription.ts";
import { startTestApp, type TestApp, type TestWorkspace } from "../helpers/test-app.ts";

const ROOT_TYPES = ["Query", "Mutation", "Subscription"] as const;
const TABLE = FIELD_SCOPES as Record<string, Scope>;

let app: TestApp;
let workspace: TestWorkspace;
let postSlug: string;
/** A private key with every scope but one (and but those that include it). */
const keyWithout = new Map<Scope, string>();
const keyWithOnly = new Map<string, string>();

async function privateKey(scopes: readonly Scope[]): Promise<string> {
  return (await issueKey(app.db.prisma, workspace.id, { kind: "private", scopes })).key;
}

/** A key holding exactly these scopes (made once per distinct set). */
async function keyHolding(scopes: readonly Scope[]): Promise<string> {
  const name = [...scopes].sort().join(",");
  let key = keyWithOnly.get(name);
  if (!key) {
    key = await privateKey(scopes);
    keyWithOnly.set(name, key);
  }
  return key;
}

beforeAll(async () => {
  app = await startTestApp();
  workspace = await app.workspace("Scope matrix");
  for (const scope of ALL_SCOPES)
    keyWithout.set(
      scope,
      await privateKey(
        // Without every scope that includes it too (events:read includes drafts:read, which includes content:read).
        ALL_SCOPES.filter((other) => !withImpliedScopes([other]).has(scope)),
      ),
    );
  const fixtures = graphqlFixtures(graphqlClient(app, workspace.privateKey));
  const category = await fixtures.category("matrix");
  postSlug = "matrix-post";
  await fixtures.post({ slug: postSlug, categoryId: category.id });
});
afterAll(async () => app?.close());

/** A value of an input type that passes GraphQL's validation (what the resolver makes of it is not the point). */
function sampleValue(type: GraphQLInputType): unknown {
  if (isNonNullType(type)) return sampleValue(type.ofType);
  if (isListType(type)) return [sampleValue(type.ofType)];
  if (isEnumType(type)) return type.getValues()[0]?.name;
  if (isInputObjectType(type))
    return Object.fromEntries(
      Object.values(type.getFields())
        .filter((field) => isNonNullType(field.type))
        .map((field) => [field.name, sampleValue(field.type)]),
    );
  switch (type.name) {
    case "Int":
    case "Float":
      return 1;
    case "Boolean":
      return true;
    case "DateTime":
      return new Date(Date.now() + 86_400_000).toISOString();
    case "JSON":
      return {};
    case "LocaleCode":
      // A well-formed tag (a malformed one is refused before any resolver, scope check included).
      return "en";
    case "Upload":
      return new File([new Uint8Array([1, 2, 3])], "x.bin");
    default:
      return "x";
  }
}

/** One operation calling the field with sample values for its required arguments. */
function operationFor(
  rootType: (typeof ROOT_TYPES)[number],
  field: GraphQLField<unknown, unknown>,
): { query: string; variables: Record<string, unknown> } {
  const required = field.args.filter((arg) => isNonNullType(arg.type));
  const declarations = required.map((arg) => `$${arg.name}: ${arg.type.toString()}`).join(", ");
  const passed = required.map((arg) => `${arg.name}: $${arg.name}`).join(", ");
  const selection = isLeafType(getNamedType(field.type)) ? "" : " { __typename }";
  const keyword = rootType === "Query" ? "query" : rootType === "Mutation" ? "mutation" : "subscription";
  return {
    query: `${keyword}${declarations ? `(${declarations})` : ""} { ${field.name}${passed ? `(${passed})` : ""}${selection} }`,
    variables: Object.fromEntries(required.map((arg) => [arg.name, sampleValue(arg.type)])),
  };
}

const rootFields = ROOT_TYPES.flatMap((rootType) => {
  const type = schema.getType(rootType);
  return isObjectType(type)
    ? Object.values(type.getFields()).map((field) => ({
        rootType,
        field,
        coordinate: `${rootType}.${field.name}`,
      }))
    : [];
});

function scopeRefusals(errors: readonly { extensions?: Record<string, unknown> }[] | undefined) {
  return (errors ?? [])
    .map((error) => error.extensions?.requiredScope)
    .filter((scope) => scope !== undefined);
}

describe("the scope table", () => {
  it("names a scope for every root field of the schema, and only fields the schema has", () => {
    const rootCoordinates = rootFields.map((root) => root.coordinate).sort();
    expect(
      Object.keys(TABLE)
        .filter((coordinate) => /^(Query|Mutation|Subscription)\./.test(coordinate))
        .sort(),
    ).toEqual(rootCoordinates);
    for (const coordinate of Object.keys(TABLE)) {
      const [typeName, fieldName] = coordinate.split(".") as [string, string];
      const type = schema.getType(typeName);
      expect(isObjectType(type) && type.getFields()[fieldName], coordinate).toBeTruthy();
    }
  });
});

describe("GraphQL: every root field asks for exactly its scope", () => {
  for (const { rootType, field, coordinate } of rootFields.filter(
    (root) => root.rootType !== "Subscription",
  )) {
    it(`${coordinate} needs ${TABLE[coordinate]}`, async () => {
      const scope = TABLE[coordinate] as Scope;
      const { query, variables } = operationFor(rootType, field);
      const refused = await app.graphql(keyWithout.get(scope) as string, query, variables);
      expect(refused.errors?.[0]?.extensions).toMatchObject({ code: "FORBIDDEN", requiredScope: scope });
      const allowed = await app.graphql(await keyHolding([scope]), query, variables);
      expect(scopeRefusals(allowed.errors), JSON.stringify(allowed.errors)).toEqual([]);
    });
  }
});

describe("GraphQL subscriptions over Server-Sent Events", () => {
  for (const { rootType, field, coordinate } of rootFields.filter(
    (root) => root.rootType === "Subscription",
  )) {
    it(`${coordinate} needs ${TABLE[coordinate]}`, async () => {
      const scope = TABLE[coordinate] as Scope;
      const { query } = operationFor(rootType, field);
      // Refused before the stream starts: 403, whose one event is the error.
      const refused = await fetch(`${app.url}/graphql`, {
        method: "POST",
        headers: {
          authorization: keyWithout.get(scope) as string,
          "content-type": "application/json",
          accept: "text/event-stream",
        },
        body: JSON.stringify({ query }),
      });
      expect(refused.status).toBe(403);
      const event = /^data: (\{.*\})$/m.exec(await refused.text())?.[1] ?? "{}";
      expect(JSON.parse(event).errors[0].extensions).toMatchObject({
        code: "FORBIDDEN",
        requiredScope: scope,
      });
      const allowed = await subscribe(app.url, await keyHolding([scope]), query);
      // Open and quiet: a refusal would be the stream's first event, at once.
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(allowed.received).toEqual([]);
      expect(allowed.ended()).toBe(false);
      allowed.close();
    });
  }
});

describe("GraphQL: fields below the root that the table names", () => {
  const nested = Object.keys(TABLE).filter(
    (coordinate) => !/^(Query|Mutation|Subscription)\./.test(coordinate),
  );
  for (const coordinate of nested) {
    it(`${coordinate} needs ${TABLE[coordinate]}`, async () => {
      const [typeName, fieldName] = coordinate.split(".") as [string, string];
      // Reached through the lookup of one record of its type (a post here: the only kind the table has).
      expect(typeName, "add a way to reach this type to the scope matrix").toBe("Post");
      const scope = TABLE[coordinate] as Scope;
      const query = `query($id: String!) { post(identifier: $id) { ${fieldName} { __typename } } }`;
      const refused = await app.graphql(keyWithout.get(scope) as string, query, { id: postSlug });
      expect(refused.errors?.[0]?.extensions).toMatchObject({ code: "FORBIDDEN", requiredScope: scope });
      const allowed = await app.graphql(await keyHolding(["content:read", scope]), query, { id: postSlug });
      expect(allowed.errors).toBeUndefined();
    });
  }
});

describe("REST: every /v1 route asks for exactly the scopes of its operation", () => {
  const routes = restRoutes(loadConfig({ LOG_LEVEL: "silent" }));
  for (const route of routes) {
    const scopes = routeScopes(route);
    const path = `/v1${route.path.replace(/\{(\w+)\}/g, (_whole, name: string) =>
      route.integerPathParams?.includes(name) ? "1" : "x",
    )}`;
    const body = route.body ? {} : undefined;
    it(`${route.method.toUpperCase()} ${route.path} needs ${scopes.join(" + ")}`, async () => {
      expect(scopes.length).toBeGreaterThan(0);
      for (const scope of scopes) {
        const refused = await app.request(route.method.toUpperCase(), path, {
          key: keyWithout.get(scope) as string,
          body,
        });
        expect(refused.status).toBe(403);
        expect(refused.body).toMatchObject({ error: "Forbidden", requiredScope: scope });
      }
      const allowed = await app.request(route.method.toUpperCase(), path, {
        key: await keyHolding(scopes),
        body,
      });
      expect(allowed.body?.requiredScope, JSON.stringify(allowed.body)).toBeUndefined();
      expect(allowed.status).toBeLessThan(500);
    });
  }
});

describe("REST: the routes that carry bytes ask for the scope the table gives them", () => {
  for (const [route, scope] of Object.entries(BYTE_ROUTE_SCOPES)) {
    const [method, path] = route.split(" ") as [string, string];
    it(`${route} needs ${scope}`, async () => {
      const refused = await app.request(method, `/v1${path}`, { key: keyWithout.get(scope) as string });
      expect(refused.status).toBe(403);
      expect(refused.body).toMatchObject({ error: "Forbidden", requiredScope: scope });
      const fromPublic = await app.request(method, `/v1${path}`, { key: workspace.publicKey });
      expect(fromPublic.body.requiredScope).toBe(scope);
      // Let through: the export answers its archive; the import reads an empty upload and refuses it as no export.
      const allowed = await app.request(method, `/v1${path}`, { key: await keyHolding([scope]) });
      expect(allowed.body?.requiredScope).toBeUndefined();
      expect([200, 400]).toContain(allowed.status);
    });
  }
});

describe("public keys", () => {
  it("have content:read only: every route that needs more answers 403 naming the scope", async () => {
    for (const route of restRoutes(loadConfig({ LOG_LEVEL: "silent" }))) {
      const beyond = routeScopes(route).find((scope) => scope !== "content:read");
      if (!beyond) continue;
      const path = `/v1${route.path.replace(/\{(\w+)\}/g, "1")}`;
      const res = await app.request(route.method.toUpperCase(), path, {
        key: workspace.publicKey,
        body: route.body ? {} : undefined,
      });
      expect(res.status, route.name).toBe(403);
      expect(res.body.requiredScope, route.name).toBe(beyond);
    }
  });
});
