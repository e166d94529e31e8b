// The command line (`npm run --silent cli -- …`, or `npx content-gateway …`): workspace and key
// management, demo content, migrations. Prints one JSON object on stdout; errors go to stderr.
// Exit codes: 0 done, 1 the command failed, 2 bad usage (program.ts).
//
// On the embedded database a running server holds the data folder: the command then runs in the
// server, over its control socket (control-socket.ts); otherwise here, on the configured database.
// Heavy modules (the database, Prisma) load only when the command runs here.
import { loadConfig } from "../config.ts";
import type { ParsedArgs } from "./commands.ts";
import { controlSocketPath, runThroughServer } from "./control-socket.ts";
import { buildProgram, CommanderError, EXIT, exitCodeOf } from "./program.ts";

/** Errors that are the user's or the situation's: their message is enough, no stack. */
const EXPECTED_ERRORS = new Set([
  "UsageError",
  "ConfigError",
  "EmbeddedDatabaseLockedError",
  "WorkspaceNotFoundError",
  "ApiKeyNotFoundError",
]);

class CommandFailed extends Error {}

async function execute(args: ParsedArgs): Promise<unknown> {
  const config = loadConfig();
  if (config.database.kind === "embedded") {
    const answer = await runThroughServer(controlSocketPath(config.dataDir), args);
    if (answer && "result" in answer) return answer.result;
    if (answer) throw Object.assign(new CommandFailed(answer.error.message), { name: answer.error.name });
  }
  const [{ openDatabase }, { runCommand }] = await Promise.all([
    import("../db/database.ts"),
    import("./commands.ts"),
  ]);
  // The migrate command applies migrations itself (and reports them); every other command needs them applied.
  const db = await openDatabase(config.database, { migrate: args.positional[0] !== "migrate" });
  try {
    return await runCommand(db, args);
  } finally {
    await db.close();
  }
}

async function main(argv: string[]): Promise<number> {
  const program = buildProgram(async (args) => {
    process.stdout.write(`${JSON.stringify(await execute(args), null, 2)}\n`);
  });
  try {
    await program.parseAsync(argv, { from: "user" });
    return EXIT.ok;
  } catch (error) {
    if (error instanceof CommanderError) return exitCodeOf(error);
    const name = error instanceof Error ? error.name : "";
    process.stderr.write(
      `${EXPECTED_ERRORS.has(name) ? (error as Error).message : error instanceof Error ? error.stack : String(error)}\n`,
    );
    return name === "UsageError" ? EXIT.usage : EXIT.failed;
  }
}

main(process.argv.slice(2)).then((code) => process.exit(code));
