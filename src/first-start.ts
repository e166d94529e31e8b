// What the service makes for itself on its first start, so a newcomer needs no setup:
// - on an empty database, a workspace named "default", whose keys it prints once (keys are stored only
//   as hashes: this is the only chance to see them; new ones can be made with the CLI or the admin API);
// - with the embedded database and no PREVIEW_SECRET, the secret that signs preview tokens, kept in
//   DATA_DIR/preview-secret so tokens outlive a restart.
import { randomBytes } from "node:crypto";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { createWorkspace } from "./auth/workspaces.ts";
import { type Config, ConfigError } from "./config.ts";
import type { PrismaClient } from "./generated/prisma/client.ts";
import type { Logger } from "./logger.ts";

/** Under DATA_DIR: the embedded mode's preview signing secret. */
export const PREVIEW_SECRET_FILE = "preview-secret";
const MIN_SECRET_LENGTH = 32;

export async function ensureDefaultWorkspace(
  prisma: PrismaClient,
  print: (text: string) => void,
): Promise<void> {
  if ((await prisma.workspace.count()) > 0) return;
  const { workspace, publicKey, privateKey } = await createWorkspace(prisma, "default");
  print(
    [
      "",
      `Created workspace "${workspace.name}" (id ${workspace.id}). Its API keys are shown only this once:`,
      `  public key (read):          ${publicKey}`,
      `  private key (read + write): ${privateKey}`,
      `Try: curl -H "Authorization: ${publicKey}" http://localhost:PORT/v1/posts`,
      "",
    ].join("\n"),
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
