// The house's layering, as a test: each folder of src/ may import only the folders below it, and no
// import circle exists anywhere in src/. docs/architecture.md ("Layering") lists the same rules in words.
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const SRC = path.resolve(import.meta.dirname, "../../src");

/**
 * What each layer may import besides itself and libraries. `domain` is the transport-free vocabulary
 * (error kinds, write inputs, constants, input helpers) every layer may use; it imports nothing of the
 * project. `generated` is Prisma's generated client (part of the database layer); `logger` and
 * `config` are single files at the top of src/. Beyond "each layer only the ones below it":
 * - `db` may import `config`: opening the database reads its part of the Config type.
 * - `media` may import `config`: the storage is chosen from its settings; `db`: a variant of an image
 *   exists while its record does, so none outlives a deleted original (variant-records.ts); `limits`:
 *   new variants are rate limited per client address (serve-media-transforms.ts).
 * - `transfer` may import `webhooks`: an importer's fetches follow the webhook target rules
 *   (target-safety.ts), checked again after each redirect and at connect time.
 * - `cache` holds HTTP validators (ETags) and both doors' answer stores, which the cached-read door
 *   (http) reads before routing; it imports nothing of the project.
 * - `rest` may import `media`: it parses multipart uploads itself (and answers their errors as REST
 *   bodies) before the in-process GraphQL execution; `auth`: a route's key check applies the same access
 *   rules as the resolvers (auth/access-rules.ts); never `content`, `db` or `generated`.
 */
const ALLOWED: Record<string, string[]> = {
  domain: [],
  logger: [],
  config: [],
  metrics: [],
  db: ["domain", "generated", "logger", "config"],
  media: ["domain", "logger", "config", "db", "limits"],
  content: ["domain", "db", "generated", "media", "logger", "webhooks"],
  auth: ["domain", "content", "db", "generated"],
  seed: ["domain", "content", "db", "generated"],
  // Export, import and the importers: formats and sources around the content layer's import writer.
  transfer: ["domain", "content", "db", "generated", "media", "logger", "config", "webhooks"],
  limits: ["domain", "logger"],
  webhooks: ["domain"],
  cache: [],
  graphql: ["domain", "cache", "content", "db", "generated", "media", "auth", "logger", "config"],
  rest: ["domain", "cache", "graphql", "http", "media", "auth", "logger", "config"],
  http: [
    "domain",
    "cache",
    "graphql",
    "auth",
    "limits",
    "media",
    "db",
    "generated",
    "logger",
    "config",
    "metrics",
  ],
};

/** The composition roots: they wire the layers together, so they may import any of them. */
const COMPOSITION = ["app", "server", "bootstrap", "first-start", "cli"];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return name === "generated" ? [] : sourceFiles(full);
    return full.endsWith(".ts") ? [full] : [];
  });
}

/** Relative imports of a file (static, `export … from` and dynamic), resolved to absolute paths. */
function importsOf(file: string): string[] {
  const text = readFileSync(file, "utf8");
  const specifiers = [...text.matchAll(/(?:from|import)\s*\(?\s*["'](\.{1,2}\/[^"']+)["']/g)].map(
    (match) => match[1] as string,
  );
  return specifiers.map((specifier) => path.resolve(path.dirname(file), specifier));
}

/** `src/content/posts/posts.ts` → "content"; `src/config.ts` → "config"; `src/generated/…` → "generated". */
function layerOf(file: string): string {
  const [first = ""] = path.relative(SRC, file).split(path.sep);
  return first.replace(/\.ts$/, "");
}

const files = sourceFiles(SRC);
const graph = new Map(files.map((file) => [file, importsOf(file)]));

/**
 * The rooms of src/graphql/ and the rooms each must not import. Files at graphql/'s top level (builder,
 * context, errors, loaders, yoga, …) are shared by all. `plugins` (the envelop/Yoga plugins) and
 * `execution` (compiled and in-process execution, cost bounds) are one pipeline and share functions.
 */
const GRAPHQL_ROOMS_FORBIDDEN: Record<string, string[]> = {
  // Resources' types and fields, independent of how they are executed.
  schema: ["plugins", "execution"],
  // The hand-written SQL of hot reads: below the schema, knows nothing of the pipeline.
  "read-model": ["plugins", "execution", "schema", "live"],
  cursors: ["plugins", "execution", "schema", "live"],
  live: ["plugins", "execution", "schema", "read-model", "cursors"],
  plugins: ["schema"],
  execution: ["schema"],
};

/** `src/graphql/read-model/post-rows.ts` → "read-model"; a top-level file of graphql/ → null. */
function graphqlRoomOf(file: string): string | null {
  const parts = path.relative(path.join(SRC, "graphql"), file).split(path.sep);
  return parts.length > 1 && !parts[0]?.startsWith("..") ? (parts[0] as string) : null;
}

describe("rooms of src/graphql/", () => {
  it("puts every file of a graphql/ folder in a known room, and keeps the top level small", () => {
    const rooms = new Set(files.filter((f) => layerOf(f) === "graphql").map(graphqlRoomOf));
    rooms.delete(null);
    expect([...rooms].sort()).toEqual(Object.keys(GRAPHQL_ROOMS_FORBIDDEN).sort());
    const topLevel = files.filter((f) => layerOf(f) === "graphql" && graphqlRoomOf(f) === null);
    expect(topLevel.length).toBeLessThanOrEqual(15);
  });

  it.each(Object.keys(GRAPHQL_ROOMS_FORBIDDEN))(
    "graphql/%s/ imports none of the rooms it must not",
    (room) => {
      const crossings: string[] = [];
      for (const [file, targets] of graph) {
        if (layerOf(file) !== "graphql" || graphqlRoomOf(file) !== room) continue;
        for (const target of targets) {
          const targetRoom = layerOf(target) === "graphql" ? graphqlRoomOf(target) : null;
          if (targetRoom && GRAPHQL_ROOMS_FORBIDDEN[room]?.includes(targetRoom))
            crossings.push(`${path.relative(SRC, file)} → ${path.relative(SRC, target)}`);
        }
      }
      expect(crossings).toEqual([]);
    },
  );
});

/**
 * The rooms of src/content/, lowest first: a room may import the rooms before it, never one after it.
 * - `locales`: a workspace's locales (codes, names, fallback chains, the default);
 * - `taxonomy`: categories, tags, authors, custom fields and their values;
 * - `changes`: the change log, event snapshots and ids, retention, the log head and tail, the delta feed
 *   and what a public key may learn of a post that left its view (it reads field values: `taxonomy`);
 * - `posts`: posts, their write and list SQL, filters, search, release and scheduler, revisions,
 *   previews, markdown (field values: `taxonomy`);
 * - `deliveries`: webhook endpoints, the delivery store, fan-out from the change log, withheld deliveries;
 * - `import`: the import ledger, batches, targets and writes (writes posts' revisions and endpoints).
 * Files at content/'s top level are shared by every room and import none, except `writer.ts`: the unit
 * of work appends the change log in the write's own transaction (changes/change-log.ts).
 */
const CONTENT_ROOMS = ["locales", "taxonomy", "changes", "posts", "deliveries", "import"];
const CONTENT_TOP_MAY_IMPORT: Record<string, string[]> = { "writer.ts": ["changes"] };

/** `src/content/posts/posts.ts` → "posts"; a top-level file of content/ → null. */
function contentRoomOf(file: string): string | null {
  const parts = path.relative(path.join(SRC, "content"), file).split(path.sep);
  return parts.length > 1 && !parts[0]?.startsWith("..") ? (parts[0] as string) : null;
}

describe("rooms of src/content/", () => {
  const contentFiles = files.filter((file) => layerOf(file) === "content");

  it("puts every file of a content/ folder in a known room, and keeps the top level to 12 files", () => {
    const rooms = new Set(contentFiles.map(contentRoomOf));
    rooms.delete(null);
    expect([...rooms].sort()).toEqual([...CONTENT_ROOMS].sort());
    expect(contentFiles.filter((file) => contentRoomOf(file) === null).length).toBeLessThanOrEqual(12);
  });

  it.each(CONTENT_ROOMS)("content/%s/ imports no room after it", (room) => {
    const later = CONTENT_ROOMS.slice(CONTENT_ROOMS.indexOf(room) + 1);
    const crossings: string[] = [];
    for (const file of contentFiles.filter((f) => contentRoomOf(f) === room))
      for (const target of graph.get(file) ?? [])
        if (layerOf(target) === "content" && later.includes(contentRoomOf(target) ?? ""))
          crossings.push(`${path.relative(SRC, file)} → ${path.relative(SRC, target)}`);
    expect(crossings).toEqual([]);
  });

  it("keeps content/'s top-level files out of the rooms (the writer appends the change log)", () => {
    const crossings: string[] = [];
    for (const file of contentFiles.filter((f) => contentRoomOf(f) === null)) {
      const allowed = CONTENT_TOP_MAY_IMPORT[path.basename(file)] ?? [];
      for (const target of graph.get(file) ?? []) {
        const room = layerOf(target) === "content" ? contentRoomOf(target) : null;
        if (room && !allowed.includes(room))
          crossings.push(`${path.relative(SRC, file)} → ${path.relative(SRC, target)}`);
      }
    }
    expect(crossings).toEqual([]);
  });
});

describe("layering of src/", () => {
  it("gives every file of src/ a rule (a new folder must be placed in the layering)", () => {
    const unplaced = files
      .map(layerOf)
      .filter((layer) => !(layer in ALLOWED) && !COMPOSITION.includes(layer));
    expect([...new Set(unplaced)]).toEqual([]);
  });

  it.each(Object.keys(ALLOWED))("%s/ imports only the layers below it", (layer) => {
    const crossings: string[] = [];
    for (const [file, targets] of graph) {
      if (layerOf(file) !== layer) continue;
      for (const target of targets) {
        const targetLayer = layerOf(target);
        if (targetLayer !== layer && !ALLOWED[layer]?.includes(targetLayer))
          crossings.push(`${path.relative(SRC, file)} → ${path.relative(SRC, target)}`);
      }
    }
    expect(crossings).toEqual([]);
  });

  it("has no import circle", () => {
    expect(importCycles(graph).map((cycle) => cycle.map((f) => path.relative(SRC, f)).join(" → "))).toEqual(
      [],
    );
  });
});

/** Strongly connected components with more than one file (Tarjan), i.e. every import circle. */
function importCycles(edges: Map<string, string[]>): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const visit = (node: string) => {
    index.set(node, counter);
    low.set(node, counter);
    counter++;
    stack.push(node);
    onStack.add(node);
    for (const next of edges.get(node) ?? []) {
      if (!edges.has(next)) continue;
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node) as number, low.get(next) as number));
      } else if (onStack.has(next)) {
        low.set(node, Math.min(low.get(node) as number, index.get(next) as number));
      }
    }
    if (low.get(node) === index.get(node)) {
      const component: string[] = [];
      let member: string | undefined;
      do {
        member = stack.pop() as string;
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      if (component.length > 1) cycles.push(component.sort());
    }
  };
  for (const node of edges.keys()) if (!index.has(node)) visit(node);
  return cycles;
}
