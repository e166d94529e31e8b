// `npm run --silent cli -- …`: workspace and key management against whatever database the
// configuration names. Prints one JSON object on stdout; errors go to stderr with exit code 1.
import { ApiKeyNotFoundError, WorkspaceNotFoundError } from "../auth/workspaces.ts";
import { ConfigError, loadConfig } from "../config.ts";
import { openDatabase } from "../db/database.ts";
import { EmbeddedDatabaseLockedError } from "../db/embedded-lock.ts";
import { parseArgs, runCommand, UsageError } from "./commands.ts";

const EXPECTED_ERRORS = [
  UsageError,
  ConfigError,
  EmbeddedDatabaseLockedError,
  WorkspaceNotFoundError,
  ApiKeyNotFoundError,
];

async function main(): Promise<number> {
  const args = parseArgs(process.argv.slice(2));
  const config = loadConfig();
  // The migrate command applies migrations itself (and reports them); every other command needs them applied.
  const db = await openDatabase(config.database, { migrate: args.positional[0] !== "migrate" });
  try {
    process.stdout.write(`${JSON.stringify(await runCommand(db, args), null, 2)}\n`);
    return 0;
  } finally {
    await db.close();
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    const expected = EXPECTED_ERRORS.some((kind) => error instanceof kind);
    process.stderr.write(
      `${expected ? (error as Error).message : error instanceof Error ? error.stack : String(error)}\n`,
    );
    process.exit(1);
  },
);
