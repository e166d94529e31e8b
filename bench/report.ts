// The result of a run: a table on stdout and the same figures as JSON under bench/results/.
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { LoadResult } from "./load.ts";
import type { BenchOptions } from "./options.ts";
import type { ServerKind } from "./scenarios.ts";
import type { SeedReport } from "./seed.ts";
import type { StepStatements } from "./statements.ts";
import { formatProfileSummary, type ProfileSummary } from "./summarize-profile.ts";

export interface RouteReport {
  id: string;
  title: string;
  server: ServerKind;
  load: LoadResult | null;
  /** The route this one is measured against (its yardstick). */
  comparedWith: string;
  /** req/s of this route ÷ req/s of `comparedWith`. */
  ratio: number | null;
  /** For the cached service's routes: hits ÷ lookups of the response caches during the measured run. */
  cacheHitRatio?: number | null;
  /** Driver-level statements per request, per step (POST and PATCH for the writes). */
  statements: StepStatements[] | null;
  /** Set when the route could not be measured (wrong status in the pre-flight request, …). */
  problem?: string;
}

export interface BenchReport {
  createdAt: string;
  mode: "postgres" | "embedded";
  machine: {
    node: string;
    platform: string;
    cpus: number;
    cpuModel: string;
    loadAverageAtStart: number[];
    loadAverageAtEnd: number[];
  };
  settings: { duration: number; warmup: number; turnsWarmup: number; connections: number; posts: number };
  database: string;
  seed: Omit<SeedReport, "fixtures">;
  /** The baseline is only a yardstick if it answers with the service's JSON; checked per route. */
  baselineBodies: { route: string; identical: boolean; difference: string | null }[];
  /** Lines the service logged at level "error" during the run (e.g. failed writes under load). */
  serviceErrorsLogged: number;
  routes: RouteReport[];
  /** With --profile: summaries of the service's and the baseline's CPU profiles. */
  profile: { service: ProfileSummary | null; baseline: ProfileSummary | null } | null;
}

export function machineInfo(): Omit<BenchReport["machine"], "loadAverageAtEnd"> {
  const cpus = os.cpus();
  return {
    node: process.version,
    platform: `${os.platform()} ${os.release()}`,
    cpus: cpus.length,
    cpuModel: cpus[0]?.model ?? "unknown",
    loadAverageAtStart: os.loadavg().map((n) => Math.round(n * 100) / 100),
  };
}

const BASELINE_STATEMENTS = "2";
const PRERENDERED_STATEMENTS = "1";

/** Everything a run prints at the end: table, seeding, body checks, statements, profiles. */
export function formatReport(report: BenchReport): string {
  const checks = report.baselineBodies.map(
    (c) => `${c.route} ${c.identical ? "yes" : `NO (${c.difference})`}`,
  );
  const parts = [
    formatTable(report),
    `Seeding: ${(report.seed.seedMs / 1000).toFixed(1)} s for ${report.settings.posts.toLocaleString("en-US")} posts. ` +
      `Baseline bodies identical to the service's: ${checks.join(", ") || "not checked"}.`,
    formatStatementDetails(report),
  ];
  if (report.profile?.service) {
    parts.push(
      `Service ${formatProfileSummary(report.profile.service, { topSelf: 25, selfByArea: 15, projectInclusive: 15 })}`,
    );
  }
  if (report.profile?.baseline) {
    parts.push(
      `Baseline ${formatProfileSummary(report.profile.baseline, { topSelf: 12, selfByArea: 10, projectInclusive: 0 })}`,
    );
  }
  return parts.join("\n\n");
}

export function formatTable(report: BenchReport): string {
  const header = [
    "route",
    "req/s",
    "p50 ms",
    "p99 ms",
    "× ref",
    "ref",
    "CPU ms/req",
    "CPU × ref",
    "DB CPU",
    "+DB × ref",
    "load CPU",
    "SQL/req",
    "KB/resp",
    "hits",
    "failed",
  ];
  const rows = report.routes.map((route) => {
    const load = route.load;
    return [
      route.title,
      load ? fixed(load.rps, 0) : "—",
      load ? fixed(load.latencyMs.p50, 1) : "—",
      load ? fixed(load.latencyMs.p99, 1) : "—",
      route.ratio === null ? "—" : `${fixed(route.ratio * 100, 0)}%`,
      route.id === route.comparedWith ? "" : route.comparedWith,
      load?.cpuMsPerRequest == null ? "—" : fixed(load.cpuMsPerRequest, 2),
      cpuRatioCell(route, report.routes),
      load?.databaseCpuMsPerRequest == null ? "—" : fixed(load.databaseCpuMsPerRequest, 2),
      stackCpuRatioCell(route, report.routes),
      load?.loadGeneratorCpuMsPerRequest == null ? "—" : fixed(load.loadGeneratorCpuMsPerRequest, 2),
      route.server === "baseline"
        ? BASELINE_STATEMENTS
        : route.server === "prerendered"
          ? PRERENDERED_STATEMENTS
          : statementsCell(route.statements),
      load ? fixed(load.bytesPerResponse / 1024, 1) : "—",
      route.cacheHitRatio == null ? "" : `${fixed(route.cacheHitRatio * 100, 1)}%`,
      load ? String(load.unexpected + load.errors + load.timeouts) : route.problem ? "failed" : "—",
    ];
  });
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const line = (cells: string[]) =>
    cells
      .map((cell, i) => (i === 0 ? cell.padEnd(widths[i] ?? 0) : cell.padStart(widths[i] ?? 0)))
      .join("  ");
  const out = [line(header), widths.map((w) => "─".repeat(w)).join("  "), ...rows.map(line)];
  const problems = report.routes.filter((r) => r.problem).map((r) => `  ${r.id}: ${r.problem}`);
  if (problems.length) out.push("", "Problems:", ...problems);
  return out.join("\n");
}

/** The route's service CPU per request over its reference's (issue 18: list10 ≤ 1.5× the baseline's). */
function cpuRatioCell(route: RouteReport, routes: RouteReport[]): string {
  if (route.id === route.comparedWith) return "";
  const reference = routes.find((r) => r.id === route.comparedWith)?.load?.cpuMsPerRequest;
  const own = route.load?.cpuMsPerRequest;
  return own == null || !reference ? "—" : `${fixed(own / reference, 2)}×`;
}

/**
 * The server's and the database's CPU per request together, against its reference's: where a server
 * builds its answer matters less to a deployment than what the stack spends on it (the baseline has
 * PostgreSQL assemble the whole JSON body and format its dates; the service reads a smaller read model
 * and assembles in Node). PostgreSQL only: on the embedded store the database's CPU is the server's own.
 */
function stackCpuRatioCell(route: RouteReport, routes: RouteReport[]): string {
  if (route.id === route.comparedWith) return "";
  const stack = (load: RouteReport["load"] | undefined) =>
    load?.cpuMsPerRequest == null || load.databaseCpuMsPerRequest == null
      ? null
      : load.cpuMsPerRequest + load.databaseCpuMsPerRequest;
  const reference = stack(routes.find((r) => r.id === route.comparedWith)?.load);
  const own = stack(route.load);
  return own == null || !reference ? "—" : `${fixed(own / reference, 2)}×`;
}

function statementsCell(steps: StepStatements[] | null): string {
  if (!steps?.length) return "—";
  if (steps.length === 1) return String(steps[0]?.driver);
  return steps.map((s) => `${s.label.split(" ")[0]} ${s.driver}`).join(" + ");
}

export function formatStatementDetails(report: BenchReport): string {
  const lines: string[] = [
    "SQL statements per request (driver level; prisma = Prisma query events, raw = db.sql):",
  ];
  for (const route of report.routes) {
    for (const step of route.statements ?? []) {
      lines.push(
        `  ${step.label}: ${step.driver} (prisma ${step.prisma}, raw ${step.raw}), status ${step.status}`,
      );
      for (const sql of step.sql) lines.push(`      ${sql}`);
    }
  }
  return lines.join("\n");
}

function fixed(n: number, digits: number): string {
  return n.toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

/** bench/results/<date>-<mode>.json, numbered when that name is taken. */
export function writeReport(report: BenchReport, options: BenchOptions, resultsDir: string): string {
  let file = options.out;
  if (!file) {
    mkdirSync(resultsDir, { recursive: true });
    const stem = `${report.createdAt.slice(0, 10)}-${report.mode}`;
    file = path.join(resultsDir, `${stem}.json`);
    for (let n = 2; existsSync(file); n++) file = path.join(resultsDir, `${stem}-${n}.json`);
  }
  writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
  return file;
}
