// A command run in this process on the configured database (not through a running server): what the CLI's
// main thread does for most commands, and its worker thread for export and import (command-worker.ts).
// The database and Prisma load here, lazily: a command run through the server never loads them.
import { loadConfig } from "../config.ts";
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
  const config = loadConfig();
  const [{ openDatabase }, { runCommand }] = await Promise.all([
    import("../db/database.ts"),
    import("./commands.ts"),
  ]);
  // The migrate command applies migrations itself (and reports them); every other command needs them applied.
  const db = await openDatabase(config.database, {
    migrate: command.command !== "migrate",
    embeddedSharedBuffers: COMMAND_SHARED_BUFFERS,
  });
  try {
    return await runCommand(db, command, progress, options);
  } finally {
    await db.close();
  }
}

/** Refreshes the planner statistics of the tables left stale (after an import that deferred them). */
export async function analyzeLocally(): Promise<{ analysed: string[] }> {
  const config = loadConfig();
  const [{ openDatabase }, { analyzeStaleTables }] = await Promise.all([
    import("../db/database.ts"),
    import("../db/planner-statistics.ts"),
  ]);
  const db = await openDatabase(config.database, { embeddedSharedBuffers: COMMAND_SHARED_BUFFERS });
  try {
    return { analysed: (await analyzeStaleTables(db)).map(({ table }) => table) };
  } finally {
    await db.close();
  }
}
