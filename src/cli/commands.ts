// What each CLI command does, as a function of (database, command) returning what to print as JSON.
// It runs in the CLI's own process, or in the running server's (control-server.ts) when the server
// holds the embedded database: either way through the same service functions as the API, so every
// write goes through the one writer.
import {
  createWorkspace,
  findWorkspace,
  issueKey,
  listKeys,
  listWorkspaces,
  revokeKey,
} from "../auth/workspaces.ts";
import type { Database } from "../db/database.ts";
import { seedWorkspace } from "../seed/seed-workspace.ts";
import type { CliCommand } from "./command.ts";

export async function runCommand(db: Database, command: CliCommand): Promise<unknown> {
  const { prisma } = db;
  switch (command.command) {
    case "workspace create":
      return createWorkspace(prisma, command.name);
    case "workspace list":
      return { workspaces: await listWorkspaces(prisma) };
    case "key create": {
      const workspace = await findWorkspace(prisma, command.workspace);
      return issueKey(prisma, workspace.id, command.kind);
    }
    case "key list":
      return { keys: await listKeys(prisma, (await findWorkspace(prisma, command.workspace)).id) };
    case "key revoke":
      return { apiKey: await revokeKey(prisma, command.keyId) };
    case "seed": {
      const workspace = await findWorkspace(prisma, command.workspace);
      return { workspace, seeded: await seedWorkspace(prisma, workspace.id) };
    }
    case "migrate":
      return { applied: await db.migrate() };
  }
}
