// Command-line flags of `npm run bench`. Defaults are the measurement the issue asks for; the flags
// exist for quick trials (`--duration 3 --posts 1000`) and for the CPU profile (`--profile`).
import { parseArgs } from "node:util";

export interface BenchOptions {
  /** Embedded PGlite in a temporary DATA_DIR instead of PostgreSQL. */
  embedded: boolean;
  /** PostgreSQL server URL (PostgreSQL mode). */
  databaseUrl: string;
  /** Seconds of measurement per route. */
  duration: number;
  /** Seconds of warm-up load per route, not measured. */
  warmup: number;
  /**
   * Seconds of warm-up per route of a group measured in turns (the read path, the cache miss), before
   * its first turn: those servers are new, and V8 goes on optimizing the service's code for about half a
   * minute of load (bench/README.md, "Node 24, and the steady state"), the baseline's within a second.
   */
  turnsWarmup: number;
  /** Concurrent keep-alive connections of the load generator. */
  connections: number;
  posts: number;
  /** Route ids to run (see `--list`); empty = all. The baseline always runs unless `--no-baseline`. */
  only: string[];
  baseline: boolean;
  /** Start the service with `--cpu-prof` and summarise the profile at the end. */
  profile: boolean;
  /** Keep the PostgreSQL schema / data directory instead of dropping it. */
  keep: boolean;
  /** Where the JSON result goes; default bench/results/<date>-<mode>.json. */
  out: string | undefined;
  list: boolean;
  /**
   * Statistics missing (issue 39): no VACUUM ANALYZE after seeding and autovacuum off for the bench's
   * tables, as a new database, a restore or a bulk import is until something analyses it.
   */
  analyze: boolean;
  /** Start the services with DATABASE_ANALYZE_INTERVAL_MS=0: they never analyse (with --no-analyze: no statistics at all). */
  serviceAnalyze: boolean;
  /** Run bench/peers.ts (PostGraphile 5 against the uncached read path) after the routes; PostgreSQL only. */
  peers: boolean;
  /**
   * Only the keys stage (issue 57): the service at `before` and this checkout side by side, cached and
   * uncached reads in turns and the key resolver in-process (bench/keys.ts).
   */
  keys: boolean;
  /** The commit the keys stage compares this checkout with. */
  before: string;
  /**
   * Rounds of the keys stage's load: each starts new server processes (before, after, and after again as
   * the control), since two processes of one build differ more than a 3% question (bench/README.md).
   */
  processRounds: number;
}

const HELP = `Usage: npm run bench -- [flags]

  --embedded            embedded PGlite (temporary DATA_DIR) instead of PostgreSQL
  --database-url URL    PostgreSQL server (default: $DATABASE_URL or postgresql://postgres@127.0.0.1:5432/test)
  --duration SEC        measured seconds per route (default 10)
  --warmup SEC          warm-up seconds per route (default 3)
  --turns-warmup SEC    warm-up seconds per route measured in turns: read path, cache miss (default 15)
  --connections N       concurrent keep-alive connections (default 10)
  --posts N             posts to seed (default 10000)
  --only ID,ID          run only these routes (ids: see --list); the baseline always runs
  --no-baseline         skip the raw node:http + pg baseline
  --profile             run the service with --cpu-prof and print the top functions by self time
  --keep                keep the database schema / data directory afterwards
  --out FILE            write the JSON result here (default bench/results/<date>-<mode>.json)
  --list                print the route ids and exit
  --no-analyze          no VACUUM ANALYZE after seeding, autovacuum off for the bench tables (statistics missing)
  --no-service-analyze  the services never analyse either (DATABASE_ANALYZE_INTERVAL_MS=0)
  --keys                only the keys stage (issue 57): the service at --before and this checkout side
                        by side, cached and uncached reads in turns, the key resolver in-process
                        (bench/keys.ts; uses --duration, --turns-warmup, --connections, --posts, --embedded;
                        --profile: the key check's share of each server's CPU profile)
  --before REV          the commit --keys compares with (default 8dde9c6, before issue 57's keys)
  --process-rounds N    --keys: rounds of new server processes per group, each with an A/A control (default 4)
  --no-peers            skip the last stage, PostGraphile 5 against the uncached read path (bench/peers.ts;
                        PostgreSQL only, run unless --only is given; needs a Node 22+ for PostGraphile)
`;

export function parseBenchOptions(argv: string[], env: NodeJS.ProcessEnv): BenchOptions {
  try {
    return toOptions(argv, env);
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n\n${HELP}`);
    process.exit(2);
  }
}

function toOptions(argv: string[], env: NodeJS.ProcessEnv): BenchOptions {
  const { values } = parseArgs({
    args: argv,
    options: {
      embedded: { type: "boolean", default: false },
      "database-url": { type: "string" },
      duration: { type: "string", default: "10" },
      warmup: { type: "string", default: "3" },
      "turns-warmup": { type: "string", default: "15" },
      connections: { type: "string", default: "10" },
      posts: { type: "string", default: "10000" },
      only: { type: "string" },
      "no-baseline": { type: "boolean", default: false },
      profile: { type: "boolean", default: false },
      keep: { type: "boolean", default: false },
      out: { type: "string" },
      list: { type: "boolean", default: false },
      "no-analyze": { type: "boolean", default: false },
      "no-service-analyze": { type: "boolean", default: false },
      "no-peers": { type: "boolean", default: false },
      keys: { type: "boolean", default: false },
      before: { type: "string", default: "8dde9c6" },
      "process-rounds": { type: "string", default: "4" },
      help: { type: "boolean", short: "h", default: false },
    },
    strict: true,
  });
  if (values.help) {
    process.stdout.write(HELP);
    process.exit(0);
  }
  return {
    embedded: values.embedded,
    databaseUrl: values["database-url"] ?? env.DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/test",
    duration: positive("duration", values.duration),
    warmup: nonNegative("warmup", values.warmup),
    turnsWarmup: nonNegative("turns-warmup", values["turns-warmup"]),
    connections: positive("connections", values.connections),
    posts: positive("posts", values.posts),
    only: values.only
      ? values.only
          .split(",")
          .map((s) => s.trim())
          .filter(Boolean)
      : [],
    baseline: !values["no-baseline"],
    profile: values.profile,
    keep: values.keep,
    out: values.out,
    list: values.list,
    analyze: !values["no-analyze"],
    serviceAnalyze: !values["no-service-analyze"],
    peers: !values["no-peers"] && !values.embedded && !values.only,
    keys: values.keys,
    before: values.before,
    processRounds: positive("process-rounds", values["process-rounds"]),
  };
}

function positive(name: string, raw: string): number {
  const n = Number(raw);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`--${name} must be a positive number, got "${raw}"`);
  return n;
}

function nonNegative(name: string, raw: string): number {
  const n = Number(raw);
  if (!Number.isFinite(n) || n < 0) throw new Error(`--${name} must be 0 or more, got "${raw}"`);
  return n;
}
