// A command run in this process on the configured database (not through a running server): what the CLI's
// main thread does for most commands, and its worker thread for export and import (command-worker.ts).
// The database and Prisma load here, lazily: a command run through the server never loads them.
import { loadConfig } from "../config.ts";
import type { Database } from "../db/database.ts";
import type { ProgressReporter } from "../transfer/progress.ts";
import type { CliCommand } from "./command.ts";
import type { RunOptions } from "./commands.ts";

/**
 * The embedded store's PostgreSQL (PGlite) allocates the data folder's 128 MB of shared buffers in its
 * WebAssembly memory and touches them at start, so all of it is resident whatever the database's size
 * (`workspace list`: 394 MB peak, 283 MB with 16 MB of buffers). A command runs alone, and the
 * operating system's page cache stands behind the buffers. Ignored on a PostgreSQL server.
 */
const COMMAND_SHARED_BUFFERS = "16MB";

export async function runLocally(
  command: CliCommand,
  progress?: ProgressReporter,
  options: RunOptions = {},
): Promise<unknown> {
  const { runCommand } = await import("./commands.ts");
  // The migrate command applies migrations itself (and reports them); every other command needs them applied.
  return withCommandDatabase({ migrate: command.command !== "migrate" }, (db) =>
    runCommand(db, command, progress, options),
  );
}

/** Refreshes the planner statistics of the tables left stale (after an import that deferred them). */
export async function analyzeLocally(): Promise<{ analysed: string[] }> {
  const { analyzeStaleTables } = await import("../db/planner-statistics.ts");
  return withCommandDatabase({ migrate: false }, async (db) => ({
    analysed: (await analyzeStaleTables(db)).map(({ table }) => table),
  }));
}

/** The configured database, opened as a command opens it (COMMAND_SHARED_BUFFERS), for `use`, then closed. */
async function withCommandDatabase<T>(
  { migrate }: { migrate: boolean },
  use: (db: Database) => Promise<T>,
): Promise<T> {
  const { openDatabase } = await import("../db/database.ts");
  const db = await openDatabase(loadConfig().database, {
    migrate,
    embeddedSharedBuffers: COMMAND_SHARED_BUFFERS,
  });
  try {
    return await use(db);
  } finally {
    await db.close();
  }
}
