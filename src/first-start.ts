// What the service makes for itself on its first start, so a newcomer needs no setup:
// - on an empty database, a workspace named "default", whose keys it shows once (keys are stored only
//   as hashes: this is the only chance to see them; new ones can be made with the CLI or the admin API):
//   on the terminal, or in an owner-only file when stdout is a log stream (revealFirstKeys);
// - with the embedded database and no PREVIEW_SECRET, the secret that signs preview tokens, kept in
//   DATA_DIR/preview-secret so tokens outlive a restart.
import { randomBytes } from "node:crypto";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { createWorkspace } from "./auth/workspaces.ts";
import { type Config, ConfigError } from "./config.ts";
import type { PrismaClient } from "./generated/prisma/client.ts";
import type { Logger } from "./logger.ts";

/** Under DATA_DIR: the embedded mode's preview signing secret. */
export const PREVIEW_SECRET_FILE = "preview-secret";
const MIN_SECRET_LENGTH = 32;

/** The default workspace made on a first start, with the only copy of its keys. */
export interface FirstKeys {
  workspace: { id: string; name: string };
  publicKey: string;
  privateKey: string;
}

export async function ensureDefaultWorkspace(
  prisma: PrismaClient,
  reveal: (keys: FirstKeys) => void,
): Promise<void> {
  if ((await prisma.workspace.count()) > 0) return;
  const { workspace, publicKey, privateKey } = await createWorkspace(prisma, "default");
  reveal({ workspace, publicKey, privateKey });
}

/** Under DATA_DIR: the first start's keys, when no terminal could show them (owner-only, 0600). */
export const FIRST_KEYS_FILE = "first-start-keys.txt";

/**
 * Shows the first keys to whoever started the service, and to nobody else. On a terminal they are
 * printed there. Otherwise stdout is a log stream (a container's, a process manager's), which is kept,
 * shipped to aggregators and read by many: a working private key must never go there. The keys go
 * to DATA_DIR/first-start-keys.txt, readable by the service's user only, and the log names the file.
 */
export function revealFirstKeys(
  keys: FirstKeys,
  options: { terminal: NodeJS.WriteStream | null; dataDir: string; port: number; logger: Logger },
): void {
  const text = [
    "",
    `Created workspace "${keys.workspace.name}" (id ${keys.workspace.id}). Its API keys are shown only this once:`,
    `  public key (read):          ${keys.publicKey}`,
    `  private key (read + write): ${keys.privateKey}`,
    `Try: curl -H "Authorization: ${keys.publicKey}" http://localhost:${options.port}/v1/posts`,
    "",
  ].join("\n");
  if (options.terminal) {
    options.terminal.write(`${text}\n`);
    return;
  }
  const file = path.join(options.dataDir, FIRST_KEYS_FILE);
  mkdirSync(options.dataDir, { recursive: true });
  // A file left by an earlier first start (of a database since emptied) holds dead keys; `wx` after the
  // unlink makes a new file with this mode, never writing into one someone else made readable.
  rmSync(file, { force: true });
  writeFileSync(file, `${text}\n`, { flag: "wx", mode: 0o600 });
  options.logger.warn(
    "created the default workspace; its API keys are in a file readable by this user only (stdout is not a terminal, so they are not printed): read it, then delete it",
    { workspace: keys.workspace.id, file },
  );
}

/**
 * The preview signing secret: PREVIEW_SECRET; else, with the embedded database, the one kept in
 * DATA_DIR (made now if there is none); else none, and previews are off — instances of a PostgreSQL
 * deployment must share one secret, and a secret one instance made up would be its own only.
 */
export function resolvePreviewSecret(config: Config, logger: Logger): string | undefined {
  if (config.preview.secret) return config.preview.secret;
  if (config.database.kind !== "embedded") {
    logger.warn("previews are off: set PREVIEW_SECRET (the same on every instance) to turn them on");
    return undefined;
  }
  const file = path.join(config.dataDir, PREVIEW_SECRET_FILE);
  mkdirSync(config.dataDir, { recursive: true });
  try {
    // `wx`: never overwrite a secret that exists (tokens signed with it would all stop working).
    writeFileSync(file, `${randomBytes(32).toString("base64url")}\n`, { flag: "wx", mode: 0o600 });
    logger.info("made the preview signing secret", { file });
  } catch (error) {
    if ((error as { code?: string }).code !== "EEXIST") throw error;
  }
  const secret = readFileSync(file, "utf8").trim();
  if (secret.length < MIN_SECRET_LENGTH)
    throw new ConfigError(
      `${file} holds no usable preview secret (fewer than ${MIN_SECRET_LENGTH} characters): delete it to have a new one made, or set PREVIEW_SECRET`,
    );
  return secret;
}
