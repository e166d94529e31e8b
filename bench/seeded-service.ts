// The setup the focused benchmarks share: a fresh database (PostgreSQL schema or embedded data folder),
// seeded with `posts` posts through the content services, and the service as its own process on it
// (production wiring, rate limits out of the way). Everything is removed after `run`.
import { type BenchDatabase, createBenchDatabase } from "./database.ts";
import { type ChildServer, startServer } from "./processes.ts";
import { type BenchFixtures, benchSizes, seedBenchDatabase } from "./seed.ts";

/** Percentile `p` (0–100) of ascending `sorted` values. */
export function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

/** A service's environment on a bench database: production wiring, rate limits out of the way. */
export function benchServiceEnv(
  database: Pick<BenchDatabase, "env">,
  embedded: boolean,
  extra: Record<string, string> = {},
): Record<string, string> {
  return {
    ...database.env,
    LOG_LEVEL: "warn",
    RATE_LIMIT_AUTHENTICATED: "100000000",
    ...(embedded ? {} : { REDIS_URL: process.env.REDIS_URL ?? "redis://127.0.0.1:6379" }),
    ...extra,
  };
}

/** A fresh database seeded with `posts` posts for the length of `run`, then removed. */
export async function withSeededDatabase(
  options: { embedded: boolean; posts: number; log: (text: string) => void },
  run: (seeded: { fixtures: BenchFixtures; database: BenchDatabase }) => Promise<void>,
): Promise<void> {
  const database = await createBenchDatabase({
    embedded: options.embedded,
    databaseUrl: process.env.DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/test",
  });
  options.log(`Database: ${database.location}`);
  try {
    const seed = await seedBenchDatabase(database.env, benchSizes(options.posts));
    await run({ fixtures: seed.fixtures, database });
  } finally {
    await database.drop();
  }
}

export async function withSeededService(
  options: {
    embedded: boolean;
    posts: number;
    env?: Record<string, string>;
    /** Extra node flags for the service, e.g. `--cpu-prof`. */
    nodeArgs?: string[];
    log: (text: string) => void;
  },
  run: (service: { server: ChildServer; fixtures: BenchFixtures; database: BenchDatabase }) => Promise<void>,
): Promise<void> {
  await withSeededDatabase(options, async ({ fixtures, database }) => {
    const server = await startServer({
      name: "service",
      script: "src/server.ts",
      env: benchServiceEnv(database, options.embedded, options.env),
      nodeArgs: options.nodeArgs,
    });
    try {
      await run({ server, fixtures, database });
    } finally {
      await server.stop();
    }
  });
}
