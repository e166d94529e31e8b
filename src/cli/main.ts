// The command line (`npx content-gateway …`, `npm run --silent cli -- …`): workspace and key management,
// demo content, migrations. Prints one JSON object on stdout; errors go to stderr.
// Exit codes: 0 done, 1 the command failed, 2 bad usage (command.ts).
//
// On the embedded database a running server holds the data folder: the command then runs in the
// server, over its control socket (control-socket.ts); otherwise here, on the configured database.
// The database and Prisma load only when the command runs here (a lazy import): through the server a
// command loads little more than the parser.
import v8 from "node:v8";
import { CommanderError } from "commander";
import { loadConfig } from "../config.ts";
import {
  type CliCommand,
  EXIT,
  EXPECTED_ERRORS,
  exitCodeForError,
  exitCodeForResult,
  RemoteCommandError,
} from "./command.ts";
import { controlSocketPath, runThroughServer } from "./control-socket.ts";
import { buildProgram } from "./program.ts";
import { runLocally } from "./run-locally.ts";

async function execute(parsed: CliCommand): Promise<unknown> {
  const config = loadConfig();
  const command = withSourceKey(parsed, config.imports.sourceKey);
  if (config.database.kind === "embedded") {
    const answer = await runThroughServer(controlSocketPath(config.dataDir), command);
    if (answer && "result" in answer) return answer.result;
    if (answer) throw new RemoteCommandError(answer.error.name, answer.error.message);
  }
  compileWasmOnce();
  if (command.command !== "export" && command.command !== "import") return runLocally(command);
  boundHeapGrowth();
  const [{ runInWorker }, { progressReporter }] = await Promise.all([
    import("./command-in-worker.ts"),
    import("../transfer/progress.ts"),
  ]);
  // On the embedded store an import's ANALYZE runs in a second worker, after the import's has ended.
  // ANALYZE copies every sampled row whole (bodies and search documents included, whatever the
  // columns' statistics targets) into PostgreSQL's memory: +37 MB of PGlite's resident WebAssembly
  // memory for "Post" at 20,000 rows, on top of the import's peak, since that memory never shrinks and
  // the import's heap was still there. A worker's heap and WebAssembly memory are freed when it exits,
  // so the analysis starts from a fresh database session. On a PostgreSQL server ANALYZE's memory is the
  // server's: the import analyses as it ends, in its own worker.
  const deferStatistics =
    config.database.kind === "embedded" && command.command === "import" && !command.dryRun;
  const result = await runInWorker(
    { run: "command", command, deferStatistics },
    progressReporter(command.command),
  );
  if (deferStatistics) await runInWorker({ run: "statistics" }, { update: () => {}, stop: () => {} });
  return result;
}

/**
 * A /v1 source's key from IMPORT_SOURCE_KEY when the command line gave none (--key, --key-file): read
 * here, in the CLI's own environment, and sent with the command like a key given on the command line.
 */
function withSourceKey(command: CliCommand, sourceKey: string | undefined): CliCommand {
  if (command.command !== "import" || command.key || !sourceKey) return command;
  // Without --from, a URL is a /v1 source (detect-source.ts).
  const from = command.from ?? (/^https?:\/\//i.test(command.source) ? "marble" : undefined);
  return from === "marble" ? { ...command, key: sourceKey } : command;
}

/**
 * Prisma's query compiler is a 3.4 MB WebAssembly module. V8 compiles it with its baseline compiler
 * (Liftoff) and then again, in the background, with its optimising one (TurboFan) as functions get
 * warm: that second compilation is about 50 MB of the CLI's peak memory (`workspace list`: 170 MB
 * peak, 120 MB with Liftoff only), for a process that runs a handful of queries, or an import whose
 * time goes to the database rather than to compiling queries (bench:transfer at full size: 137 s
 * against 134 s before). The same holds for the embedded store's PostgreSQL, WebAssembly too (PGlite):
 * its second compilation is about 70 MB (an import of 2,000 posts: 448 → 385 MB peak, 40 → 43 s). The
 * flag is read when a module is compiled and is the process's, so setting it before the database
 * (and Prisma) load is in time, for a worker thread too. Not in the server, which runs long and whose
 * queries deserve the optimised code.
 */
function compileWasmOnce(): void {
  v8.setFlagsFromString("--liftoff-only");
}

/**
 * Export and import stream: what they hold at once is one chunk of records, one batch and no media
 * file, and their live heap stays near 80 MB (a heap snapshot half way through a 3,000-post import:
 * 74 MB, about half of it the CLI's own code and the query compiler's WebAssembly as base64 strings;
 * the peak is level from 3,000 to 10,000 posts). But every batch leaves megabytes of garbage (parsed
 * records, SQL parameters, sanitised HTML), and V8, left to itself, let the old generation grow to
 * three or four times the live heap before a full collection: 300 MB of heap for 80 MB of data, which
 * put an import over issue 40's 300 MB. Growing the heap by at most 30% of what survived each full
 * collection keeps it near the live size, with more but smaller collections (bench:transfer, 3,000
 * posts: 545 MB → 334 MB, no slower). V8 reads this flag at every collection, so it takes effect when
 * set here; a cap on the heap's size (--max-old-space-size) is read only at start-up and would need a
 * second process (and at 128 MB made the import twice as slow). Only for these two commands: they are
 * the ones that move data in bulk.
 */
function boundHeapGrowth(): void {
  v8.setFlagsFromString("--heap-growing-percent=30");
}

async function main(argv: string[]): Promise<number> {
  let code: number = EXIT.ok;
  const program = buildProgram(async (command) => {
    const result = await execute(command);
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    code = exitCodeForResult(command, result);
  });
  try {
    // No arguments: the overview, as a usage error (a script that forgot its command must not pass).
    if (argv.length === 0) {
      program.outputHelp({ error: true });
      return EXIT.usage;
    }
    await program.parseAsync(argv, { from: "user" });
    return code;
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
