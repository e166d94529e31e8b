// The command line's grammar (commander): every command and option with its help text. Parsing yields
// a CliCommand (command.ts); what a command does is commands.ts's.
import { readFileSync } from "node:fs";
import { Command, InvalidArgumentError, Option } from "commander";
import { ALL_SCOPES } from "../auth/scopes.ts";
import { canonicalLocaleCode, localeCodeProblem } from "../domain/locale-codes.ts";
import type { CliCommand } from "./command.ts";
import { parseDuration, parseExpiry, parseLifetimeDays } from "./durations.ts";

const EXAMPLES = `
Examples:
  $ content-gateway workspace create "My blog" --locale de
  $ content-gateway locale add fr --workspace my-blog --fallback de
  $ content-gateway key create --workspace my-blog --kind private --name "build server" --scope content:read drafts:read --expires 90d
  $ content-gateway key rotate <key-id> --grace 24h
  $ content-gateway key list --workspace my-blog
  $ content-gateway key revoke <key-id> --reason "left the team"
  $ content-gateway export --workspace my-blog --out site.tar.gz
  $ content-gateway import site.tar.gz --workspace other-blog --no-webhooks
  $ content-gateway import ghost-export.json --from ghost --workspace my-blog --dry-run
  $ content-gateway import https://cms.example.com/v1 --from marble --workspace my-blog --key-file key.txt

Exit codes: 0 done, 1 the command failed, 2 bad usage.`;

/**
 * `--key-file`'s value: the key on the file's first line, read here in the CLI's process (a command run
 * by a server receives the key, never a path to read). Unreadable or empty: bad usage.
 */
function readKeyFile(file: string): string {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    throw new InvalidArgumentError(
      `cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? "error"})`,
    );
  }
  const key = text.split(/\r?\n/, 1)[0]?.trim();
  if (!key) throw new InvalidArgumentError(`${file} holds no key on its first line`);
  return key;
}

/** A BCP 47 tag as given on the command line, canonical (`en-us` → `en-US`); malformed: bad usage. */
function parseLocaleCode(value: string): string {
  const canonical = canonicalLocaleCode(value);
  if (canonical === null) throw new InvalidArgumentError(localeCodeProblem(value));
  return canonical;
}

/** The program; `run` receives the parsed command (commander calls it from the matching action). */
export function buildProgram(run: (command: CliCommand) => Promise<void>): Command {
  const program = new Command("content-gateway")
    .description(
      "Manage workspaces and API keys, seed demo content, apply migrations. Prints one JSON object on stdout.\n" +
        "On the embedded database it works beside a running server (the server runs the command), or alone.",
    )
    .addHelpText("after", EXAMPLES)
    .showHelpAfterError("(add --help for usage)")
    // Subcommands inherit these settings: usage errors throw (exit code 2 in main.ts), nothing exits here.
    .exitOverride()
    .configureOutput({ writeErr: (text) => process.stderr.write(text) });
  const workspaceOption = () =>
    new Option("-w, --workspace <id|slug>", "the workspace, by id or slug").makeOptionMandatory();

  const workspace = program.command("workspace").description("create and list workspaces");
  workspace
    .command("create")
    .description("create a workspace and its two API keys (shown only in this output)")
    .argument("<name>", "the workspace's name")
    .option("-l, --locale <code>", "its one locale, the default (BCP 47; default en)", parseLocaleCode)
    .action((name: string, options: { locale?: string }) =>
      run({ command: "workspace create", name, ...(options.locale ? { locale: options.locale } : {}) }),
    );
  workspace
    .command("key-lifetime")
    .description("set the longest a workspace's new private keys may live (90d), or lift it (none)")
    .addOption(workspaceOption())
    .argument("<days>", "a number of days (90 or 90d), or none", parseLifetimeDays)
    .action((days: number | null, options: { workspace: string }) =>
      run({ command: "workspace key-lifetime", workspace: options.workspace, days }),
    );
  workspace
    .command("list")
    .description("list workspaces")
    .action(() => run({ command: "workspace list" }));

  const key = program.command("key").description("issue, list, rotate and revoke API keys");
  key
    .command("create")
    .description("issue a key (its secret is shown only in this output)")
    .addOption(workspaceOption())
    .addOption(
      new Option("-k, --kind <kind>", "public (read) or private (read + write)")
        .choices(["public", "private"])
        .makeOptionMandatory(),
    )
    .option("-n, --name <name>", "what the key is for, shown in listings")
    .addOption(
      new Option("-s, --scope <scope...>", "a private key's scopes (default: all)").choices(ALL_SCOPES),
    )
    .option("-e, --expires <when>", "expire after a duration (90d, 24h) or at a date (2027-01-31)", (text) =>
      parseExpiry(text),
    )
    .option(
      "--origin <origin...>",
      "a public key answers browsers on these origins only (https://www.example.com)",
    )
    .option("--address <range...>", "a private key answers these client addresses or CIDR ranges only")
    .action(
      (options: {
        workspace: string;
        kind: "public" | "private";
        name?: string;
        scope?: string[];
        expires?: string;
        origin?: string[];
        address?: string[];
      }) =>
        run({
          command: "key create",
          workspace: options.workspace,
          kind: options.kind,
          ...(options.name !== undefined ? { name: options.name } : {}),
          ...(options.scope ? { scopes: options.scope } : {}),
          ...(options.expires ? { expiresAt: options.expires } : {}),
          ...(options.origin ? { allowedOrigins: options.origin } : {}),
          ...(options.address ? { allowedAddresses: options.address } : {}),
        }),
    );
  key
    .command("rotate")
    .description(
      "issue a new secret for a key; the old one keeps working for the grace time, then is refused",
    )
    .argument("<key-id>", "the key's id (from key list)")
    .option(
      "-g, --grace <duration>",
      "how long the old secret keeps working (default 24h; 0s ends it now)",
      parseDuration,
    )
    .action((keyId: string, options: { grace?: number }) =>
      run({
        command: "key rotate",
        keyId,
        ...(options.grace !== undefined ? { graceMs: options.grace } : {}),
      }),
    );
  key
    .command("list")
    .description("list a workspace's keys (never their secrets)")
    .addOption(workspaceOption())
    .action((options: { workspace: string }) => run({ command: "key list", workspace: options.workspace }));
  key
    .command("revoke")
    .description("revoke a key: it is refused at once, on every instance")
    .argument("<key-id>", "the key's id (from key list)")
    .option("-r, --reason <reason>", "why, kept with the key and shown in listings")
    .option("--with-rotation", "also revoke the key it was rotated from or into (ends a grace time now)")
    .action((keyId: string, options: { reason?: string; withRotation?: boolean }) =>
      run({
        command: "key revoke",
        keyId,
        ...(options.reason ? { reason: options.reason } : {}),
        ...(options.withRotation ? { withRotation: true } : {}),
      }),
    );

  const locale = program
    .command("locale")
    .description("a workspace's locales: their names, fallback chains and which is the default");
  locale
    .command("list")
    .description("list a workspace's locales, the default first")
    .addOption(workspaceOption())
    .action((options: { workspace: string }) =>
      run({ command: "locale list", workspace: options.workspace }),
    );
  const localeWriteOptions = (command: Command) =>
    command
      .addOption(workspaceOption())
      .option("-n, --name <name>", "what the locale is called (default: the language's English name)")
      .option(
        "--fallback <code...>",
        "the locales to fall back to, in order (`none` for no fallback)",
        (code: string, previous: string[] | undefined) =>
          code === "none" ? [] : [...(previous ?? []), parseLocaleCode(code)],
      )
      .option("--default", "make it the workspace's default locale");
  type LocaleWriteOptions = { workspace: string; name?: string; fallback?: string[]; default?: boolean };
  const localeInput = (options: LocaleWriteOptions) => ({
    workspace: options.workspace,
    ...(options.name !== undefined ? { name: options.name } : {}),
    ...(options.fallback ? { fallback: options.fallback } : {}),
    ...(options.default ? { isDefault: true } : {}),
  });
  localeWriteOptions(
    locale
      .command("add")
      .description("add a locale to a workspace")
      .argument("<code>", "a BCP 47 language tag (de, en-US, pt-BR)", parseLocaleCode),
  ).action((code: string, options: LocaleWriteOptions) =>
    run({ command: "locale add", code, ...localeInput(options) }),
  );
  localeWriteOptions(
    locale
      .command("set")
      .description("rename a locale, replace its fallback chain or make it the default")
      .argument("<code>", "the locale's code", parseLocaleCode),
  ).action((code: string, options: LocaleWriteOptions) =>
    run({ command: "locale set", code, ...localeInput(options) }),
  );
  locale
    .command("remove")
    .description(
      "remove a locale (never the default, nor one another locale falls back to, nor one holding translations without --force)",
    )
    .argument("<code>", "the locale's code", parseLocaleCode)
    .addOption(workspaceOption())
    .option("--force", "also remove the locale's post translations")
    .action((code: string, options: { workspace: string; force?: boolean }) =>
      run({
        command: "locale remove",
        workspace: options.workspace,
        code,
        ...(options.force ? { force: true } : {}),
      }),
    );

  program
    .command("seed")
    .description("fill a workspace with demo content")
    .addOption(workspaceOption())
    .action((options: { workspace: string }) => run({ command: "seed", workspace: options.workspace }));
  program
    .command("export")
    .description(
      "write a workspace to one portable .tar.gz (records as NDJSON, media files, no keys or secrets)",
    )
    .addOption(workspaceOption())
    .requiredOption("-o, --out <file>", "the archive to write (.tar.gz)")
    .action((options: { workspace: string; out: string }) =>
      run({ command: "export", workspace: options.workspace, out: options.out }),
    );
  program
    .command("import")
    .description(
      "import an export archive, or another system's export, into a workspace (idempotent, resumable)",
    )
    .argument("<source>", "the archive, Ghost JSON, WordPress WXR file, markdown folder or /v1 API URL")
    .addOption(workspaceOption())
    .addOption(
      new Option("-f, --from <kind>", "what the source is (default: told from its content)").choices([
        "archive",
        "ghost",
        "wxr",
        "markdown",
        "marble",
      ]),
    )
    .option(
      "-k, --key <key>",
      "the API key of a /v1 source (--from marble); shows in the process list, so prefer --key-file or IMPORT_SOURCE_KEY",
    )
    .addOption(
      new Option("--key-file <file>", "read the /v1 source's API key from the first line of a file")
        .argParser(readKeyFile)
        .conflicts("key"),
    )
    .option("--dry-run", "report what would be created, updated, skipped or in conflict; write nothing")
    .option("--no-webhooks", "log the import's events but send them to no webhook endpoint")
    .option(
      "--no-remote-media",
      "do not fetch media the source names by URL (covers, attachments, images); keep their URLs",
    )
    .option("--batch-size <n>", "records per transaction (1-1000)", (value) => Number.parseInt(value, 10))
    .action(
      (
        source: string,
        options: {
          workspace: string;
          from?: "archive" | "ghost" | "wxr" | "markdown" | "marble";
          key?: string;
          keyFile?: string;
          dryRun?: boolean;
          webhooks: boolean;
          remoteMedia: boolean;
          batchSize?: number;
        },
      ) =>
        run({
          command: "import",
          source,
          workspace: options.workspace,
          ...(options.from ? { from: options.from } : {}),
          ...(options.key || options.keyFile ? { key: options.key ?? options.keyFile } : {}),
          dryRun: options.dryRun === true,
          webhooks: options.webhooks,
          ...(options.remoteMedia === false ? { remoteMedia: false } : {}),
          ...(options.batchSize ? { batchSize: options.batchSize } : {}),
        }),
    );
  program
    .command("migrate")
    .description("apply pending database migrations")
    .action(() => run({ command: "migrate" }));
  return program;
}
