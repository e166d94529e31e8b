// A CLI command as data: what the parser (program.ts) produces, what crosses the control socket to a
// running server (control-socket.ts), and what commands.ts runs. Light on purpose: the CLI loads it
// even when the command runs in the server.
import { z } from "zod";

export const cliCommandSchema = z.discriminatedUnion("command", [
  z.object({
    command: z.literal("workspace create"),
    name: z.string().trim().min(1),
    /** The workspace's one locale (default `en`). */
    locale: z.string().optional(),
  }),
  z.object({ command: z.literal("workspace list") }),
  z.object({
    command: z.literal("workspace key-lifetime"),
    workspace: z.string().min(1),
    /** Whole days; null: no maximum. */
    days: z.number().int().nullable(),
  }),
  z.object({
    command: z.literal("key create"),
    workspace: z.string().min(1),
    kind: z.enum(["public", "private"]),
    name: z.string().optional(),
    /** Absent: every scope (private) or content:read (public). */
    scopes: z.array(z.string()).optional(),
    /** ISO moment; absent: the key does not expire (or lives the workspace's maximum). */
    expiresAt: z.string().optional(),
    allowedOrigins: z.array(z.string()).optional(),
    allowedAddresses: z.array(z.string()).optional(),
  }),
  z.object({ command: z.literal("key list"), workspace: z.string().min(1) }),
  z.object({
    command: z.literal("key rotate"),
    keyId: z.string().min(1),
    graceMs: z.number().int().min(0).optional(),
  }),
  z.object({
    command: z.literal("key revoke"),
    keyId: z.string().min(1),
    reason: z.string().optional(),
    withRotation: z.boolean().optional(),
  }),
  z.object({ command: z.literal("locale list"), workspace: z.string().min(1) }),
  z.object({
    command: z.literal("locale add"),
    workspace: z.string().min(1),
    code: z.string().min(1),
    name: z.string().optional(),
    fallback: z.array(z.string()).optional(),
    isDefault: z.boolean().optional(),
  }),
  z.object({
    command: z.literal("locale set"),
    workspace: z.string().min(1),
    code: z.string().min(1),
    name: z.string().optional(),
    /** [] clears the chain (`--fallback none`). */
    fallback: z.array(z.string()).optional(),
    isDefault: z.boolean().optional(),
  }),
  z.object({
    command: z.literal("locale remove"),
    workspace: z.string().min(1),
    code: z.string().min(1),
    force: z.boolean().optional(),
  }),
  z.object({ command: z.literal("seed"), workspace: z.string().min(1) }),
  z.object({ command: z.literal("migrate") }),
  z.object({ command: z.literal("export"), workspace: z.string().min(1), out: z.string().min(1) }),
  z.object({
    command: z.literal("import"),
    workspace: z.string().min(1),
    /** The archive, export file, folder or URL to read. */
    source: z.string().min(1),
    /** Unset: the source's kind is told from its content. */
    from: z.enum(["archive", "ghost", "wxr", "markdown", "marble"]).optional(),
    key: z.string().optional(),
    dryRun: z.boolean(),
    webhooks: z.boolean(),
    /** false: media named by URL are not fetched (`--no-remote-media`). */
    remoteMedia: z.boolean().optional(),
    batchSize: z.number().int().min(1).max(1000).optional(),
  }),
]);

export type CliCommand = z.infer<typeof cliCommandSchema>;

/** A command the user got wrong (exit code 2), found after parsing, e.g. a blank workspace name. */
export class UsageError extends Error {
  override name = "UsageError";
}

/**
 * An error a command's run elsewhere (the server, over the control socket; the CLI's worker thread)
 * ended with, under its original name: exitCodeForError and EXPECTED_ERRORS go by the name.
 */
export class RemoteCommandError extends Error {
  constructor(name: string, message: string, stack?: string) {
    super(message);
    this.name = name;
    if (stack) this.stack = stack;
  }
}

/** Checks a command that arrives as JSON (from the control socket): a bad one is a usage error. */
export function parseCliCommand(value: unknown): CliCommand {
  const parsed = cliCommandSchema.safeParse(value);
  if (!parsed.success) {
    throw new UsageError(`Invalid command: ${parsed.error.issues.map((issue) => issue.message).join("; ")}`);
  }
  return parsed.data;
}

/** Exit codes: 0 done, 1 the command failed (not found, database unavailable…), 2 bad usage. */
export const EXIT = { ok: 0, failed: 1, usage: 2 } as const;

/** Errors that are the user's or the situation's, by name: their message is enough, no stack trace. */
export const EXPECTED_ERRORS = new Set([
  "UsageError",
  "ConfigError",
  "EmbeddedDatabaseLockedError",
  "WorkspaceNotFoundError",
  "ApiKeyNotFoundError",
  "NotFoundError",
  "ConflictError",
  "ArchiveFormatError",
  "ImportSourceError",
  "MediaFileMissingError",
]);

export function exitCodeForError(name: string): number {
  return name === "UsageError" ? EXIT.usage : EXIT.failed;
}

/**
 * The exit code of a command that ran to its end: an import that failed any record exits 1 (its
 * summary, on stdout, names each failure), so a script does not take a partial import for a whole one.
 */
export function exitCodeForResult(command: CliCommand, result: unknown): number {
  if (command.command !== "import") return EXIT.ok;
  const failed = (result as { totals?: { failed?: unknown } } | null)?.totals?.failed;
  return typeof failed === "number" && failed > 0 ? EXIT.failed : EXIT.ok;
}
