// An import killed with SIGKILL part-way (no handler runs, no cleanup: a crash, an OOM kill, a pulled
// plug), then the same command again: the workspace equals one that was imported without interruption —
// no record twice, none missing, none half written. The CLI runs as users run it, a separate process,
// against this run's store (a temp embedded data folder, or a PostgreSQL schema in CI's run).
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config.ts";
import { openDatabase } from "../../src/db/database.ts";
import { startTestApp } from "../helpers/test-app.ts";
import { dropTestSchema, storageMode } from "../helpers/test-database.ts";
import { apiSnapshot, comparable } from "./helpers/api-snapshot.ts";

const run = promisify(execFile);
const POSTS = 240;
const BATCH = 8;
const TIMEOUT_MS = 240_000;

const folder = mkdtempSync(path.join(tmpdir(), "crash-resume-"));
const dataDir = path.join(folder, "data");
const content = path.join(folder, "content");
const schema = `test_crash_${randomBytes(4).toString("hex")}`;
const env: NodeJS.ProcessEnv = {
  ...process.env,
  DATA_DIR: dataDir,
  LOG_LEVEL: "silent",
  ...(process.env.DATABASE_URL ? { DATABASE_SCHEMA: schema } : {}),
};
const importArgs = (workspace: string) => [
  "bin/content-gateway.mjs",
  "import",
  content,
  "--from",
  "markdown",
  "--workspace",
  workspace,
  "--batch-size",
  String(BATCH),
];

async function cli(...args: string[]): Promise<{ stdout: string }> {
  return run(process.execPath, ["bin/content-gateway.mjs", ...args], { env, maxBuffer: 16 << 20 });
}

/** Starts the import and SIGKILLs it once `batches` progress lines (committed batches) were printed. */
async function importKilledAfter(workspace: string, batches: number): Promise<number> {
  const child: ChildProcess = spawn(process.execPath, importArgs(workspace), { env, stdio: "pipe" });
  let lines = 0;
  let stderr = "";
  const exited = new Promise<NodeJS.Signals | number | null>((resolve) =>
    child.once("exit", (code, signal) => resolve(signal ?? code)),
  );
  child.stderr?.setEncoding("utf8").on("data", (text: string) => {
    stderr += text;
    lines += (text.match(/ records \(post\)\n/g) ?? []).length;
    if (lines >= batches) child.kill("SIGKILL");
  });
  const ended = await exited;
  expect(ended, `the import ended before it was killed: ${stderr}`).toBe("SIGKILL");
  return lines;
}

function writeMarkdownFolder(): void {
  mkdirSync(content, { recursive: true });
  for (let i = 0; i < POSTS; i++) {
    const day = String(1 + (i % 28)).padStart(2, "0");
    writeFileSync(
      path.join(content, `post-${String(i).padStart(4, "0")}.md`),
      [
        "---",
        `title: "Post number ${i}"`,
        `date: 2024-03-${day}T10:00:00Z`,
        `tags: [topic-${i % 7}, topic-${(i + 3) % 7}]`,
        `categories: [section-${i % 3}]`,
        `author: writer-${i % 4}`,
        `draft: ${i % 10 === 0}`,
        "---",
        "",
        `# Heading ${i}`,
        "",
        `Body of post ${i}, with *emphasis* and a [link](https://blog.invalid/${i}).`,
        "",
      ].join("\n"),
    );
  }
}

describe(`an import killed with SIGKILL and run again (${storageMode})`, () => {
  const workspaces: Record<"killed" | "whole", { slug: string; privateKey: string }> = {} as never;

  beforeAll(async () => {
    writeMarkdownFolder();
    for (const name of ["killed", "whole"] as const) {
      const { stdout } = await cli("workspace", "create", `Crash ${name}`);
      const created = JSON.parse(stdout);
      workspaces[name] = { slug: created.workspace.slug, privateKey: created.privateKey };
    }
  }, TIMEOUT_MS);

  afterAll(async () => {
    rmSync(folder, { recursive: true, force: true });
    await dropTestSchema(schema);
  });

  it(
    "the second run finishes what the first committed, and the result equals an uninterrupted import",
    async () => {
      const batchesBeforeKill = await importKilledAfter(workspaces.killed.slug, 3);
      expect(batchesBeforeKill).toBeGreaterThanOrEqual(3);

      const resumed = JSON.parse((await cli(...importArgs(workspaces.killed.slug).slice(1))).stdout);
      // What the killed run committed is passed over, not written again; the rest is created.
      expect(resumed.byKind.post.skipped).toBeGreaterThan(0);
      expect(resumed.byKind.post.created).toBeGreaterThan(0);
      expect(resumed.byKind.post.skipped + resumed.byKind.post.created).toBe(POSTS);
      expect(resumed.totals).toMatchObject({ conflict: 0, failed: 0 });

      const whole = JSON.parse((await cli(...importArgs(workspaces.whole.slug).slice(1))).stdout);
      expect(whole.byKind.post.created).toBe(POSTS);

      const config = loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: "silent", ...pick(env) });
      const app = await startTestApp({ database: () => openDatabase(config.database) });
      try {
        const killed = await apiSnapshot(app, workspaces.killed.privateKey);
        const uninterrupted = await apiSnapshot(app, workspaces.whole.privateKey);
        expect(killed).toEqual(uninterrupted);
        // The snapshot reads the first 100 posts one by one; every page of the list is compared too.
        for (let page = 1; page <= Math.ceil(POSTS / 100); page++) {
          const list = (key: string) =>
            app
              .request("GET", `/v1/posts?status=all&limit=100&page=${page}`, { key })
              .then((res) => res.body);
          const [mine, theirs] = [
            await list(workspaces.killed.privateKey),
            await list(workspaces.whole.privateKey),
          ];
          expect(mine.pagination.totalItems).toBe(POSTS);
          expect(comparable(mine)).toEqual(comparable(theirs));
        }
      } finally {
        await app.close();
      }
    },
    TIMEOUT_MS,
  );
});

/** The database settings of this run, as the CLI processes read them. */
function pick(source: NodeJS.ProcessEnv): Record<string, string> {
  const names = ["DATABASE_URL", "DATABASE_SCHEMA"];
  return Object.fromEntries(names.flatMap((name) => (source[name] ? [[name, source[name] as string]] : [])));
}
