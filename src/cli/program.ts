// The command line's grammar (commander): every command and option with its help text. Parsing yields
// the command as words and options (ParsedArgs); what a command does is commands.ts's.
import { Command, CommanderError, Option } from "commander";
import type { ParsedArgs } from "./commands.ts";

/** Exit codes: 0 done, 1 the command failed (not found, database unavailable…), 2 bad usage. */
export const EXIT = { ok: 0, failed: 1, usage: 2 } as const;

export function buildProgram(run: (args: ParsedArgs) => Promise<void>): Command {
  const program = new Command("content-gateway")
    .description(
      "Manage workspaces and API keys, seed demo content, apply migrations. Prints one JSON object on stdout.\n" +
        "Works beside a running server on the embedded database (through the server), or on its own.",
    )
    .showHelpAfterError("(add --help for usage)")
    .exitOverride();
  const workspaceOption = () =>
    new Option("-w, --workspace <id|slug>", "the workspace, by id or slug").makeOptionMandatory();

  const workspace = program.command("workspace").description("create and list workspaces").exitOverride();
  workspace
    .command("create")
    .description("create a workspace and its two API keys (shown only in this output)")
    .argument("<name>", "the workspace's name")
    .exitOverride()
    .action((name: string) => run({ positional: ["workspace", "create", name], options: {} }));
  workspace
    .command("list")
    .description("list workspaces")
    .exitOverride()
    .action(() => run({ positional: ["workspace", "list"], options: {} }));

  const key = program.command("key").description("issue, list and revoke API keys").exitOverride();
  key
    .command("create")
    .description("issue a key (shown only in this output)")
    .addOption(workspaceOption())
    .addOption(
      new Option("-k, --kind <kind>", "public (read) or private (read + write)")
        .choices(["public", "private"])
        .makeOptionMandatory(),
    )
    .exitOverride()
    .action((options: { workspace: string; kind: string }) =>
      run({ positional: ["key", "create"], options }),
    );
  key
    .command("list")
    .description("list a workspace's keys (never their secrets)")
    .addOption(workspaceOption())
    .exitOverride()
    .action((options: { workspace: string }) => run({ positional: ["key", "list"], options }));
  key
    .command("revoke")
    .description("revoke a key: refused at once on every instance")
    .argument("<key-id>", "the key's id (from key list)")
    .exitOverride()
    .action((id: string) => run({ positional: ["key", "revoke", id], options: {} }));

  program
    .command("seed")
    .description("fill a workspace with demo content")
    .addOption(workspaceOption())
    .exitOverride()
    .action((options: { workspace: string }) => run({ positional: ["seed"], options }));
  program
    .command("migrate")
    .description("apply pending database migrations")
    .exitOverride()
    .action(() => run({ positional: ["migrate"], options: {} }));
  return program;
}

/** The exit code for a parser's refusal; help and version output are not failures. */
export function exitCodeOf(error: CommanderError): number {
  return error.exitCode === 0 ? EXIT.ok : EXIT.usage;
}

export { CommanderError };
