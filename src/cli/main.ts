// The command line (`npx content-gateway …`, `npm run --silent cli -- …`): workspace and key management,
// demo content, migrations. Prints one JSON object on stdout; errors go to stderr.
// Exit codes: 0 done, 1 the command failed, 2 bad usage (command.ts).
//
// On the embedded database a running server holds the data folder: the command then runs in the
// server, over its control socket (control-socket.ts); otherwise here, on the configured database.
// The database and Prisma load only when the command runs here (a lazy import): through the server a
// command loads little more than the parser.
import { CommanderError } from "commander";
import { loadConfig } from "../config.ts";
import { type CliCommand, EXIT, EXPECTED_ERRORS, exitCodeForError } from "./command.ts";
import { controlSocketPath, runThroughServer } from "./control-socket.ts";
import { buildProgram } from "./program.ts";

/** An error the server's run of the command ended with, under its original name. */
class ServerCommandError extends Error {
  constructor(name: string, message: string) {
    super(message);
    this.name = name;
  }
}

async function execute(command: CliCommand): Promise<unknown> {
  const config = loadConfig();
  if (config.database.kind === "embedded") {
    const answer = await runThroughServer(controlSocketPath(config.dataDir), command);
    if (answer && "result" in answer) return answer.result;
    if (answer) throw new ServerCommandError(answer.error.name, answer.error.message);
  }
  const [{ openDatabase }, { runCommand }, { progressReporter }] = await Promise.all([
    import("../db/database.ts"),
    import("./commands.ts"),
    import("../transfer/progress.ts"),
  ]);
  // The migrate command applies migrations itself (and reports them); every other command needs them applied.
  const db = await openDatabase(config.database, { migrate: command.command !== "migrate" });
  try {
    const moves = command.command === "export" || command.command === "import";
    return await runCommand(db, command, moves ? progressReporter(command.command) : undefined);
  } finally {
    await db.close();
  }
}

async function main(argv: string[]): Promise<number> {
  const program = buildProgram(async (command) => {
    process.stdout.write(`${JSON.stringify(await execute(command), null, 2)}\n`);
  });
  try {
    // No arguments: the overview, as a usage error (a script that forgot its command must not pass).
    if (argv.length === 0) {
      program.outputHelp({ error: true });
      return EXIT.usage;
    }
    await program.parseAsync(argv, { from: "user" });
    return EXIT.ok;
  } catch (error) {
    // commander has printed its message (or the help): help and --version are not failures.
    if (error instanceof CommanderError) return error.exitCode === 0 ? EXIT.ok : EXIT.usage;
    const name = error instanceof Error ? error.name : "";
    const message = error instanceof Error ? error.message : String(error);
    process.stderr.write(`${EXPECTED_ERRORS.has(name) ? message : ((error as Error).stack ?? message)}\n`);
    return exitCodeForError(name);
  }
}

main(process.argv.slice(2)).then((code) => process.exit(code));
