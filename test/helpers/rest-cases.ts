// Generated requests for one REST route of the table: its path with real, foreign or hostile segments,
// its declared query parameters (valid, out of range, repeated, nested or unknown), its zod body as mostly
// valid JSON, one mistake away from valid, or raw bytes under any content type, sent with each kind of key.

import fc from "fast-check";
import { z } from "zod";
import type { QueryParam } from "../../src/rest/query-params.ts";
import type { RestRoute } from "../../src/rest/route.ts";
import { routeScopes } from "../../src/rest/route.ts";
import {
  BOUNDARY_NUMBERS,
  bodyText,
  fromJsonSchema,
  hostileString,
  type JsonSchema,
  mutatedFromJsonSchema,
  type PropertyHints,
  percentEncode,
  rarely,
  urlString,
  urlText,
  validSlug,
} from "./arbitraries.ts";
import {
  customFieldValues,
  fieldOptions,
  type IdentifierPool,
  localeCode,
  RESOURCES,
  type Resource,
  type SeededWorkspace,
  webhookEvents,
} from "./fuzz-workspaces.ts";

export type KeyKind = "private" | "public" | "none" | "invalid";

export interface RestCase {
  method: string;
  /** Below the origin, already percent-encoded. */
  path: string;
  key: KeyKind;
  /** The Authorization header sent (none for `none`). */
  authorization?: string;
  /** The body as sent: a generated value as JSON, or raw text; with its content type. */
  body?: string;
  contentType?: string;
  /** Whether the path or a reference field names a record of the other workspace. */
  namesOtherWorkspace: boolean;
  /** Served at `/v1/{workspace_id}/…`. */
  workspacePathForm: boolean;
}

/** What the generators aim at: the caller's workspace (A) and the one it must never reach (B). */
export interface FuzzTargets {
  a: SeededWorkspace;
  b: SeededWorkspace;
  /** B's record ids by resource (ids are the server's, so A can never own one). */
  bIds: Record<Resource, string[]>;
  /** Connection cursors A's answers have handed out so far (GraphQL only). */
  cursors: string[];
}

const INVALID_KEYS = ["cs_invalid", "Bearer ", "Bearer sk_live_0000", "pk_", "null", "Basic dXNlcjpwYXNz"];
const OVER_LIMIT_BODY = JSON.stringify({ title: "x".repeat(1_100_000) });
const RAW_BODIES = [
  "{",
  "",
  "null",
  "[]",
  '{"a":1}x',
  '"text"',
  "1e999",
  '{"title":"\\u0000"}',
  OVER_LIMIT_BODY,
];
const CONTENT_TYPES = [
  "application/json",
  "text/plain",
  "application/json; charset=latin1",
  "application/json; charset=utf-16",
  "application/x-www-form-urlencoded",
];

export function restCase(route: RestRoute, targets: FuzzTargets): fc.Arbitrary<RestCase> {
  const resource = resourceOf(route.path);
  const segment = fc.oneof(
    { weight: 4, arbitrary: targets.a.pool.pick(resource).map(percentEncode) },
    { weight: 1, arbitrary: fc.constantFrom(...targets.bIds[resource]) },
    { weight: 3, arbitrary: urlText },
  );
  const pathForm = route.workspacePathForm
    ? fc.oneof(
        { weight: 3, arbitrary: fc.constant(null) },
        {
          weight: 1,
          arbitrary: fc.oneof(
            { weight: 3, arbitrary: fc.constant(targets.a.id) },
            { weight: 1, arbitrary: fc.constant(targets.b.id) },
            { weight: 1, arbitrary: urlText },
          ),
        },
      )
    : fc.constant(null);
  return fc
    .record({
      key: callerKey(
        routeScopes(route).some((scope) => scope !== "content:read"),
        targets.a,
      ),
      workspace: pathForm,
      segment,
      query: queryString(route.query ?? [], targets.a.pool),
      body: bodyOf(route, targets),
    })
    .map(({ key, workspace, segment: identifier, query, body }) => {
      const concrete = route.path.replace(/\{\w+\}/g, identifier);
      const namesB =
        (route.path.includes("{") && isBId(targets, identifier)) ||
        referencesB(targets, body?.value) ||
        workspace === targets.b.id;
      return {
        method: route.method.toUpperCase(),
        path: `/v1${workspace === null ? "" : `/${workspace}`}${concrete}${query}`,
        key: key.kind,
        ...(key.authorization === undefined ? {} : { authorization: key.authorization }),
        ...(body ? { body: body.text, contentType: body.contentType } : {}),
        namesOtherWorkspace: namesB,
        workspacePathForm: workspace !== null,
      };
    })
    .filter((c) => c.path.length <= MAX_URL_LENGTH);
}

/**
 * Node's HTTP parser refuses a request head over 16 KiB itself (431, empty body) before the app sees
 * it; URLs stay below that so every case reaches the service.
 */
const MAX_URL_LENGTH = 12_000;

function resourceOf(path: string): Resource {
  // The change log and feed name no records of their own: any resource's hints serve (cursors fuzzed as text).
  if (path === "/events" || path === "/changes") return "posts";
  const first = path.split("/")[1] as Resource;
  if (!RESOURCES.includes(first)) throw new Error(`No resource for ${path}`);
  return first;
}

/**
 * The Authorization a request carries: writes mostly A's private key (so they reach the database),
 * reads each kind alike; A's public key, none, or one that is no key at all.
 */
export function callerKey(
  writes: boolean,
  a: SeededWorkspace,
): fc.Arbitrary<{ kind: KeyKind; authorization?: string }> {
  return fc.oneof(
    {
      weight: writes ? 12 : 4,
      arbitrary: fc.constant({ kind: "private" as const, authorization: a.privateKey }),
    },
    { weight: 2, arbitrary: fc.constant({ kind: "public" as const, authorization: a.publicKey }) },
    { weight: 1, arbitrary: fc.constant({ kind: "none" as const }) },
    {
      weight: 1,
      arbitrary: fc
        .constantFrom(...INVALID_KEYS)
        .map((authorization) => ({ kind: "invalid" as const, authorization })),
    },
  );
}

function bodyOf(
  route: RestRoute,
  targets: FuzzTargets,
): fc.Arbitrary<{ value?: unknown; text: string; contentType: string } | null> {
  if (!route.body) return fc.constant(null);
  const schema = z.toJSONSchema(route.body, { io: "input", unrepresentable: "any" }) as JsonSchema;
  const hints = bodyHints(resourceOf(route.path), targets);
  return fc.oneof(
    { weight: 5, arbitrary: fromJsonSchema(schema, hints).map(asJson) },
    { weight: 4, arbitrary: mutatedFromJsonSchema(schema, hints).map(asJson) },
    {
      weight: 1,
      arbitrary: fc
        .record({ raw: fc.constantFrom(...RAW_BODIES), contentType: fc.constantFrom(...CONTENT_TYPES) })
        .map(({ raw, contentType }) => ({ text: raw, contentType })),
    },
  );
}

function asJson(value: unknown) {
  return { value, text: JSON.stringify(value), contentType: "application/json" };
}

/** Reference fields aimed at real records of A (so writes succeed and conflict) and at B's (never reachable). */
function bodyHints(resource: Resource, { a, bIds }: FuzzTargets): PropertyHints {
  const reference = (of: Resource) =>
    fc.oneof(
      { weight: 10, arbitrary: a.pool.pickId(of) },
      { weight: 1, arbitrary: fc.constantFrom(...bIds[of]) },
      { weight: 1, arbitrary: hostileString() },
    );
  const fieldKey = fc.constantFrom(...Object.values(a.fieldKeys));
  return {
    categoryId: reference("categories"),
    tags: fc.array(reference("tags"), { maxLength: 3 }),
    authors: fc.array(reference("authors"), { maxLength: 3 }),
    slug: fc.oneof(validSlug, a.pool.pick(resource)),
    key: fc.oneof(fc.stringMatching(/^[a-z0-9_]{1,20}$/), fieldKey),
    content: bodyText,
    fields: customFieldValues(a.fieldKeys),
    options: fieldOptions,
    // A required field refuses every later post without a value for it: made now and then only.
    required: fc.oneof({ weight: 9, arbitrary: fc.constant(false) }, fc.constant(true)),
    url: urlString,
    events: webhookEvents,
    code: localeCode(a.pool),
    fallback: fc.array(localeCode(a.pool), { maxLength: 6 }),
  };
}

function isBId(targets: FuzzTargets, value: unknown): boolean {
  return typeof value === "string" && Object.values(targets.bIds).some((ids) => ids.includes(value));
}

function referencesB(targets: FuzzTargets, body: unknown): boolean {
  if (typeof body !== "object" || body === null) return false;
  const record = body as Record<string, unknown>;
  const references = [record.categoryId, record.tags, record.authors].flat();
  return references.some((value) => isBId(targets, value));
}

/** `?…` from the route's declared parameters, each absent, valid, at an edge, hostile, repeated or nested. */
function queryString(params: readonly QueryParam[], pool: IdentifierPool): fc.Arbitrary<string> {
  const form = fc.oneof(
    { weight: 6, arbitrary: fc.constant("plain") },
    fc.constantFrom("repeated", "brackets", "nested"),
  );
  const pairs = params.map((param) =>
    rarely(
      fc.tuple(queryValue(param, pool), form).map(([value, f]) => encodePair(param.name, value, f)),
      2,
    ),
  );
  const unknown = rarely(
    fc.tuple(urlText, urlText).map(([name, value]) => `${name}=${value}`),
    5,
  );
  return fc.tuple(fc.tuple(...pairs), unknown).map(([declared, extra]) => {
    const parts = [...declared, extra].filter((part): part is string => part !== undefined);
    return parts.length ? `?${parts.join("&")}` : "";
  });
}

function encodePair(name: string, value: string, form: string): string {
  switch (form) {
    case "repeated":
      return `${name}=${value}&${name}=${value}`;
    case "brackets":
      return `${name}[]=${value}`;
    case "nested":
      return `${name}[a][b]=${value}`;
    default:
      return `${name}=${value}`;
  }
}

function queryValue(param: QueryParam, pool: IdentifierPool): fc.Arbitrary<string> {
  const hostile = { weight: 2, arbitrary: urlText };
  switch (param.kind) {
    case "integer":
      return fc.oneof(
        { weight: 4, arbitrary: fc.integer({ min: param.min, max: param.max ?? 50 }).map(String) },
        { weight: 2, arbitrary: fc.constantFrom(...BOUNDARY_NUMBERS).map(String) },
        hostile,
      );
    case "enum":
      return fc.oneof(
        { weight: 4, arbitrary: fc.constantFrom(...param.values) },
        { weight: 1, arbitrary: fc.constantFrom(...param.values.map((v) => v.toUpperCase())) },
        hostile,
      );
    case "list": {
      const resource: Resource = /categor/i.test(param.name) ? "categories" : "tags";
      const slug = fc.oneof({ weight: 3, arbitrary: pool.pick(resource).map(percentEncode) }, hostile);
      return fc.array(slug, { minLength: 1, maxLength: 3 }).map((slugs) => slugs.join(","));
    }
    case "string":
      return fc.oneof({ weight: 2, arbitrary: hostileString("url").map(percentEncode) }, hostile);
  }
}
