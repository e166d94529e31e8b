// The CLI's commands, each a function of (database, arguments) returning what to print as JSON.
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

export const USAGE = `Usage: npm run --silent cli -- <command>
  workspace create "<name>"                         create a workspace and its two keys
  workspace list                                    list workspaces
  key create --workspace <id|slug> --kind public|private
  key list --workspace <id|slug>                    list keys (never the secrets)
  key revoke <key-id>
  seed --workspace <id|slug>                        fill a workspace with demo content
  migrate                                           apply pending migrations`;

export interface ParsedArgs {
  positional: string[];
  options: Record<string, string>;
}

export function parseArgs(argv: readonly string[]): ParsedArgs {
  const positional: string[] = [];
  const options: Record<string, string> = {};
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg.startsWith("--")) {
      const [name, inline] = arg.slice(2).split("=", 2) as [string, string | undefined];
      const value = inline ?? argv[++i];
      if (value === undefined) throw new UsageError(`--${name} needs a value`);
      options[name] = value;
    } else positional.push(arg);
  }
  return { positional, options };
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
      throw new UsageError(USAGE);
  }
}
