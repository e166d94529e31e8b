// Every environment variable the service reads is parsed and validated here, once, at start.
// Nothing else in src/ touches process.env.
import path from "node:path";
import { z } from "zod";

const port = z.coerce.number().int().min(0).max(65_535);
const positiveInt = z.coerce.number().int().positive();
const optionalUrl = z.string().url().optional();
const flag = z
  .enum(["true", "false", "1", "0", "yes", "no"])
  .transform((v) => v === "true" || v === "1" || v === "yes");

const EnvSchema = z.object({
  NODE_ENV: z.enum(["development", "production", "test"]).default("development"),
  PORT: port.default(3000),
  HOST: z.string().min(1).default("0.0.0.0"),
  /** Where the embedded database and locally stored media live. */
  DATA_DIR: z.string().min(1).default("./data"),
  /** When set, a PostgreSQL server is used instead of the embedded database. */
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, "must be a postgres:// or postgresql:// URL")
    .optional(),
  /** PostgreSQL schema to use (tests give each file its own). */
  DATABASE_SCHEMA: z
    .string()
    .regex(/^[a-z_][a-z0-9_]*$/, "must be a lowercase SQL identifier")
    .optional(),
  DATABASE_POOL_SIZE: positiveInt.default(10),
  /** When set, rate-limit counters are shared by all instances through Redis. */
  REDIS_URL: z
    .string()
    .regex(/^rediss?:\/\//, "must be a redis:// or rediss:// URL")
    .optional(),
  /** Enables the /admin API, guarded by this bearer token. */
  ADMIN_TOKEN: z.string().min(16, "must be at least 16 characters").optional(),
  /** Which proxies' X-Forwarded-For to believe (Express "trust proxy" syntax: a hop count, "loopback", CIDRs). */
  TRUST_PROXY: z.string().optional(),
  RATE_LIMIT_WINDOW_MS: positiveInt.default(10_000),
  RATE_LIMIT_AUTHENTICATED: positiveInt.default(200),
  RATE_LIMIT_UNAUTHENTICATED: positiveInt.default(10),
  /** Largest JSON body accepted, in bytes. */
  BODY_LIMIT_BYTES: positiveInt.default(1_048_576),
  MEDIA_MAX_BYTES: positiveInt.default(5 * 1024 * 1024),
  /** Absolute base URL under which this service is reached; used for media URLs. */
  PUBLIC_URL: optionalUrl,
  MEDIA_STORAGE: z.enum(["local", "s3"]).default("local"),
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
  LOG_LEVEL: z.enum(["debug", "info", "warn", "error", "silent"]).default("info"),
  /** Milliseconds SIGTERM waits for in-flight requests before closing anyway. */
  SHUTDOWN_TIMEOUT_MS: positiveInt.default(10_000),
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
        }
      : { kind: "embedded" as const, dir: path.join(dataDir, "db") },
    redisUrl: env.REDIS_URL,
    adminToken: env.ADMIN_TOKEN,
    trustProxy: env.TRUST_PROXY,
    rateLimit: {
      windowMs: env.RATE_LIMIT_WINDOW_MS,
      authenticated: env.RATE_LIMIT_AUTHENTICATED,
      unauthenticated: env.RATE_LIMIT_UNAUTHENTICATED,
    },
    bodyLimitBytes: env.BODY_LIMIT_BYTES,
    publicUrl: env.PUBLIC_URL?.replace(/\/$/, ""),
    media: {
      maxBytes: env.MEDIA_MAX_BYTES,
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
    },
    graphql: { maxDepth: env.GRAPHQL_MAX_DEPTH, maxComplexity: env.GRAPHQL_MAX_COMPLEXITY },
    logLevel: env.LOG_LEVEL,
    shutdownTimeoutMs: env.SHUTDOWN_TIMEOUT_MS,
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
  return toConfig(parsed.data);
}

/** An empty variable (`FOO=`) means "not set", as shells and .env files commonly produce them. */
function emptyAsUnset(env: NodeJS.ProcessEnv): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(env)) if (value !== undefined && value !== "") out[key] = value;
  return out;
}
