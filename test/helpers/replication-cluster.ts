// A PostgreSQL 15 primary and one streaming replica of it, each in a temporary folder on a free loopback
// port, made with this machine's programs (initdb, pg_basebackup -R, pg_ctl): real replication for the
// read-replica tests, no mocks. initdb refuses to run as root, so when the tests run as root the
// programs run as the `postgres` user, in folders it owns. Everything is stopped and removed by
// `close()`, and by a process exit hook if a test run dies before its afterAll.
import { execFile, execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import pg from "pg";
import { freePort } from "./free-port.ts";

const BIN = "/usr/lib/postgresql/15/bin";
const run = promisify(execFile);

export interface ReplicationCluster {
  primaryUrl: string;
  replicaUrl: string;
  /** Stops applying WAL on the replica (it still receives it): its answers stay where they are. */
  pauseReplay(): Promise<void>;
  resumeReplay(): Promise<void>;
  /** The replica's `pg_last_wal_replay_lsn()`; null once it is stopped. */
  replayLsn(): Promise<string | null>;
  /** The primary's `pg_current_wal_insert_lsn()`: past every commit made so far. */
  primaryLsn(): Promise<string>;
  /** Waits until the replica has replayed everything the primary had written when asked. */
  waitForReplay(timeoutMs?: number): Promise<void>;
  /** Stops the replica as a crash would (`pg_ctl stop -m immediate`). */
  stopReplica(): Promise<void>;
  /**
   * Each server's postmaster process id (its data folder's postmaster.pid): the process whose children
   * are that server's backends, so a bench can tell the primary's CPU from the replica's.
   */
  postmasterPids(): { primary: number; replica: number };
  close(): Promise<void>;
}

/** PostgreSQL's text form of an LSN (`16/B374D848`): two hex halves. */
export function lsnToBigInt(lsn: string): bigint {
  const [high, low] = lsn.split("/");
  return (BigInt(`0x${high}`) << 32n) + BigInt(`0x${low}`);
}

const asRoot = process.getuid?.() === 0;

/** Runs one PostgreSQL program, as `postgres` when this process is root (paths are mkdtemp's: no quoting needed). */
async function pgProgram(program: string, args: string[]): Promise<void> {
  const command = [join(BIN, program), ...args];
  if (asRoot) await run("su", ["postgres", "-s", "/bin/bash", "-c", command.join(" ")]);
  else await run(command[0] as string, command.slice(1));
}

function pgProgramSync(program: string, args: string[]): void {
  const command = [join(BIN, program), ...args];
  try {
    if (asRoot)
      execFileSync("su", ["postgres", "-s", "/bin/bash", "-c", command.join(" ")], { stdio: "ignore" });
    else execFileSync(command[0] as string, command.slice(1), { stdio: "ignore" });
  } catch {
    // Already stopped.
  }
}

/** Settings for a throwaway test server: quick, not durable, loopback only; `extra` lines override them. */
function serverSettings(port: number, socketDir: string, extra: string[]): string {
  return [
    "listen_addresses = '127.0.0.1'",
    `port = ${port}`,
    `unix_socket_directories = '${socketDir}'`,
    "fsync = off",
    "full_page_writes = off",
    "shared_buffers = 16MB",
    "max_connections = 40",
    "hot_standby = on",
    // Replies often, so the primary's view of the replica is close to the truth.
    "wal_receiver_status_interval = 1s",
    // A replica read is never cancelled because the primary vacuumed rows it still needs.
    "hot_standby_feedback = on",
    "logging_collector = off",
    ...extra,
  ].join("\n");
}

export interface ClusterOptions {
  /**
   * postgresql.conf lines for both servers after the defaults above, e.g. `shared_buffers = 128MB` for a
   * bench whose data should fit in memory as on a real server.
   */
  settings?: string[];
}

export async function startReplicationCluster(options: ClusterOptions = {}): Promise<ReplicationCluster> {
  const root = mkdtempSync(join(tmpdir(), "pg-replication-"));
  if (asRoot) execFileSync("chown", ["postgres:postgres", root]);
  const primaryDir = join(root, "primary");
  const replicaDir = join(root, "replica");
  const [primaryPort, replicaPort] = [await freePort(), await freePort()];
  let replicaStopped = false;
  const stopAllSync = () => {
    pgProgramSync("pg_ctl", ["stop", "-D", replicaDir, "-m", "immediate"]);
    pgProgramSync("pg_ctl", ["stop", "-D", primaryDir, "-m", "immediate"]);
    rmSync(root, { recursive: true, force: true });
  };
  // A run that dies before its afterAll leaves no server behind.
  process.once("exit", stopAllSync);
  // The data folders' postgresql.auto.conf exist (initdb, pg_basebackup -R made them, owned by
  // postgres); appended to, they keep their owner.
  const startServer = async (dir: string, port: number) => {
    writeFileSync(
      join(dir, "postgresql.auto.conf"),
      `${serverSettings(port, root, options.settings ?? [])}\n`,
      { flag: "a" },
    );
    await pgProgram("pg_ctl", ["start", "-w", "-t", "30", "-D", dir, "-l", join(root, `${port}.log`)]);
  };

  try {
    // Trust on loopback (the default hba lines include replication connections).
    await pgProgram("initdb", ["-D", primaryDir, "-U", "postgres", "--auth=trust", "-N", "-E", "UTF8"]);
    await startServer(primaryDir, primaryPort);
    await pgProgram("pg_basebackup", [
      ...["-h", "127.0.0.1", "-p", String(primaryPort), "-U", "postgres"],
      ...["-D", replicaDir, "-R", "-X", "stream", "-c", "fast", "--no-sync"],
    ]);
    // The backup copied the primary's settings, port included: the replica's own come after them.
    await startServer(replicaDir, replicaPort);
  } catch (error) {
    process.off("exit", stopAllSync);
    stopAllSync();
    throw error;
  }

  const primaryUrl = `postgresql://postgres@127.0.0.1:${primaryPort}/postgres`;
  const replicaUrl = `postgresql://postgres@127.0.0.1:${replicaPort}/postgres`;
  const one = async <T>(url: string, sql: string): Promise<T> => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const { rows } = await client.query(sql);
      return (rows[0] as { value: T }).value;
    } finally {
      await client.end();
    }
  };
  const cluster: ReplicationCluster = {
    primaryUrl,
    replicaUrl,
    pauseReplay: () => one(replicaUrl, "SELECT pg_wal_replay_pause()::text AS value"),
    resumeReplay: () => one(replicaUrl, "SELECT pg_wal_replay_resume()::text AS value"),
    replayLsn: async () =>
      replicaStopped
        ? null
        : one<string | null>(replicaUrl, "SELECT pg_last_wal_replay_lsn()::text AS value"),
    primaryLsn: () => one<string>(primaryUrl, "SELECT pg_current_wal_insert_lsn()::text AS value"),
    async waitForReplay(timeoutMs = 10_000) {
      const target = lsnToBigInt(await cluster.primaryLsn());
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const replayed = await cluster.replayLsn();
        if (replayed && lsnToBigInt(replayed) >= target) return;
        if (Date.now() > deadline) throw new Error(`the replica did not replay ${target} in ${timeoutMs} ms`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    },
    async stopReplica() {
      replicaStopped = true;
      await pgProgram("pg_ctl", ["stop", "-D", replicaDir, "-m", "immediate"]);
    },
    postmasterPids: () => ({ primary: postmasterPid(primaryDir), replica: postmasterPid(replicaDir) }),
    async close() {
      process.off("exit", stopAllSync);
      stopAllSync();
    },
  };
  return cluster;
}

/** The first line of a running server's postmaster.pid is its postmaster's process id. */
function postmasterPid(dataDir: string): number {
  return Number(readFileSync(join(dataDir, "postmaster.pid"), "utf8").split("\n")[0]);
}
