// The servers under test run as child processes of the bench, so the load generator never shares
// their event loop: the service (`node --import tsx src/server.ts`, i.e. `tsx src/server.ts` without
// tsx's extra watcher process) and the baseline (`bench/baseline-server.ts`).
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { appendFileSync, readdirSync, readFileSync } from "node:fs";
import { createServer } from "node:net";
import { fileURLToPath } from "node:url";

export const PROJECT_ROOT = fileURLToPath(new URL("..", import.meta.url));

export interface ChildServer {
  name: string;
  url: string;
  pid: number;
  /** Milliseconds from spawn to the first successful ready check (start-up, migrations). */
  startupMs: number;
  /** Last lines the process wrote (warnings, errors). */
  stderrTail(): string;
  /** Lines logged at level "error" so far. */
  errorLines(): number;
  /** CPU time (user + system, all threads) the process has used so far, in ms; null where /proc is missing. */
  cpuMs(): number | null;
  /** The system (kernel) part of cpuMs: socket reads and writes, wake-ups. */
  systemCpuMs(): number | null;
  /** CPU time (user + system) per thread: `main`, else the thread's name, summed over threads of a name. */
  threadCpuMs(): Map<string, number>;
  /**
   * Waits a moment for requests the load generator abandoned at the end of its run (the server keeps
   * working on them after their sockets close), then SIGTERM and a clean exit (the service drains,
   * closes the database, writes its CPU profile).
   */
  stop(): Promise<void>;
}

export interface StartOptions {
  name: string;
  script: string;
  env: Record<string, string>;
  /** Extra node flags before `--import tsx`, e.g. `--cpu-prof`. */
  nodeArgs?: string[];
  readyPath?: string;
  readyTimeoutMs?: number;
  /** The checkout to run `script` from; default this one (`npm run bench:checkouts` compares others). */
  cwd?: string;
  /**
   * Another Node binary, running `script` as plain JavaScript (no tsx): a peer that needs a newer Node
   * than the bench's (PostGraphile 5: Node 22 or later).
   */
  nodeBinary?: string;
  /** Also append everything the process writes to this file (e.g. the output of `--trace-gc`). */
  outputFile?: string;
}

/** Variables the bench decides itself; inherited values would point the children elsewhere. */
const CONTROLLED = [
  "DATABASE_URL",
  "DATABASE_SCHEMA",
  "DATA_DIR",
  "REDIS_URL",
  "PORT",
  "HOST",
  "ADMIN_TOKEN",
];

export async function startServer(options: StartOptions): Promise<ChildServer> {
  const port = await freePort();
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of CONTROLLED) delete env[name];
  Object.assign(env, options.env, { PORT: String(port), HOST: "127.0.0.1" });

  const spawnedAt = performance.now();
  const loader = options.nodeBinary ? [] : ["--import", "tsx"];
  const child = spawn(
    options.nodeBinary ?? process.execPath,
    [...(options.nodeArgs ?? []), ...loader, options.script],
    {
      cwd: options.cwd ?? PROJECT_ROOT,
      env,
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  let tail = "";
  let errors = 0;
  const keep = (chunk: Buffer) => {
    const text = chunk.toString("utf8");
    errors += text.split('"level":"error"').length - 1;
    tail = (tail + text).slice(-8_000);
    if (options.outputFile) appendFileSync(options.outputFile, chunk);
  };
  child.stdout?.on("data", keep);
  child.stderr?.on("data", keep);
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));

  const url = `http://127.0.0.1:${port}`;
  const server: ChildServer = {
    name: options.name,
    url,
    pid: child.pid ?? -1,
    startupMs: 0,
    stderrTail: () => tail,
    errorLines: () => errors,
    cpuMs: () => {
      const times = processTimesMs(child.pid);
      return times && times.user + times.system;
    },
    systemCpuMs: () => processTimesMs(child.pid)?.system ?? null,
    threadCpuMs: () => threadTimesMs(child.pid),
    stop: () => stopChild(child, exited),
  };
  try {
    await waitUntilReady(`${url}${options.readyPath ?? "/ready"}`, exited, options.readyTimeoutMs ?? 120_000);
    server.startupMs = performance.now() - spawnedAt;
  } catch (error) {
    await server.stop();
    throw new Error(
      `${options.name} did not become ready: ${(error as Error).message}\n--- output ---\n${tail}`,
    );
  }
  return server;
}

async function waitUntilReady(url: string, exited: Promise<number | null>, timeoutMs: number): Promise<void> {
  let exitCode: number | null | undefined;
  void exited.then((code) => {
    exitCode = code;
  });
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (exitCode !== undefined) throw new Error(`process exited with code ${exitCode}`);
    try {
      const response = await fetch(url);
      await response.arrayBuffer();
      if (response.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`no 200 from ${url} within ${timeoutMs} ms`);
}

async function stopChild(child: ChildProcess, exited: Promise<number | null>): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  await new Promise((resolve) => setTimeout(resolve, 1_500));
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), 30_000);
  await exited;
  clearTimeout(timer);
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address();
      const port = typeof address === "object" && address ? address.port : 0;
      probe.close(() => resolve(port));
    });
  });
}

let clockTicks: number | undefined;

/** The CPU times of /proc/<pid>/stat (Linux), in milliseconds; null where it cannot be read. */
function processTimesMs(pid: number | undefined): ReturnType<typeof statTimesMs> | null {
  if (pid === undefined) return null;
  try {
    return statTimesMs(readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return null;
  }
}

/**
 * CPU time per thread name of a process (/proc/<pid>/task/<tid>/stat, Linux): which of the main thread,
 * V8's helper threads (concurrent marking, parallel scavenges, compilers) and libuv's pool spent it.
 * Threads that have exited are not counted; empty where /proc cannot be read.
 */
function threadTimesMs(pid: number | undefined): Map<string, number> {
  const byName = new Map<string, number>();
  if (pid === undefined) return byName;
  let tasks: string[];
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    return byName;
  }
  for (const task of tasks) {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${task}/stat`, "utf8");
      const name = task === String(pid) ? "main" : stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
      byName.set(name, (byName.get(name) ?? 0) + statCpuMs(stat));
    } catch {
      // the thread ended while we looked
    }
  }
  return byName;
}

/** utime + stime (and, with `reapedChildren`, cutime + cstime: its children that have exited). */
function statCpuMs(stat: string, reapedChildren = false): number {
  const times = statTimesMs(stat);
  return times.user + times.system + (reapedChildren ? times.reapedChildren : 0);
}

/** The CPU times of a /proc/<pid>/stat line, converted from clock ticks to milliseconds. */
function statTimesMs(stat: string): { user: number; system: number; reapedChildren: number } {
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  clockTicks ??= Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100;
  const ms = (index: number) => (Number(fields[index]) * 1000) / (clockTicks as number);
  return { user: ms(11), system: ms(12), reapedChildren: ms(13) + ms(14) };
}

/**
 * CPU time of every `postgres` process on this machine (server, backends, background workers), in ms:
 * what the database spends, when it runs here. A backend that exits (a pool closing an idle connection:
 * routes measured in turns leave a server idle for a while) leaves the live processes, but its time
 * is added to its parent's children time once reaped, so each process's own and reaped children's time
 * is counted and the total never goes back. Null when no PostgreSQL process is visible (a remote
 * server, or no /proc).
 */
export function postgresCpuMs(): number | null {
  let total = 0;
  let found = false;
  const walked = eachProcessStat((_pid, stat) => {
    if (!stat.includes("(postgres)")) return;
    total += statCpuMs(stat, true);
    found = true;
  });
  return walked && found ? total : null;
}

/**
 * CPU time of one PostgreSQL server, in ms: its postmaster and every child of it (backends, the WAL
 * sender, background workers), each one's own and reaped children's time, as `postgresCpuMs` counts
 * them. Tells apart servers on one machine (a primary and its replica). Null when the postmaster is gone.
 */
export function postmasterCpuMs(postmasterPid: number): number | null {
  let total = 0;
  let found = false;
  const walked = eachProcessStat((pid, stat) => {
    const parent = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
    if (pid !== postmasterPid && parent !== postmasterPid) return;
    total += statCpuMs(stat, true);
    if (pid === postmasterPid) found = true;
  });
  return walked && found ? total : null;
}

/** Calls `visit` with every live process's /proc/<pid>/stat line; false where /proc cannot be read. */
function eachProcessStat(visit: (pid: number, stat: string) => void): boolean {
  let entries: string[];
  try {
    entries = readdirSync("/proc");
  } catch {
    return false;
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, "utf8");
    } catch {
      continue; // the process ended while we looked
    }
    visit(Number(entry), stat);
  }
  return true;
}

/** CPU time of this process (the load generator runs here), in ms. */
export function ownCpuMs(): number {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1000;
}
