// SQL statements per request, measured in-process (separately from the throughput runs): the bench opens
// the same database with openRuntime(…, { onQuery }) and buildApp, listens on an ephemeral port, sends
// each route's requests once to warm caches (API key → caller, markdown) and once more counted.
//
// Three counters, because each sees a different part:
//  - prisma: Prisma's query events (the `onQuery` hook), i.e. every statement Prisma sends;
//  - raw: statements through the app's raw SQL executor (`db.sql`: full-text search, post rows);
//  - driver: every statement the database driver executes (pg.Client#query, or PGlite query/exec and
//    the BEGIN/COMMIT of its transactions) — the ground truth, reported as "SQL/req".
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { PGlite } from "@electric-sql/pglite";
import pg from "pg";
import { buildApp } from "../src/app/build-app.ts";
import { openRuntime } from "../src/bootstrap.ts";
import { loadConfig } from "../src/config.ts";
import { silentLogger } from "../src/logger.ts";
import { renderStep, type Scenario, type Step, type StepContext, sendStep } from "./scenarios.ts";

export interface StepStatements {
  label: string;
  status: number;
  expectedStatus: number;
  driver: number;
  prisma: number;
  raw: number;
  /** First 160 characters of each statement the driver ran, in order (schema prefixes removed). */
  sql: string[];
}

export interface StatementCounts {
  /** Per scenario id, one entry per step. */
  byScenario: Record<string, StepStatements[]>;
}

export async function countStatements(
  env: Record<string, string>,
  mode: "postgres" | "embedded",
  scenarios: Scenario[],
  keys: Record<Step["key"], string>,
): Promise<StatementCounts> {
  const counters = { driver: [] as string[], prisma: 0, raw: 0 };
  const uninstall =
    mode === "postgres" ? countPgStatements(counters.driver) : countPgliteStatements(counters.driver);
  const config = loadConfig({
    ...env,
    NODE_ENV: "production",
    LOG_LEVEL: "silent",
    // Statements of the read path itself: a cached answer would hide them.
    CACHE: "off",
    RATE_LIMIT_AUTHENTICATED: "1000000000",
    RATE_LIMIT_UNAUTHENTICATED: "1000000000",
  });
  const runtime = await openRuntime(config, silentLogger, {
    onQuery: (_sql, source) => {
      counters[source]++;
    },
  });
  const app = buildApp({ config, logger: silentLogger, ...runtime });
  const server = await new Promise<Server>((resolve) => {
    const s = createServer(app.listener).listen(0, "127.0.0.1", () => resolve(s));
  });
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const byScenario: Record<string, StepStatements[]> = {};
  let n = 1_000_000;
  try {
    for (const scenario of scenarios) {
      if (scenario.server !== "service") continue;
      for (const round of ["warm", "counted"] as const) {
        const ctx: StepContext = {};
        const counted: StepStatements[] = [];
        for (const step of scenario.steps) {
          const rendered = renderStep(step, ctx, n++);
          if (!rendered) break;
          counters.driver.length = 0;
          counters.prisma = 0;
          counters.raw = 0;
          const response = await sendStep(base, step, rendered, keys[step.key]);
          const text = await response.text();
          if (step.capture && response.status === step.expectStatus) step.capture(JSON.parse(text), ctx);
          counted.push({
            label: step.label,
            status: response.status,
            expectedStatus: step.expectStatus,
            driver: counters.driver.length,
            prisma: counters.prisma,
            raw: counters.raw,
            sql: counters.driver.map(shorten),
          });
        }
        if (round === "counted") byScenario[scenario.id] = counted;
      }
    }
  } finally {
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await runtime.close();
    uninstall();
  }
  return { byScenario };
}

function shorten(statement: string): string {
  return statement
    .replace(/"bench_[a-z0-9_]+"\./g, "")
    .replace(/\s+/g, " ")
    .trim()
    .slice(0, 160);
}

type QueryFn = (...args: unknown[]) => unknown;

function textOf(query: unknown): string {
  if (typeof query === "string") return query;
  if (query && typeof query === "object" && "text" in query) return String((query as { text: unknown }).text);
  return String(query);
}

/** pg.Pool#query and the Prisma adapter both end in pg.Client#query. */
function countPgStatements(log: string[]): () => void {
  const proto = pg.Client.prototype as unknown as { query: QueryFn };
  const original = proto.query;
  proto.query = function (this: unknown, ...args: unknown[]) {
    log.push(textOf(args[0]));
    return original.apply(this, args);
  };
  return () => {
    proto.query = original;
  };
}

/** PGlite: query/exec, and transaction() (its own BEGIN/COMMIT plus the statements on `tx`). */
function countPgliteStatements(log: string[]): () => void {
  const proto = PGlite.prototype as unknown as Record<"query" | "exec" | "transaction", QueryFn>;
  const originals = { query: proto.query, exec: proto.exec, transaction: proto.transaction };
  proto.query = function (this: unknown, ...args: unknown[]) {
    log.push(textOf(args[0]));
    return originals.query.apply(this, args);
  };
  proto.exec = function (this: unknown, ...args: unknown[]) {
    log.push(textOf(args[0]));
    return originals.exec.apply(this, args);
  };
  proto.transaction = function (this: unknown, ...args: unknown[]) {
    const callback = args[0] as (tx: Record<string, QueryFn>) => unknown;
    log.push("BEGIN");
    const wrapped = (tx: Record<string, QueryFn>) => {
      const counted = Object.create(tx) as Record<string, QueryFn>;
      for (const name of ["query", "exec"] as const) {
        const fn = tx[name] as QueryFn;
        counted[name] = (...a: unknown[]) => {
          log.push(textOf(a[0]));
          return fn(...a);
        };
      }
      return callback(counted);
    };
    const result = originals.transaction.call(this, wrapped) as Promise<unknown>;
    return result.finally(() => log.push("COMMIT"));
  };
  return () => Object.assign(proto, originals);
}
