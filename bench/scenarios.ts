// The routes the bench measures, each as a list of steps. A read is one static request; the mixed
// write is a POST that creates a post followed by a PATCH of that same post. The same steps drive the
// load generator (autocannon `requests`) and the in-process statement count, so both see one request mix.
import { POST_FRAGMENT } from "../src/rest/routes/post-body.ts";
import { demoHtml } from "../src/seed/demo-text.ts";
import type { BenchFixtures } from "./seed.ts";

export type KeyKind = "public" | "private";

/** Carried from one step to the next within a connection's sequence (the created post's id). */
export interface StepContext {
  postId?: string;
}

export interface Step {
  /** Shown in statement counts, e.g. "POST /v1/posts". */
  label: string;
  method: "GET" | "POST" | "PATCH";
  key: KeyKind;
  /**
   * Fixed path, or built from the context and the run-wide sequence number `n`; null skips the step
   * (its predecessor failed).
   */
  path: string | ((ctx: StepContext, n: number) => string | null);
  /**
   * Sent with the validator of this very answer (`If-None-Match: <its ETag>`): the pre-flight asks once
   * without it, keeps the ETag, and expects `expectStatus` (304) from then on.
   */
  revalidate?: boolean;
  /** Headers set by the pre-flight (the ETag of a revalidating step). */
  headers?: Record<string, string>;
  /** Fixed JSON body. */
  body?: unknown;
  /** JSON body built per request; `n` is a run-wide sequence number (unique slugs). */
  makeBody?: (ctx: StepContext, n: number) => unknown;
  expectStatus: number;
  /** Reads the response to fill the context for the next step. */
  capture?: (body: unknown, ctx: StepContext) => void;
}

export type ServerKind = "baseline" | "prerendered" | "service" | "cached";

/**
 * `read-path`: the uncached lists and their baselines (issue 18's ratios); `miss`: the cache miss and the
 * uncached list it must not be slower than (issue 15).
 */
export type TurnGroup = "read-path" | "miss";

export interface Scenario {
  id: string;
  /** Row title of the table. */
  title: string;
  /**
   * Which server answers: the service with its response cache off (every read computed) or on
   * (`cached`), the raw node:http + pg baseline that computes the same JSON with hand-written SQL, or
   * the raw handler that serves the service's answers pre-rendered from one table (`prerendered`).
   */
  server: ServerKind;
  /**
   * For a baseline: the service route whose body it must reproduce exactly. For a `prerendered`
   * route: the service route whose answer it serves.
   */
  sameBodyAs?: string;
  /** The route whose req/s this one is compared with; the baseline list of ten when absent. */
  comparedWith?: string;
  steps: Step[];
  /**
   * Adds or changes content (the writes: a thousand or more published posts and their edits). Such
   * routes run after every read, on a service of their own: reads measured after them would list and
   * count more posts, over rows not yet vacuumed, than the reads they are compared with.
   */
  changesData?: true;
  /**
   * Measured in turns with the other selected routes of this group (bench/load.ts runInTurns), right
   * after the cached routes: a comparison the machine's drift from minute to minute cannot bias. Routes
   * of one server kind share a server; each kind has its own.
   */
  turns?: TurnGroup;
  /** Runs whenever this route is selected with `--only`. */
  runsWith?: string;
}

/**
 * Issue 59's GraphQL list, as written by someone comparing us with PostGraphile: items with their
 * relations, no `pagination` selected (`bench:peers`).
 */
export const GRAPHQL_SHORT_LIST_QUERY =
  "{ posts(limit:10){ items { id slug title content publishedAt authors{ name slug } category{ name slug } tags{ name slug } } } }";

/** The GraphQL equivalent of GET /v1/posts?limit=10: the REST route's own selection (RestPost). */
export const GRAPHQL_LIST_QUERY = `query ListPosts($limit: Int, $format: ContentFormat) {
  posts(limit: $limit) {
    items { ...RestPost }
    pagination { limit currentPage nextPage previousPage totalPages totalItems }
  }
} ${POST_FRAGMENT}`;

const get = (label: string, path: string): Step => ({
  label,
  method: "GET",
  key: "public",
  path,
  expectStatus: 200,
});

export function benchScenarios(f: BenchFixtures): Scenario[] {
  const runTag = Date.now().toString(36);
  const filterPath = `/v1/posts?categories=${f.categorySlugs.join(",")}&tags=${f.tagSlugs.join(",")}`;
  const searchPath = `/v1/posts?query=${encodeURIComponent(f.searchText)}`;
  const tagPath = `/v1/posts?tags=${f.tagSlugs[0]}&limit=10`;
  const excludeTagsPath = `/v1/posts?excludeTags=${f.tagSlugs.join(",")}&limit=10`;
  // Each filtered list and the search have a baseline running the same filter (like-for-like ratio).
  const likeForLike = (id: string, title: string, path: string): Scenario[] => [
    {
      id: `baseline-${id}`,
      title: `baseline ${title}`,
      server: "baseline",
      sameBodyAs: id,
      steps: [get(title, path)],
    },
    { id, title, server: "service", comparedWith: `baseline-${id}`, steps: [get(title, path)] },
  ];
  return [
    {
      id: "baseline",
      title: "baseline GET /v1/posts?limit=10",
      server: "baseline",
      sameBodyAs: "list10",
      turns: "read-path",
      steps: [get("GET /v1/posts?limit=10", "/v1/posts?limit=10")],
    },
    {
      id: "baseline100",
      title: "baseline GET /v1/posts?limit=100",
      server: "baseline",
      sameBodyAs: "list100",
      turns: "read-path",
      steps: [get("GET /v1/posts?limit=100", "/v1/posts?limit=100")],
    },
    {
      id: "list10",
      title: "GET /v1/posts?limit=10",
      server: "service",
      turns: "read-path",
      steps: [get("GET /v1/posts?limit=10", "/v1/posts?limit=10")],
    },
    {
      id: "list100",
      title: "GET /v1/posts?limit=100",
      server: "service",
      comparedWith: "baseline100",
      turns: "read-path",
      steps: [get("GET /v1/posts?limit=100", "/v1/posts?limit=100")],
    },
    ...likeForLike("filter", "GET /v1/posts?categories=…&tags=…", filterPath),
    ...likeForLike("filter-tag", "GET /v1/posts?tags=…&limit=10", tagPath),
    ...likeForLike("filter-exclude", "GET /v1/posts?excludeTags=…&limit=10", excludeTagsPath),
    ...likeForLike("search", `GET /v1/posts?query=${f.searchText}`, searchPath),
    {
      id: "get",
      title: "GET /v1/posts/{slug}",
      server: "service",
      steps: [get("GET /v1/posts/{slug}", `/v1/posts/${f.postSlug}`)],
    },
    {
      id: "get-md",
      title: "GET /v1/posts/{slug}?format=markdown",
      server: "service",
      steps: [get("GET /v1/posts/{slug}?format=markdown", `/v1/posts/${f.postSlug}?format=markdown`)],
    },
    {
      id: "categories",
      title: "GET /v1/categories",
      server: "service",
      steps: [get("GET /v1/categories", "/v1/categories")],
    },
    {
      id: "graphql",
      title: "POST /graphql posts(limit: 10)",
      server: "service",
      turns: "read-path",
      steps: [
        {
          label: "POST /graphql posts(limit: 10)",
          method: "POST",
          key: "public",
          path: "/graphql",
          body: { query: GRAPHQL_LIST_QUERY, variables: { limit: 10 } },
          expectStatus: 200,
        },
      ],
    },
    ...cacheScenarios(f),
    {
      id: "writes",
      title: "POST /v1/posts + PATCH (1:1)",
      server: "service",
      changesData: true,
      steps: [
        {
          label: "POST /v1/posts",
          method: "POST",
          key: "private",
          path: "/v1/posts",
          makeBody: (_ctx, n) => createBody(f, `bench-${runTag}-${n}`, n),
          expectStatus: 201,
          capture: (body, ctx) => {
            ctx.postId = (body as { post?: { id?: string } } | null)?.post?.id;
          },
        },
        {
          label: "PATCH /v1/posts/{id}",
          method: "PATCH",
          key: "private",
          path: (ctx) => (ctx.postId ? `/v1/posts/${ctx.postId}` : null),
          makeBody: (_ctx, n) => updateBody(f, n),
          expectStatus: 200,
        },
      ],
    },
  ];
}

/**
 * The cache's yardstick (issue 15): the same answers served pre-rendered from one table by a raw handler,
 * and by the service with its response cache on — hits, a 304 revalidation, and misses (a URL never
 * asked before, so every request computes and stores its answer).
 */
function cacheScenarios(f: BenchFixtures): Scenario[] {
  const graphqlStep: Step = {
    label: "POST /graphql posts(limit: 10)",
    method: "POST",
    key: "public",
    path: "/graphql",
    body: { query: GRAPHQL_LIST_QUERY, variables: { limit: 10 } },
    expectStatus: 200,
  };
  const routes = [
    {
      id: "list10",
      title: "GET /v1/posts?limit=10",
      step: get("GET /v1/posts?limit=10", "/v1/posts?limit=10"),
    },
    {
      id: "list100",
      title: "GET /v1/posts?limit=100",
      step: get("GET /v1/posts?limit=100", "/v1/posts?limit=100"),
    },
    {
      id: "get",
      title: "GET /v1/posts/{slug}",
      step: get("GET /v1/posts/{slug}", `/v1/posts/${f.postSlug}`),
    },
    { id: "graphql", title: "POST /graphql posts(limit: 10)", step: graphqlStep },
  ];
  return [
    ...routes.map(
      (route): Scenario => ({
        id: `pre-${route.id}`,
        title: `prerendered ${route.title}`,
        server: "prerendered",
        sameBodyAs: route.id,
        steps: [route.step],
      }),
    ),
    ...routes.map(
      (route): Scenario => ({
        id: `cached-${route.id}`,
        title: `cached ${route.title}`,
        server: "cached",
        comparedWith: `pre-${route.id}`,
        steps: [route.step],
      }),
    ),
    {
      id: "cached-304",
      title: "cached GET /v1/posts?limit=10 → 304",
      server: "cached",
      comparedWith: "pre-list10",
      steps: [
        {
          ...get("GET /v1/posts?limit=10 (If-None-Match)", "/v1/posts?limit=10"),
          revalidate: true,
          expectStatus: 304,
        },
      ],
    },
    {
      id: "cached-miss",
      title: "cache miss GET /v1/posts?limit=10&n=…",
      server: "cached",
      comparedWith: "list10-turns",
      turns: "miss",
      steps: [
        {
          ...get("GET /v1/posts?limit=10&n=… (never asked before)", "/v1/posts?limit=10"),
          path: (_ctx, n) => `/v1/posts?limit=10&n=${n}`,
        },
      ],
    },
    {
      // The miss's yardstick: today's uncached read of the same page, taken in turns with the miss.
      // Measured minutes apart, the same build's list moved by 10–20% on this machine, more than the 5%
      // the miss is allowed.
      id: "list10-turns",
      title: "GET /v1/posts?limit=10, in turns with the cache miss",
      server: "service",
      turns: "miss",
      runsWith: "cached-miss",
      steps: [get("GET /v1/posts?limit=10", "/v1/posts?limit=10")],
    },
  ];
}

function createBody(f: BenchFixtures, slug: string, n: number) {
  return {
    title: `Benchmark write ${n}`,
    description: "Written by the benchmark.",
    content: demoHtml(n, 8),
    slug,
    categoryId: f.categoryIds[n % f.categoryIds.length],
    status: "published",
    tags: pickIds(f.tagIds, n, 3),
    authors: pickIds(f.authorIds, n, 2),
    featured: n % 7 === 0,
    fields: Object.fromEntries(f.fields.map((field) => [field.key, fieldValue(field, n)])),
  };
}

function updateBody(f: BenchFixtures, n: number) {
  const first = f.fields[0];
  return {
    title: `Benchmark write ${n} (edited)`,
    featured: true,
    tags: pickIds(f.tagIds, n + 7, 3),
    ...(first ? { fields: { [first.key]: fieldValue(first, n + 1) } } : {}),
  };
}

function pickIds(ids: string[], n: number, count: number): string[] {
  return [...new Set(Array.from({ length: count }, (_, k) => ids[(n + k * 3) % ids.length] as string))];
}

function fieldValue(field: BenchFixtures["fields"][number], n: number): unknown {
  switch (field.type) {
    case "number":
      return 3 + (n % 12);
    case "boolean":
      return n % 2 === 0;
    case "select":
      return field.options[n % field.options.length] ?? null;
    case "multiselect":
      return field.options.slice(0, 1 + (n % Math.max(1, field.options.length)));
    case "date":
      return "2024-05-01";
    case "richtext":
      return "<p>Benchmark</p>";
    default:
      return `https://example.com/bench/${n}`;
  }
}

/** The step's request for sequence number `n`, or null when it has to be skipped. */
export function renderStep(
  step: Step,
  ctx: StepContext,
  n: number,
): { path: string; body: string | undefined } | null {
  const path = typeof step.path === "function" ? step.path(ctx, n) : step.path;
  if (path === null) return null;
  const body = step.makeBody ? step.makeBody(ctx, n) : step.body;
  return { path, body: body === undefined ? undefined : JSON.stringify(body) };
}

export function isStatic(step: Step): boolean {
  return typeof step.path === "string" && !step.makeBody && !step.capture;
}

/** Sends one rendered step to `baseUrl` with the step's key (the preflight and the statement count). */
export function sendStep(
  baseUrl: string,
  step: Step,
  rendered: { path: string; body: string | undefined },
  key: string,
): Promise<Response> {
  return fetch(baseUrl + rendered.path, {
    method: step.method,
    headers: {
      authorization: key,
      ...(rendered.body ? { "content-type": "application/json" } : {}),
      ...step.headers,
    },
    body: rendered.body,
  });
}
