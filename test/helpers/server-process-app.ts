// TEST_SERVER=process: the TestApp of a REST contract file is the built server started as `npm start`
// starts it (scripts/start-server.mjs, NODE_ENV=production), one process per file, instead of the app
// in-process. Its store is the one this run names: a fresh data folder (embedded PGlite in its worker,
// behind its socket, as users run it) or, with DATABASE_URL, a fresh PostgreSQL schema, plus REDIS_URL.
// The first workspace is made by the CLI before the start (which makes the data folder or migrates the
// schema, as a newcomer's `workspace create` does); later ones by the CLI too, through the running server.
//
// 5xx answers fail the test as in-process (server-errors.ts): every request line of the process's log
// with a 5xx status, every line logged at "error" or above, and an exit before close() are recorded; the
// log is drained (a marker request's line awaited) before each check.
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { randomBytes, randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { loadConfig } from "../../src/config.ts";
import { freePort } from "./free-port.ts";
import { requestJson } from "./http-request.ts";
import { recordServerError, registerServerErrorSource } from "./server-errors.ts";
import type { StartTestAppOptions, TestApp, TestWorkspace } from "./test-app.ts";
import { dropTestSchema } from "./test-database.ts";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
/** What `npm start` and `npx content-gateway` run, without npm. */
const START_SCRIPT = path.join(ROOT, "scripts/start-server.mjs");
const CLI = path.join(ROOT, "bin/content-gateway.mjs");
const run = promisify(execFile);

/** What a server process cannot offer: the in-process members and the options that reach into the app. */
const IN_PROCESS_ONLY_MEMBERS = ["express", "db", "mediaStorage", "changes", "graphql"] as const;
const IN_PROCESS_ONLY_OPTIONS = ["onQuery", "rateLimiter", "database"] as const;

export function isProcessMode(): boolean {
  return process.env.TEST_SERVER === "process";
}

/** The run of a CLI command: its exit code and output. */
export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** A server process as a TestApp, plus what only a process has (for benches that watch it). */
export interface ServerProcessApp extends TestApp {
  /** Its process id: /proc/<pid>/status holds its memory, the embedded database's thread included. */
  pid: number;
  /** Whether it is still running. */
  running(): boolean;
  /** The last lines it logged. */
  tail(): string;
  /** The CLI with this server's settings and data folder (so, on the embedded store, run by the server). */
  cli(args: string[], options?: { timeoutMs?: number }): Promise<CliRun>;
}

export async function startServerProcessApp(options: StartTestAppOptions = {}): Promise<ServerProcessApp> {
  for (const option of IN_PROCESS_ONLY_OPTIONS)
    if (options[option] !== undefined)
      throw new Error(
        `startTestApp({ ${option} }) needs the in-process app; this file cannot run with TEST_SERVER=process`,
      );
  const dataDir = mkdtempSync(path.join(tmpdir(), "content-process-"));
  const schema = process.env.DATABASE_URL ? `test_${randomBytes(6).toString("hex")}` : undefined;
  const port = options.port ?? (await freePort());
  const url = `http://127.0.0.1:${port}`;
  const env: Record<string, string> = {
    ...inheritedEnv(),
    DATA_DIR: dataDir,
    // On PostgreSQL the instances of a deployment share a preview secret, which an operator sets
    // (the embedded store makes its own in DATA_DIR).
    ...(schema ? { DATABASE_SCHEMA: schema, PREVIEW_SECRET: randomBytes(32).toString("base64url") } : {}),
    NODE_ENV: "production",
    PORT: String(port),
    HOST: "127.0.0.1",
    PUBLIC_URL: url,
    LOG_LEVEL: "info",
    LOG_FORMAT: "json",
    RATE_LIMIT_AUTHENTICATED: "1000000",
    RATE_LIMIT_UNAUTHENTICATED: "1000000",
    // Its own counters in the shared Redis: files run in parallel, every client is 127.0.0.1.
    RATE_LIMIT_REDIS_PREFIX: `test:${randomBytes(6).toString("hex")}:ratelimit:`,
    // The in-process app runs no background work unless asked; a server process sends no webhooks
    // unless asked either (a test's endpoints name hosts no test may reach).
    ...(options.background ? {} : { WEBHOOK_DISPATCH: "false" }),
    ...options.env,
  };
  const config = loadConfig(env);
  const runCli = async (args: string[], { timeoutMs = 60_000 } = {}): Promise<CliRun> => {
    try {
      const { stdout, stderr } = await run(process.execPath, [CLI, ...args], {
        cwd: ROOT,
        env,
        timeout: timeoutMs,
        maxBuffer: 64 * 1024 * 1024,
      });
      return { code: 0, stdout, stderr };
    } catch (error) {
      const failed = error as { code?: unknown; stdout?: string; stderr?: string; message: string };
      if (typeof failed.code !== "number") throw error;
      return { code: failed.code, stdout: failed.stdout ?? "", stderr: failed.stderr ?? failed.message };
    }
  };
  const cli = async (...args: string[]) => {
    const { code, stdout, stderr } = await runCli(args);
    if (code !== 0) throw new Error(`content-gateway ${args.join(" ")} exited with ${code}: ${stderr}`);
    return JSON.parse(stdout) as {
      workspace: { id: string; slug: string };
      publicKey: string;
      privateKey: string;
    };
  };
  const asTestWorkspace = (created: Awaited<ReturnType<typeof cli>>): TestWorkspace => ({
    id: created.workspace.id,
    slug: created.workspace.slug,
    publicKey: created.publicKey,
    privateKey: created.privateKey,
  });
  // Made before the start: the data folder (or schema) is the CLI's, and the server finds a workspace,
  // so it makes no "default" one (as the in-process app, whose database starts empty).
  let firstWorkspace: TestWorkspace | undefined = asTestWorkspace(
    await cli("workspace", "create", "Test workspace"),
  );

  const server = startProcess(env, url);
  try {
    await server.ready;
  } catch (error) {
    server.child.kill("SIGKILL");
    throw new Error(`${(error as Error).message}\n--- its log ---\n${server.tail()}`);
  }
  const unregister = registerServerErrorSource(() => server.drain());

  return {
    config,
    url,
    pid: server.child.pid ?? -1,
    running: () => server.child.exitCode === null && server.child.signalCode === null,
    tail: server.tail,
    cli: runCli,
    get express(): never {
      return inProcessOnly("express");
    },
    get db(): never {
      return inProcessOnly("db");
    },
    get mediaStorage(): never {
      return inProcessOnly("mediaStorage");
    },
    get changes(): never {
      return inProcessOnly("changes");
    },
    graphql: () => inProcessOnly("graphql"),
    async workspace(name = "Test workspace") {
      // The file's first workspace is the one made before the start (under the default name only).
      if (firstWorkspace && name === "Test workspace") {
        const first = firstWorkspace;
        firstWorkspace = undefined;
        return first;
      }
      return asTestWorkspace(await cli("workspace", "create", name));
    },
    async request(method, requestPath, opts = {}) {
      const res = await requestJson(url, method, requestPath, opts);
      // A GraphQL answer whose error is masked as unexpected is a server error with a 200.
      if (
        res.body?.errors?.some?.(
          (error: { extensions?: { code?: unknown } } | null) =>
            error?.extensions?.code === "INTERNAL_SERVER_ERROR",
        )
      )
        recordServerError({
          status: res.status,
          request: `${method} ${requestPath} (INTERNAL_SERVER_ERROR)`,
        });
      return res;
    },
    async close() {
      await server.stop();
      unregister();
      rmSync(dataDir, { recursive: true, force: true });
      if (schema) await dropTestSchema(schema);
    },
  };
}

/** The environment of this test run that a server may read (its store, Redis), and nothing of vitest's. */
function inheritedEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env))
    if (
      value !== undefined &&
      !name.startsWith("VITEST") &&
      name !== "TEST_SERVER" &&
      name !== "NODE_OPTIONS"
    )
      env[name] = value;
  return env;
}

function inProcessOnly(member: (typeof IN_PROCESS_ONLY_MEMBERS)[number]): never {
  throw new Error(
    `TestApp.${member} is the in-process app's; a file that uses it cannot run with TEST_SERVER=process ` +
      "(remove it from scripts/test-server-process.mjs's list)",
  );
}

interface RunningServer {
  child: ChildProcess;
  ready: Promise<void>;
  /** Resolves once the log holds the line of a request sent now, so of every request answered before. */
  drain(): Promise<void>;
  stop(): Promise<void>;
  /** The last lines of its output, for a failure's message. */
  tail(): string;
}

function startProcess(env: Record<string, string>, url: string): RunningServer {
  const child = spawn(process.execPath, [START_SCRIPT], {
    cwd: ROOT,
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  const lines: string[] = [];
  const waiting = new Map<string, () => void>();
  let stopping = false;
  const onLine = (line: string) => {
    lines.push(line);
    if (lines.length > 200) lines.shift();
    let entry: Record<string, unknown>;
    try {
      entry = JSON.parse(line) as Record<string, unknown>;
    } catch {
      return;
    }
    if (entry.msg === "request" && typeof entry.status === "number" && entry.status >= 500)
      recordServerError({ status: entry.status, request: `${entry.method} ${entry.path} (server process)` });
    // An error logged while serving a request (it names the request's path, route or GraphQL path) is
    // a server error even when the answer hid it; background work's errors (a pruning round that met a
    // busy pool) are printed, not failed on.
    if (entry.level === "fatal" || (entry.level === "error" && ("path" in entry || "route" in entry)))
      recordServerError({ status: 500, request: `the server process logged: ${line.slice(0, 600)}` });
    else if (entry.level === "error")
      process.stderr.write(`server process (not a request's): ${line.slice(0, 600)}\n`);
    if (typeof entry.id === "string") waiting.get(entry.id)?.();
  };
  createInterface({ input: child.stdout as NodeJS.ReadableStream }).on("line", onLine);
  createInterface({ input: child.stderr as NodeJS.ReadableStream }).on("line", onLine);
  const exited = new Promise<void>((resolve) =>
    child.once("exit", (code, signal) => {
      if (!stopping)
        recordServerError({
          status: 500,
          request: `the server process exited (${code ?? signal}) before close()`,
        });
      for (const release of waiting.values()) release();
      resolve();
    }),
  );
  const ready = (async () => {
    const deadline = Date.now() + 90_000;
    while (Date.now() < deadline) {
      if (child.exitCode !== null) throw new Error(`the server process exited with ${child.exitCode}`);
      if (
        await fetch(`${url}/ready`).then(
          (res) => res.ok,
          () => false,
        )
      )
        return;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error(`the server process on ${url} was not ready in 90 s`);
  })();
  return {
    child,
    ready,
    tail: () => lines.slice(-40).join("\n"),
    async drain() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const id = `drain-${randomUUID()}`;
      const logged = new Promise<void>((resolve) => waiting.set(id, resolve));
      await fetch(`${url}/status`, { headers: { "x-request-id": id } }).catch(() => {});
      const timeout = new Promise<"late">((resolve) => setTimeout(() => resolve("late"), 30_000).unref());
      if ((await Promise.race([logged, timeout])) === "late")
        recordServerError({
          status: 500,
          request: `the server process did not log the request ${id} in 30 s`,
        });
      waiting.delete(id);
    },
    async stop() {
      stopping = true;
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
      await exited;
    },
  };
}
