// The CLI's commands, each a function of (database, arguments) returning what to print as JSON. They run
// in the CLI's own process, or in the running server's (control-server.ts) when it holds the embedded
// database: either way through the same service functions as the API.
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

export class UsageError extends Error {
  override name = "UsageError";
}

/** A command as the CLI's parser (program.ts) hands it over: its words and its options. */
export interface ParsedArgs {
  positional: string[];
  options: Record<string, string>;
}

export async function runCommand(db: Database, args: ParsedArgs): Promise<unknown> {
  const [group, action, target] = args.positional;
  const { prisma } = db;
  const workspaceOption = async () => {
    const ref = args.options.workspace;
    if (!ref) throw new UsageError("--workspace <id|slug> is required");
    return findWorkspace(prisma, ref);
  };
  switch (`${group} ${action ?? ""}`.trim()) {
    case "workspace create": {
      const name = action && target?.trim();
      if (!name) throw new UsageError('workspace create needs a name: workspace create "<name>"');
      return createWorkspace(prisma, name);
    }
    case "workspace list":
      return { workspaces: await listWorkspaces(prisma) };
    case "key create": {
      const kind = args.options.kind;
      if (kind !== "public" && kind !== "private") throw new UsageError("--kind must be public or private");
      const workspace = await workspaceOption();
      return issueKey(prisma, workspace.id, kind);
    }
    case "key list":
      return { keys: await listKeys(prisma, (await workspaceOption()).id) };
    case "key revoke":
      if (!target) throw new UsageError("key revoke needs a key id");
      return { apiKey: await revokeKey(prisma, target) };
    case "seed": {
      const workspace = await workspaceOption();
      return { workspace, seeded: await seedWorkspace(prisma, workspace.id) };
    }
    case "migrate":
      return { applied: await db.migrate() };
    default:
      throw new UsageError(`Unknown command: ${args.positional.join(" ")}`);
  }
}
