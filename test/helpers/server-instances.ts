// Real service processes (`src/server.ts`) on one PostgreSQL schema, for tests of what several instances
// behind a load balancer do together. The embedded database belongs to one process, so these tests run
// in the PostgreSQL mode of the suite. The schema is dropped when the instances are stopped.
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import { freePort } from "./free-port.ts";

export const ADMIN_TOKEN = "admin-token-for-instance-tests";

export interface Instance {
  url: string;
  process: ChildProcess;
}

export interface InstanceGroup {
  /** The instances' DATA_DIR (the embedded database's folder when DATABASE_URL is unset). */
  dataDir: string;
  start(env?: Record<string, string>): Promise<Instance>;
  /** SIGTERMs the instances still running, then drops the schema. */
  stop(): Promise<void>;
}

export function instanceGroup(prefix: string): InstanceGroup {
  const schema = `test_${randomBytes(6).toString("hex")}`;
  const dataDir = mkdtempSync(path.join(tmpdir(), `content-${prefix}-`));
  const children: ChildProcess[] = [];
  return {
    dataDir,
    async start(env = {}) {
      // A port free right now (a random one could be another test's listener).
      const port = await freePort();
      const child = spawn(process.execPath, ["--import", "tsx", "src/server.ts"], {
        env: {
          ...process.env,
          DATABASE_SCHEMA: schema,
          DATA_DIR: dataDir,
          PORT: String(port),
          HOST: "127.0.0.1",
          ADMIN_TOKEN,
          LOG_LEVEL: "silent",
          ...env,
        },
        stdio: ["ignore", "ignore", "inherit"],
      });
      children.push(child);
      const url = `http://127.0.0.1:${port}`;
      const deadline = Date.now() + 60_000;
      while (Date.now() < deadline) {
        if (child.exitCode !== null) throw new Error(`instance on ${url} exited with ${child.exitCode}`);
        const ready = await fetch(`${url}/ready`).then(
          (res) => res.ok,
          () => false,
        );
        if (ready) return { url, process: child };
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      throw new Error(`instance on ${url} did not become ready`);
    },
    async stop() {
      const running = children.filter((child) => child.exitCode === null && child.signalCode === null);
      for (const child of running) child.kill("SIGTERM");
      await Promise.all(running.map((child) => new Promise((resolve) => child.once("exit", resolve))));
      rmSync(dataDir, { recursive: true, force: true });
      if (!process.env.DATABASE_URL) return;
      const client = new pg.Client({ connectionString: process.env.DATABASE_URL });
      await client.connect();
      await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await client.end();
    },
  };
}

/** A workspace made through an instance's admin API, with its two keys. */
export async function adminWorkspace(instance: Instance, name: string) {
  const res = await fetch(`${instance.url}/admin/workspaces`, {
    method: "POST",
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" },
    body: JSON.stringify({ name }),
  });
  if (res.status !== 201) throw new Error(`creating a workspace answered ${res.status}`);
  return (await res.json()) as { workspace: { id: string }; publicKey: string; privateKey: string };
}
