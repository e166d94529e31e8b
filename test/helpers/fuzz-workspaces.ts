// Workspaces for the property-based tests: seeded with some of every resource through the REST door,
// the identifiers a fuzzer should aim at (kept current as it creates and deletes), and a snapshot of
// everything a workspace holds, to prove that fuzzing one workspace never changes another.
import fc from "fast-check";
import { expect } from "vitest";
import { EVENT_TYPES } from "../../src/domain/event-types.ts";
import { makeImage } from "../media/helpers/make-files.ts";
import { BOUNDARY_NUMBERS, dateTimeString, hostileString, hostileValue } from "./arbitraries.ts";
import { restFixtures } from "./rest-fixtures.ts";
import type { TestApp, TestWorkspace } from "./test-app.ts";

/**
 * `keys` is never seeded: a fuzzer that revoked or rotated the workspace's own keys would lock itself
 * out, so key routes are aimed at ids that name no key (they must answer 4xx all the same).
 */
export const RESOURCES = [
  "posts",
  "categories",
  "tags",
  "authors",
  "fields",
  "locales",
  "media",
  "webhooks",
  "keys",
] as const;
export type Resource = (typeof RESOURCES)[number];

/** The identifiers a request may name for each resource of one workspace: ids, and slugs or keys. */
export class IdentifierPool {
  /** Per resource: record id → its other handles (slug or key). */
  readonly #byResource = new Map<Resource, Map<string, Set<string>>>(RESOURCES.map((r) => [r, new Map()]));

  add(resource: Resource, id: unknown, ...handles: unknown[]): void {
    if (typeof id !== "string") return;
    const records = this.#byResource.get(resource)!;
    const known = records.get(id) ?? new Set<string>();
    for (const handle of handles) if (typeof handle === "string") known.add(handle);
    records.set(id, known);
  }

  /** Forgets a deleted record, named by its id or one of its handles. */
  remove(resource: Resource, identifier: string): void {
    const records = this.#byResource.get(resource)!;
    for (const [id, handles] of records) if (id === identifier || handles.has(identifier)) records.delete(id);
  }

  list(resource: Resource): string[] {
    return [...this.#byResource.get(resource)!].flatMap(([id, handles]) => [id, ...handles]);
  }

  /** One identifier (id or handle) of the resource as it is when the case is generated. */
  pick(resource: Resource): fc.Arbitrary<string> {
    return fc.nat().map((n) => {
      const list = this.list(resource);
      return list[n % list.length] ?? "none-left";
    });
  }

  /** One record id of the resource, for references (`categoryId`, `tags`), which take ids only. */
  pickId(resource: Resource): fc.Arbitrary<string> {
    return fc.nat().map((n) => {
      const ids = [...this.#byResource.get(resource)!.keys()];
      return ids[n % ids.length] ?? "none-left";
    });
  }
}

export interface SeededWorkspace extends TestWorkspace {
  pool: IdentifierPool;
  /** Keys of its custom fields, by type. */
  fieldKeys: Record<string, string>;
}

const FIELD_DEFINITIONS = [
  { key: "subtitle", type: "text" },
  { key: "rating", type: "number" },
  { key: "pinned", type: "boolean" },
  { key: "event_day", type: "date" },
  { key: "aside", type: "richtext" },
  { key: "mood", type: "select", options: ["calm", "loud"] },
  { key: "topics", type: "multiselect", options: ["tech", "food", "art"] },
] as const;

/** Options of a select field, mostly left out: most field types refuse them. */
export const fieldOptions = fc.oneof(
  { weight: 2, arbitrary: fc.constant(undefined) },
  fc.uniqueArray(
    fc.record({
      value: fc.oneof(fc.stringMatching(/^[a-z]{1,8}$/), hostileString()),
      label: hostileString(),
    }),
    { maxLength: 4, selector: (option) => option.value },
  ),
);

/** A webhook endpoint's `events`: mostly real types or ["*"], at times "*" among others or no type at all. */
export const webhookEvents = fc.oneof(
  { weight: 3, arbitrary: fc.subarray([...EVENT_TYPES], { minLength: 1 }) },
  { weight: 2, arbitrary: fc.constant(["*"]) },
  fc.array(fc.oneof(fc.constantFrom("*", ...EVENT_TYPES), hostileString()), { maxLength: 3 }),
);

/** A locale code: mostly well-formed (often one the workspace has, in any case), at times anything. */
export function localeCode(pool: IdentifierPool): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom("en", "fr", "de", "EN-us", "pt-br", "zh-Hant-TW", "sr-Latn") },
    { weight: 3, arbitrary: pool.pick("locales") },
    { weight: 1, arbitrary: hostileString() },
  );
}

/** Custom field values keyed by the workspace's field keys: mostly of the field's type, at times not at all. */
export function customFieldValues(fieldKeys: Record<string, string>): fc.Arbitrary<Record<string, unknown>> {
  const ofType: Record<string, fc.Arbitrary<unknown>> = {
    text: hostileString(),
    number: fc.oneof(
      fc.double({ noNaN: true, noDefaultInfinity: true }),
      fc.constantFrom(...BOUNDARY_NUMBERS),
    ),
    boolean: fc.boolean(),
    date: fc.oneof(
      {
        weight: 3,
        arbitrary: fc
          .date({ min: new Date(0), max: new Date(4e12), noInvalidDate: true })
          .map((d) => d.toISOString().slice(0, 10)),
      },
      dateTimeString,
    ),
    richtext: hostileString(),
    select: fc.oneof({ weight: 9, arbitrary: fc.constantFrom("calm", "loud") }, fc.constantFrom("CALM", "")),
    multiselect: fc.oneof(
      { weight: 9, arbitrary: fc.subarray(["tech", "food", "art"]) },
      fc.constant(["none"]),
    ),
  };
  const model: Record<string, fc.Arbitrary<unknown>> = {};
  for (const [type, key] of Object.entries(fieldKeys)) {
    model[key] = fc.oneof(
      { weight: 11, arbitrary: ofType[type] ?? hostileValue },
      { weight: 1, arbitrary: fc.oneof(hostileValue, fc.constant(null)) },
    );
  }
  return fc.oneof(
    { weight: 9, arbitrary: fc.record(model, { requiredKeys: [] }) },
    { weight: 1, arbitrary: fc.dictionary(hostileString(), hostileValue, { maxKeys: 2 }) },
  );
}

/**
 * A new workspace with two categories, three tags, two authors, a field of every type, three posts, an
 * image and a webhook endpoint.
 */
export async function seededWorkspace(app: TestApp, name: string, prefix: string): Promise<SeededWorkspace> {
  const ws = await app.workspace(name);
  const pool = new IdentifierPool();
  const f = restFixtures(app, ws.privateKey);
  const categories = [await f.category(`${prefix}news`), await f.category(`${prefix}guides`)];
  const tags = [await f.tag(`${prefix}js`), await f.tag(`${prefix}rust`), await f.tag(`${prefix}go`)];
  const authors = [
    await f.author(`${prefix}ada`, {
      bio: "Writes",
      socials: [{ platform: "github", url: "https://github.com/ada" }],
    }),
    await f.author(`${prefix}linus`),
  ];
  const fieldKeys: Record<string, string> = {};
  for (const definition of FIELD_DEFINITIONS) {
    const key = `${prefix.replace(/-/g, "_")}${definition.key}`;
    const options =
      "options" in definition ? definition.options.map((v) => ({ value: v, label: v })) : undefined;
    const res = await app.request("POST", "/v1/fields", {
      key: ws.privateKey,
      body: { key, name: definition.key, type: definition.type, ...(options ? { options } : {}) },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    pool.add("fields", res.body.field.id, key);
    fieldKeys[definition.type] = key;
  }
  const posts = [
    await f.post({
      slug: `${prefix}hello`,
      categoryId: categories[0]!.id,
      tags: [tags[0]!.id, tags[1]!.id],
      authors: [authors[0]!.id],
      featured: true,
      fields: { [fieldKeys.text!]: "Sub", [fieldKeys.number!]: 4, [fieldKeys.multiselect!]: ["tech"] },
    }),
    await f.post({ slug: `${prefix}draft`, categoryId: categories[1]!.id, status: "draft" }),
    await f.post({
      slug: `${prefix}markdown`,
      categoryId: categories[0]!.id,
      content: "# Title\n\nSome *text*",
      contentFormat: "markdown",
      tags: [tags[2]!.id],
      authors: [authors[0]!.id, authors[1]!.id],
    }),
  ];
  for (const [resource, records] of [
    ["categories", categories],
    ["tags", tags],
    ["authors", authors],
    ["posts", posts],
  ] as const) {
    for (const record of records) pool.add(resource, record.id, record.slug);
  }
  pool.add("media", await uploadImage(app, ws.privateKey));
  const webhook = await app.request("POST", "/v1/webhooks", {
    key: ws.privateKey,
    body: { url: `https://hooks.example.com/${prefix}`, events: ["post.published"] },
  });
  expect(webhook.status, JSON.stringify(webhook.body)).toBe(201);
  pool.add("webhooks", webhook.body.webhook.id);
  const french = await app.request("POST", "/v1/locales", {
    key: ws.privateKey,
    body: { code: "fr", fallback: ["en"] },
  });
  expect(french.status, JSON.stringify(french.body)).toBe(201);
  const locales = await app.request("GET", "/v1/locales", { key: ws.privateKey });
  for (const locale of locales.body.locales) pool.add("locales", locale.id, locale.code);
  return { ...ws, pool, fieldKeys };
}

async function uploadImage(app: TestApp, privateKey: string): Promise<string> {
  const form = new FormData();
  form.append(
    "file",
    new Blob([new Uint8Array(await makeImage("png", 8, 8))], { type: "image/png" }),
    "dot.png",
  );
  form.append("alt", "A dot");
  const response = await fetch(`${app.url}/v1/media/upload`, {
    method: "POST",
    headers: { authorization: privateKey },
    body: form,
  });
  const body = await response.json();
  expect(response.status, JSON.stringify(body)).toBe(201);
  return body.media.id;
}

/** Everything a workspace holds, as its own private key reads it (every page of every list, drafts included). */
export async function snapshotWorkspace(
  app: TestApp,
  privateKey: string,
): Promise<Record<string, unknown[]>> {
  const lists: [string, string, string][] = [
    ["posts", "/v1/posts?status=all&order=asc", "posts"],
    ["categories", "/v1/categories", "categories"],
    ["tags", "/v1/tags", "tags"],
    ["authors", "/v1/authors", "authors"],
    ["media", "/v1/media", "media"],
  ];
  const snapshot: Record<string, unknown[]> = {};
  for (const [name, path, wrapper] of lists) {
    const items: unknown[] = [];
    for (let page = 1; ; page++) {
      const separator = path.includes("?") ? "&" : "?";
      const res = await app.request("GET", `${path}${separator}limit=100&page=${page}`, { key: privateKey });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      items.push(...res.body[wrapper]);
      if (!res.body.pagination.nextPage) break;
    }
    snapshot[name] = items;
  }
  const fields = await app.request("GET", "/v1/fields", { key: privateKey });
  expect(fields.status).toBe(200);
  snapshot.fields = fields.body.fields;
  const locales = await app.request("GET", "/v1/locales", { key: privateKey });
  expect(locales.status).toBe(200);
  snapshot.locales = locales.body.locales;
  const webhooks = await app.request("GET", "/v1/webhooks", { key: privateKey });
  expect(webhooks.status).toBe(200);
  snapshot.webhooks = webhooks.body.webhooks;
  return snapshot;
}

/** Every record id of a snapshot: identifiers another workspace's key must never reach. */
export function idsOf(snapshot: Record<string, unknown[]>): Set<string> {
  return new Set(
    Object.values(snapshot).flatMap((items) => items.map((item) => (item as { id: string }).id)),
  );
}
