// On an empty database the service creates a workspace named "default" and prints its keys once, so a
// newcomer can call the API straight away. Keys are stored only as hashes: this is the only chance to
// see them (new ones can be made with the CLI or the admin API).
import { createWorkspace } from "./auth/workspaces.ts";
import type { PrismaClient } from "./generated/prisma/client.ts";

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
