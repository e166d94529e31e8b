// Every environment variable the service reads is parsed and validated here, once, at start.
// Nothing else in src/ touches process.env.
import { constants } from "node:buffer";
import { isIP } from "node:net";
import path from "node:path";
import { z } from "zod";

const port = z.coerce.number().int().min(0).max(65_535);
const positiveInt = z.coerce.number().int().positive();
const nonNegativeInt = z.coerce.number().int().nonnegative();
const optionalUrl = z.string().url().optional();
const flag = z
  .enum(["true", "false", "1", "0", "yes", "no"])
  .transform((v) => v === "true" || v === "1" || v === "yes");

/**
 * node-postgres fills a missing user from the operating system's login and a missing database from the
 * user, so a URL without them fails only at the first connection, far from the setting's name. Say it here.
 */
function requireUserHostDatabase(value: string, ctx: z.RefinementCtx): void {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    ctx.addIssue({ code: "custom", message: "is not a valid URL" });
    return;
  }
  const missing = [
    url.username ? null : "a user",
    url.hostname || url.searchParams.has("host") ? null : "a host",
    url.pathname.length > 1 ? null : "a database",
  ].filter((part) => part !== null);
  if (missing.length)
    ctx.addIssue({
      code: "custom",
      message: `must name ${missing.join(" and ")}, as in postgresql://user:password@host:5432/database`,
    });
}

/**
 * TRUST_PROXY in Express's "trust proxy" terms: unset → trust nobody (the socket address); a number →
 * that many proxies in front; else a list of proxy addresses (`loopback`, `linklocal`, `uniquelocal`,
 * IPs, CIDRs). `true` (and a range holding every address) is refused: Express then takes the leftmost
 * X-Forwarded-For entry, which the client writes itself, so anyone could send a new address with each
 * request and never meet the keyless or admin rate limits, which count per client address.
 */
const trustProxy = z
  .string()
  .optional()
  .transform((value, ctx): false | number | string => {
    if (value === undefined) return false;
    const trimmed = value.trim();
    if (/^\d+$/.test(trimmed)) return Number(trimmed);
    const entries = trimmed.split(",").map((entry) => entry.trim());
    if (/^true$/i.test(trimmed) || entries.some(holdsEveryAddress)) {
      ctx.addIssue({
        code: "custom",
        message:
          "must not trust every proxy: that believes the leftmost X-Forwarded-For entry, which the client " +
          "writes itself, so any client could pick the address the rate limits count. Set the number of " +
          "proxies in front of the service (TRUST_PROXY=1 behind one load balancer), or their addresses " +
          "(`loopback`, IPs, CIDRs)",
      });
      return z.NEVER;
    }
    const unknown = entries.find((entry) => !isProxyAddress(entry));
    if (unknown !== undefined) {
      ctx.addIssue({
        code: "custom",
        message: `"${unknown}" is not a hop count, \`loopback\`, \`linklocal\`, \`uniquelocal\`, an IP or a CIDR`,
      });
      return z.NEVER;
    }
    return entries.join(",");
  });

function isProxyAddress(entry: string): boolean {
  if (["loopback", "linklocal", "uniquelocal"].includes(entry)) return true;
  const [address = "", range, ...rest] = entry.split("/");
  if (rest.length || !isIP(address)) return false;
  return range === undefined || /^\d{1,3}$/.test(range) || isIP(range) === 4;
}

/** `0.0.0.0/0`, `::/0` and the like: a range that every client address falls in. */
function holdsEveryAddress(entry: string): boolean {
  const [address = "", range] = entry.split("/");
  return isIP(address) !== 0 && (range === "0" || range === "0.0.0.0");
}

const DURATION_UNITS_MS = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 } as const;

/** "5s,30s,2m,1h" → [5000, 30000, 120000, 3600000]: whole numbers with a unit, each above zero. */
const durationList = z
  .string()
  .regex(
    /^\s*\d+(ms|s|m|h)\s*(,\s*\d+(ms|s|m|h)\s*)*$/,
    'must be a comma-separated list of durations such as "5s,30s,2m,1h" (units ms, s, m, h)',
  )
  .transform((list) =>
    list.split(",").map((item) => {
      const [, amount = "0", unit = "ms"] = /(\d+)(ms|s|m|h)/.exec(item) ?? [];
      return Number(amount) * DURATION_UNITS_MS[unit as keyof typeof DURATION_UNITS_MS];
    }),
  )
  .refine((waits) => waits.every((wait) => wait > 0), "every duration must be above zero");

/** "16,32,640" → [16, 32, 640]: whole numbers above zero, without repeats, in ascending order. */
const ascendingIntList = (max: number) =>
  z
    .string()
    .regex(/^\s*\d+\s*(,\s*\d+\s*)*$/, 'must be a comma-separated list of whole numbers such as "16,32,64"')
    .transform((list) => list.split(",").map((item) => Number(item.trim())))
    .refine((numbers) => numbers.every((n) => n > 0 && n <= max), `every number must be between 1 and ${max}`)
    .refine(
      (numbers) => numbers.every((n, i) => i === 0 || n > (numbers[i - 1] ?? 0)),
      "must be in ascending order, without repeats",
    );

/**
 * The widths (and heights) a transformed image may be asked for: Next.js's default imageSizes followed
 * by its deviceSizes, so `next/image` and hand-written srcsets land on them, from 16 to 3840 pixels.
 */
const DEFAULT_TRANSFORM_WIDTHS = [
  16, 32, 48, 64, 96, 128, 256, 384, 640, 750, 828, 1080, 1200, 1920, 2048, 3840,
];

/** "1h" → 3600000: one whole number with a unit (ms, s, m, h), above zero. */
const duration = z
  .string()
  .regex(/^\s*\d+(ms|s|m|h)\s*$/, 'must be a duration such as "30m" or "1h" (units ms, s, m, h)')
  .transform((text) => {
    const [, amount = "0", unit = "ms"] = /(\d+)(ms|s|m|h)/.exec(text) ?? [];
    return Number(amount) * DURATION_UNITS_MS[unit as keyof typeof DURATION_UNITS_MS];
  })
  .refine((ms) => ms > 0, "must be above zero");

/** The placeholders PREVIEW_URL may hold; each is replaced by its value, percent-encoded. */
export const PREVIEW_URL_PLACEHOLDERS = ["token", "id", "slug"] as const;

/** PREVIEW_URL: an http(s) URL template that holds `{token}` and no placeholder but those above. */
function checkPreviewUrlTemplate(template: string, ctx: z.RefinementCtx): void {
  const names = [...template.matchAll(/\{([^{}]*)\}/g)].map((match) => match[1] ?? "");
  const unknown = names.filter((name) => !(PREVIEW_URL_PLACEHOLDERS as readonly string[]).includes(name));
  if (unknown.length)
    ctx.addIssue({
      code: "custom",
      message: `has unknown placeholders ${unknown.map((n) => `{${n}}`).join(", ")}; use {token}, {id}, {slug}`,
    });
  if (!names.includes("token"))
    ctx.addIssue({
      code: "custom",
      message: "must hold {token}, e.g. https://site.example/preview?token={token}",
    });
  const sample = template.replace(/\{[^{}]*\}/g, "x");
  if (!/^https?:\/\//.test(sample) || !URL.canParse(sample))
    ctx.addIssue({ code: "custom", message: "must be an http(s) URL once its placeholders are filled in" });
}

export const EnvSchema = z.object({
  NODE_ENV: z.enum(["development", "production", "test"]).default("development"),
  PORT: port.default(3000),
  HOST: z.string().min(1).default("0.0.0.0"),
  /** Where the embedded database and locally stored media live. */
  DATA_DIR: z.string().min(1).default("./data"),
  /** When set, a PostgreSQL server is used instead of the embedded database. */
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, "must be a postgres:// or postgresql:// URL")
    .superRefine(requireUserHostDatabase)
    .optional(),
  /** PostgreSQL schema to use (tests give each file its own). */
  DATABASE_SCHEMA: z
    .string()
    .regex(/^[a-z_][a-z0-9_]*$/, "must be a lowercase SQL identifier")
    .optional(),
  DATABASE_POOL_SIZE: positiveInt.default(10),
  /**
   * PostgreSQL streaming replicas of DATABASE_URL's server (a comma list of URLs) that uncached reads
   * may go to, never when one has not replayed what the answer must show (src/db/replica-router.ts).
   * Unset: every read goes to DATABASE_URL.
   */
  DATABASE_REPLICA_URLS: z
    .string()
    .transform((list) =>
      list
        .split(",")
        .map((url) => url.trim())
        .filter((url) => url !== ""),
    )
    .superRefine((urls, ctx) => {
      for (const url of urls) {
        if (!/^postgres(ql)?:\/\//.test(url))
          ctx.addIssue({ code: "custom", message: `${url} must be a postgres:// or postgresql:// URL` });
        else requireUserHostDatabase(url, ctx);
      }
    })
    .optional(),
  /** A replica further behind the primary than this (replay lag) gets no reads until it catches up. */
  DATABASE_REPLICA_MAX_LAG_MS: positiveInt.default(5_000),
  /**
   * PostgreSQL's `statement_timeout` for every pooled connection (0: none): no request holds a
   * connection longer; one past it answers 503. Migrations lift it for themselves.
   */
  DATABASE_STATEMENT_TIMEOUT_MS: nonNegativeInt.default(5_000),
  /**
   * How often the service looks for tables whose planner statistics are out of date and analyses them
   * (src/db/planner-statistics.ts), as autovacuum would; also once at start. 0: never (autovacuum's job).
   */
  DATABASE_ANALYZE_INTERVAL_MS: nonNegativeInt.default(60_000),
  /**
   * The embedded database's thread answers a heartbeat between statements; one silent this long (a
   * statement that never ends) is ended and started again on the same data folder (src/db/
   * embedded-thread-supervisor.ts). Longer than any statement the service runs; 0: never.
   */
  EMBEDDED_WATCHDOG_MS: nonNegativeInt.default(60_000),
  /** The most words a full-text search may hold; more answer 400. */
  SEARCH_MAX_TERMS: positiveInt.default(32),
  /** When set, rate-limit counters are shared by all instances through Redis. */
  REDIS_URL: z
    .string()
    .regex(/^rediss?:\/\//, "must be a redis:// or rediss:// URL")
    .optional(),
  /** Enables the /admin API, guarded by this bearer token. */
  ADMIN_TOKEN: z.string().min(16, "must be at least 16 characters").optional(),
  /** Bearer token of GET /metrics; ADMIN_TOKEN when unset; with neither, /metrics is off. */
  METRICS_TOKEN: z.string().min(16, "must be at least 16 characters").optional(),
  /** Which proxies' X-Forwarded-For to believe (Express "trust proxy" syntax: a hop count, "loopback", CIDRs). */
  TRUST_PROXY: trustProxy,
  RATE_LIMIT_WINDOW_MS: positiveInt.default(10_000),
  /**
   * The prefix of the rate limiter's counters in Redis: deployments (or test servers) that share one
   * Redis keep their budgets apart by giving each its own.
   */
  RATE_LIMIT_REDIS_PREFIX: z.string().min(1).max(100).default("ratelimit:"),
  RATE_LIMIT_AUTHENTICATED: positiveInt.default(200),
  RATE_LIMIT_UNAUTHENTICATED: positiveInt.default(10),
  /** Largest JSON body accepted, in bytes. */
  BODY_LIMIT_BYTES: positiveInt.default(1_048_576),
  MEDIA_MAX_BYTES: positiveInt.default(5 * 1024 * 1024),
  /** Absolute base URL under which this service is reached; used for media URLs. */
  PUBLIC_URL: optionalUrl,
  MEDIA_STORAGE: z.enum(["local", "s3"]).default("local"),
  /**
   * Milliseconds a media storage call (a delete, a read, the start of an upload) may take before it is
   * abandoned and the request answers 503: a hung store must not hold requests (and their sockets).
   */
  MEDIA_STORAGE_TIMEOUT_MS: positiveInt.default(5_000),
  /**
   * The slowest transfer an upload may make, in bytes per second: an upload's deadline is
   * MEDIA_STORAGE_TIMEOUT_MS plus its size at this rate (a 5 MiB file: 5 s more by default).
   */
  MEDIA_STORAGE_MIN_BYTES_PER_SECOND: positiveInt.default(1024 * 1024),
  /**
   * Widths and heights (pixels) an image transform may name (`?w=`, `?h=`): each distinct URL is computed
   * and stored once, so an open range would let anyone fill the store and the CPU with variants.
   */
  MEDIA_TRANSFORM_WIDTHS: ascendingIntList(16_384).default(DEFAULT_TRANSFORM_WIDTHS),
  /** Qualities `?q=` may name (1–100); Next.js 16 allow-lists its qualities the same way. */
  MEDIA_TRANSFORM_QUALITIES: ascendingIntList(100).default([50, 60, 75, 80, 90, 100]),
  /** The quality of a transform that names none (next/image's default). */
  MEDIA_TRANSFORM_DEFAULT_QUALITY: positiveInt.max(100).default(75),
  /** Pixels (all frames of an animation) a transform decodes at most: the decompression bomb's bound. */
  MEDIA_TRANSFORM_MAX_INPUT_PIXELS: positiveInt.default(50_000_000),
  /** Pixels (all frames of an animation) a transform writes at most. */
  MEDIA_TRANSFORM_MAX_OUTPUT_PIXELS: positiveInt.default(16_777_216),
  /** Transforms this instance computes at once; the rest wait (see MEDIA_TRANSFORM_QUEUE_WAIT_MS). */
  MEDIA_TRANSFORM_CONCURRENCY: positiveInt.default(2),
  /** Milliseconds a transform waits for a free slot before the request answers 503 with Retry-After. */
  MEDIA_TRANSFORM_QUEUE_WAIT_MS: positiveInt.default(2_000),
  /**
   * New variants (not stored yet) one client address may have computed per RATE_LIMIT_WINDOW_MS, on all
   * instances together when Redis is configured; past it 429. Stored variants are not counted.
   */
  MEDIA_TRANSFORM_RATE_LIMIT: positiveInt.default(30),
  /** Variants kept per original image; past it the least recently used are deleted (computed again when asked). */
  MEDIA_TRANSFORM_MAX_VARIANTS: positiveInt.default(50),
  S3_ENDPOINT: optionalUrl,
  S3_REGION: z.string().default("us-east-1"),
  S3_BUCKET: z.string().optional(),
  S3_ACCESS_KEY_ID: z.string().optional(),
  S3_SECRET_ACCESS_KEY: z.string().optional(),
  S3_FORCE_PATH_STYLE: flag.default(true),
  /** Base URL under which stored S3 objects are publicly readable. */
  S3_PUBLIC_URL: optionalUrl,
  GRAPHQL_MAX_DEPTH: positiveInt.default(10),
  GRAPHQL_MAX_COMPLEXITY: positiveInt.default(5_000),
  /** Largest GraphQL answer (REST answers included, they run GraphQL), in bytes of JSON. */
  GRAPHQL_MAX_RESPONSE_BYTES: positiveInt.default(16 * 1024 * 1024),
  /**
   * Who may introspect the schema: `public` (anyone, an introspection-only document needs no key: the
   * schema is no secret, schema.graphql ships with the code), `key` (any valid key), `off` (nobody).
   */
  GRAPHQL_INTROSPECTION: z.enum(["public", "key", "off"]).default("public"),
  LOG_LEVEL: z.enum(["debug", "info", "warn", "error", "silent"]).default("info"),
  /** json (one JSON line per event) or pretty (pino-pretty); unset: pretty for a developer's terminal. */
  LOG_FORMAT: z.enum(["json", "pretty"]).optional(),
  /** Milliseconds SIGTERM waits for in-flight requests before closing anyway. */
  SHUTDOWN_TIMEOUT_MS: positiveInt.default(10_000),
  /** Days the change log keeps events; a cursor older than that answers 410. */
  EVENT_RETENTION_DAYS: positiveInt.default(30),
  /**
   * Lets webhooks target, and imports fetch media and /v1 pages from, loopback, private and link-local
   * addresses (local development, tests, an import from a source on the private network).
   */
  WEBHOOK_ALLOW_PRIVATE_TARGETS: flag.default(false),
  /** Waits between webhook delivery attempts; unset: src/webhooks/retry-schedule.ts's default. */
  WEBHOOK_RETRY_SCHEDULE: durationList.optional(),
  /** Milliseconds one delivery attempt may take (connect, send, answer) before it counts as failed. */
  WEBHOOK_TIMEOUT_MS: positiveInt.default(10_000),
  /** Whether this instance sends webhooks; any number of instances may, each delivery goes out once. */
  WEBHOOK_DISPATCH: flag.default(true),
  /** How long an endpoint may fail every attempt before the service disables it (`webhook.disabled`). */
  WEBHOOK_DISABLE_AFTER: duration.default(24 * 3_600_000),
  /** Deliveries in flight at once to one endpoint, all instances together (a failing endpoint: 1). */
  WEBHOOK_ENDPOINT_CONCURRENCY: positiveInt.default(16),
  /** Deliveries in flight at once for one workspace's endpoints, all instances together. */
  WEBHOOK_WORKSPACE_CONCURRENCY: positiveInt.default(32),
  /** Changes a subscriber may leave unread before its subscription is ended (src/graphql/live). */
  SUBSCRIPTION_MAX_QUEUED: positiveInt.default(100),
  /** Open subscriptions one API key may hold on one instance; past it a new one answers 429. */
  SUBSCRIPTION_MAX_PER_KEY: positiveInt.default(20),
  /** Open subscriptions one instance serves in all; past it a new one answers 429. */
  SUBSCRIPTION_MAX_PER_INSTANCE: positiveInt.default(2_000),
  /** Milliseconds an import's fetch (a media file, a /v1 page) may take to connect, name lookup included. */
  IMPORT_FETCH_CONNECT_TIMEOUT_MS: positiveInt.default(10_000),
  /** Milliseconds an import's fetch may take in all: redirects, the answer's headers and its whole body. */
  IMPORT_FETCH_TIMEOUT_MS: positiveInt.default(60_000),
  /** Pages an import reads of one list of a /v1 source (`--from marble`) before it stops with an error. */
  IMPORT_SOURCE_MAX_PAGES: positiveInt.default(10_000),
  /** Largest page of a /v1 source an import reads, in bytes of JSON; larger, the import stops with an error. */
  IMPORT_SOURCE_MAX_PAGE_BYTES: positiveInt.default(32 * 1024 * 1024),
  /**
   * The /v1 source's API key for `import --from marble` when neither --key nor --key-file gives one (read
   * by the CLI: a key in argv shows in the process list).
   */
  IMPORT_SOURCE_KEY: z.string().min(1).optional(),
  /** Bytes an import uploaded to POST /v1/import may have (an archive, a Ghost or WordPress export). */
  IMPORT_UPLOAD_MAX_BYTES: positiveInt.default(512 * 1024 * 1024),
  /** Revisions kept per post (the newest); older ones are removed as new ones are written. */
  REVISIONS_KEEP: positiveInt.default(50),
  /**
   * Signs preview tokens (HMAC-SHA256). Unset: with the embedded database one is made on first start
   * and kept in DATA_DIR/preview-secret; with DATABASE_URL previews are off (every instance must share it).
   */
  PREVIEW_SECRET: z.string().min(32, "must be at least 32 characters").optional(),
  /** How long a preview token opens its post. */
  PREVIEW_TTL: duration.default(3_600_000),
  /** Where a preview is viewed: a URL template with {token} (and optionally {id}, {slug}). */
  PREVIEW_URL: z.string().superRefine(checkPreviewUrlTemplate).optional(),
  /**
   * The response caches: in this process's memory; in memory and shared by every instance through Redis
   * (the default when REDIS_URL is set); or none.
   */
  CACHE: z.enum(["memory", "redis", "off"]).optional(),
  /**
   * Bytes of answers each in-memory cache keeps at most: the REST answers' buffer (written round,
   * src/cache/answer-slab.ts: one Buffer, so no larger than Node allows one to be) and the GraphQL
   * answers' bound (least recently used go first).
   */
  CACHE_MAX_BYTES: positiveInt
    .max(constants.MAX_LENGTH, `at most ${constants.MAX_LENGTH} (the largest Buffer Node allows)`)
    .default(64 * 1024 * 1024),
  /**
   * How long an answer is kept at most, in memory and in Redis. A safety net only: answers are never
   * stale (their key holds the content head), the TTL bounds how long outgrown ones take up room.
   */
  CACHE_TTL: duration.default(3_600_000),
  /**
   * Seconds a shared cache (a CDN) may serve a public-key answer without asking again (`s-maxage`); 0:
   * it must revalidate every time. Above 0, purge by surrogate key from a webhook (docs/caching.md).
   */
  CACHE_S_MAXAGE: nonNegativeInt.default(0),
  /** Seconds a shared cache may go on serving a public-key answer while it revalidates it in the background. */
  CACHE_STALE_WHILE_REVALIDATE: nonNegativeInt.default(0),
  /**
   * Which CDN tag header `/v1` answers carry: `Surrogate-Key` (Fastly, and what most CDNs read),
   * `Cache-Tag` (Cloudflare), both, or none. One form by default: on a list of posts each is about a
   * kilobyte (an id per record).
   */
  CACHE_TAG_HEADER: z.enum(["surrogate-key", "cache-tag", "both", "none"]).default("surrogate-key"),
});

export type Config = ReturnType<typeof toConfig>;

export class ConfigError extends Error {
  override name = "ConfigError";
}

function toConfig(env: z.infer<typeof EnvSchema>) {
  const dataDir = path.resolve(env.DATA_DIR);
  return {
    env: env.NODE_ENV,
    port: env.PORT,
    host: env.HOST,
    dataDir,
    database: env.DATABASE_URL
      ? {
          kind: "postgres" as const,
          url: env.DATABASE_URL,
          schema: env.DATABASE_SCHEMA,
          poolSize: env.DATABASE_POOL_SIZE,
          statementTimeoutMs: env.DATABASE_STATEMENT_TIMEOUT_MS,
        }
      : { kind: "embedded" as const, dir: path.join(dataDir, "db"), watchdogMs: env.EMBEDDED_WATCHDOG_MS },
    /** See DATABASE_REPLICA_URLS; no URLs: every read on the primary. */
    replicas: { urls: env.DATABASE_REPLICA_URLS ?? [], maxLagMs: env.DATABASE_REPLICA_MAX_LAG_MS },
    /** See DATABASE_ANALYZE_INTERVAL_MS. */
    analyzeIntervalMs: env.DATABASE_ANALYZE_INTERVAL_MS,
    redisUrl: env.REDIS_URL,
    adminToken: env.ADMIN_TOKEN,
    metricsToken: env.METRICS_TOKEN ?? env.ADMIN_TOKEN,
    trustProxy: env.TRUST_PROXY,
    rateLimit: {
      windowMs: env.RATE_LIMIT_WINDOW_MS,
      redisPrefix: env.RATE_LIMIT_REDIS_PREFIX,
      authenticated: env.RATE_LIMIT_AUTHENTICATED,
      unauthenticated: env.RATE_LIMIT_UNAUTHENTICATED,
    },
    bodyLimitBytes: env.BODY_LIMIT_BYTES,
    publicUrl: env.PUBLIC_URL?.replace(/\/$/, ""),
    media: {
      maxBytes: env.MEDIA_MAX_BYTES,
      /** A whole upload request: the file, two JSON parts (GraphQL's operations and map), part headers. */
      maxRequestBytes: env.MEDIA_MAX_BYTES + 2 * env.BODY_LIMIT_BYTES + 64 * 1024,
      storage:
        env.MEDIA_STORAGE === "s3"
          ? {
              kind: "s3" as const,
              endpoint: env.S3_ENDPOINT,
              region: env.S3_REGION,
              bucket: env.S3_BUCKET ?? "",
              accessKeyId: env.S3_ACCESS_KEY_ID,
              secretAccessKey: env.S3_SECRET_ACCESS_KEY,
              forcePathStyle: env.S3_FORCE_PATH_STYLE,
              publicUrl: env.S3_PUBLIC_URL?.replace(/\/$/, ""),
            }
          : { kind: "local" as const, dir: path.join(dataDir, "media") },
      deadlines: {
        timeoutMs: env.MEDIA_STORAGE_TIMEOUT_MS,
        minBytesPerSecond: env.MEDIA_STORAGE_MIN_BYTES_PER_SECOND,
      },
      transforms: {
        widths: env.MEDIA_TRANSFORM_WIDTHS,
        qualities: env.MEDIA_TRANSFORM_QUALITIES,
        defaultQuality: env.MEDIA_TRANSFORM_DEFAULT_QUALITY,
        maxInputPixels: env.MEDIA_TRANSFORM_MAX_INPUT_PIXELS,
        maxOutputPixels: env.MEDIA_TRANSFORM_MAX_OUTPUT_PIXELS,
        concurrency: env.MEDIA_TRANSFORM_CONCURRENCY,
        queueWaitMs: env.MEDIA_TRANSFORM_QUEUE_WAIT_MS,
        rateLimit: env.MEDIA_TRANSFORM_RATE_LIMIT,
        maxPerOriginal: env.MEDIA_TRANSFORM_MAX_VARIANTS,
      },
    },
    graphql: {
      maxDepth: env.GRAPHQL_MAX_DEPTH,
      maxComplexity: env.GRAPHQL_MAX_COMPLEXITY,
      maxResponseBytes: env.GRAPHQL_MAX_RESPONSE_BYTES,
      introspection: env.GRAPHQL_INTROSPECTION,
    },
    logLevel: env.LOG_LEVEL,
    // Readable lines where a developer watches (development, a terminal); JSON wherever logs are collected.
    logFormat: env.LOG_FORMAT ?? (env.NODE_ENV === "development" && process.stderr.isTTY ? "pretty" : "json"),
    shutdownTimeoutMs: env.SHUTDOWN_TIMEOUT_MS,
    events: { retentionDays: env.EVENT_RETENTION_DAYS },
    webhooks: {
      allowPrivateTargets: env.WEBHOOK_ALLOW_PRIVATE_TARGETS,
      /** Milliseconds; undefined: the default schedule. */
      retryScheduleMs: env.WEBHOOK_RETRY_SCHEDULE,
      timeoutMs: env.WEBHOOK_TIMEOUT_MS,
      dispatch: env.WEBHOOK_DISPATCH,
      disableAfterFailingMs: env.WEBHOOK_DISABLE_AFTER,
      endpointConcurrency: env.WEBHOOK_ENDPOINT_CONCURRENCY,
      workspaceConcurrency: env.WEBHOOK_WORKSPACE_CONCURRENCY,
    },
    cache: {
      mode: env.CACHE ?? (env.REDIS_URL ? "redis" : "memory"),
      maxBytes: env.CACHE_MAX_BYTES,
      ttlMs: env.CACHE_TTL,
      sharedMaxAgeSeconds: env.CACHE_S_MAXAGE,
      staleWhileRevalidateSeconds: env.CACHE_STALE_WHILE_REVALIDATE,
      tagHeader: env.CACHE_TAG_HEADER,
    },
    search: { maxTerms: env.SEARCH_MAX_TERMS },
    subscriptions: {
      maxQueued: env.SUBSCRIPTION_MAX_QUEUED,
      maxPerKey: env.SUBSCRIPTION_MAX_PER_KEY,
      maxPerInstance: env.SUBSCRIPTION_MAX_PER_INSTANCE,
    },
    revisions: { keep: env.REVISIONS_KEEP },
    imports: {
      /** What an import may fetch by URL, and how long it may take (src/transfer/remote-fetch.ts). */
      fetch: {
        allowPrivateTargets: env.WEBHOOK_ALLOW_PRIVATE_TARGETS,
        connectTimeoutMs: env.IMPORT_FETCH_CONNECT_TIMEOUT_MS,
        timeoutMs: env.IMPORT_FETCH_TIMEOUT_MS,
      },
      source: {
        maxPages: env.IMPORT_SOURCE_MAX_PAGES,
        maxPageBytes: env.IMPORT_SOURCE_MAX_PAGE_BYTES,
      },
      /** The CLI's `import --from marble` key when the command line gives none. */
      sourceKey: env.IMPORT_SOURCE_KEY,
      uploadMaxBytes: env.IMPORT_UPLOAD_MAX_BYTES,
    },
    preview: { secret: env.PREVIEW_SECRET, ttlMs: env.PREVIEW_TTL, urlTemplate: env.PREVIEW_URL },
  };
}

/** Parses the environment; throws a ConfigError that names every bad variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = EnvSchema.safeParse(emptyAsUnset(env));
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join(".")}: ${i.message}`);
    throw new ConfigError(`Invalid configuration:\n${lines.join("\n")}`);
  }
  if (parsed.data.MEDIA_STORAGE === "s3" && !parsed.data.S3_BUCKET) {
    throw new ConfigError("Invalid configuration:\n  S3_BUCKET: required when MEDIA_STORAGE=s3");
  }
  if (parsed.data.DATABASE_REPLICA_URLS?.length && !parsed.data.DATABASE_URL) {
    throw new ConfigError(
      "Invalid configuration:\n  DATABASE_REPLICA_URLS: replicas need DATABASE_URL (their primary)",
    );
  }
  if (parsed.data.CACHE === "redis" && !parsed.data.REDIS_URL) {
    throw new ConfigError("Invalid configuration:\n  REDIS_URL: required when CACHE=redis");
  }
  return toConfig(parsed.data);
}

/** An empty variable (`FOO=`) means "not set", as shells and .env files commonly produce them. */
function emptyAsUnset(env: NodeJS.ProcessEnv): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(env)) if (value !== undefined && value !== "") out[key] = value;
  return out;
}
