// What each CLI command does, as a function of (database, command) returning what to print as JSON.
// It runs in the CLI's own process, or in the running server's (control-server.ts) when the server
// holds the embedded database: either way through the same service functions as the API, so every
// write goes through the one writer.

import path from "node:path";
import { issueKey, listKeys, revokeKey, rotateKey, setPrivateKeyMaxLifetime } from "../auth/api-keys.ts";
import { createWorkspace, findWorkspace, listWorkspaces } from "../auth/workspaces.ts";
import { loadConfig } from "../config.ts";
import { createLocale, deleteLocale, localesOf, updateLocale } from "../content/locales/locales.ts";
import type { Database } from "../db/database.ts";
import { InvalidInputError } from "../domain/errors.ts";
import type { PrismaClient } from "../generated/prisma/client.ts";
import { silentLogger } from "../logger.ts";
import { createMediaStorage } from "../media/create-storage.ts";
import { seedWorkspace } from "../seed/seed-workspace.ts";
import type { ProgressReporter } from "../transfer/progress.ts";
import { exportToFile, importInto, type TransferContext } from "../transfer/transfer-commands.ts";
import { type CliCommand, UsageError } from "./command.ts";

/** The media storage the configuration names, for the commands that move media. */
function transferContext(
  db: Database,
  progress: ProgressReporter | undefined,
  signal: AbortSignal | undefined,
): TransferContext {
  const config = loadConfig();
  return {
    db,
    config,
    storage: createMediaStorage(config, silentLogger),
    ...(progress ? { progress } : {}),
    ...(signal ? { signal } : {}),
  };
}

export interface RunOptions {
  /** An import leaves the planner statistics to the caller (cli/main.ts, on the embedded store). */
  deferStatistics?: boolean;
  /** Ends an import early: whoever asked for it has gone (control-server.ts). */
  signal?: AbortSignal;
}

export async function runCommand(
  db: Database,
  command: CliCommand,
  progress?: ProgressReporter,
  options: RunOptions = {},
): Promise<unknown> {
  const { prisma } = db;
  switch (command.command) {
    case "workspace create":
      return createWorkspace(prisma, command.name, command.locale ? { locale: command.locale } : {});
    case "workspace list":
      return { workspaces: await listWorkspaces(prisma) };
    case "workspace key-lifetime": {
      const workspace = await findWorkspace(prisma, command.workspace);
      return { workspace, ...(await setPrivateKeyMaxLifetime(prisma, workspace.id, command.days)) };
    }
    case "key create": {
      const workspace = await findWorkspace(prisma, command.workspace);
      return issueKey(prisma, workspace.id, {
        kind: command.kind,
        ...(command.name !== undefined ? { name: command.name } : {}),
        ...(command.scopes ? { scopes: command.scopes } : {}),
        ...(command.expiresAt ? { expiresAt: new Date(command.expiresAt) } : {}),
        ...(command.allowedOrigins ? { allowedOrigins: command.allowedOrigins } : {}),
        ...(command.allowedAddresses ? { allowedAddresses: command.allowedAddresses } : {}),
      });
    }
    case "key list":
      return { keys: await listKeys(prisma, (await findWorkspace(prisma, command.workspace)).id) };
    case "key rotate":
      return rotateKey(
        prisma,
        command.keyId,
        command.graceMs !== undefined ? { graceMs: command.graceMs } : {},
      );
    case "key revoke":
      return {
        apiKey: await revokeKey(prisma, command.keyId, {
          ...(command.reason ? { reason: command.reason } : {}),
          ...(command.withRotation ? { withRotation: true } : {}),
        }),
      };
    case "locale list": {
      const workspace = await findWorkspace(prisma, command.workspace);
      return { workspace, ...(await localesOf(prisma, workspace.id)) };
    }
    case "locale add":
    case "locale set":
    case "locale remove":
      return usageOnBadInput(() => runLocaleWrite(prisma, command));
    case "seed": {
      const workspace = await findWorkspace(prisma, command.workspace);
      return { workspace, seeded: await seedWorkspace(prisma, workspace.id) };
    }
    case "migrate":
      return { applied: await db.migrate() };
    case "export": {
      const workspace = await findWorkspace(prisma, command.workspace);
      return {
        workspace,
        ...(await exportToFile(
          transferContext(db, progress, undefined),
          workspace,
          path.resolve(command.out),
        )),
      };
    }
    case "import": {
      const workspace = await findWorkspace(prisma, command.workspace);
      const source = /^https?:\/\//.test(command.source) ? command.source : path.resolve(command.source);
      const summary = await importInto(
        transferContext(db, progress, options.signal),
        workspace,
        {
          ...(command.from ? { from: command.from } : {}),
          location: source,
          ...(command.key ? { key: command.key } : {}),
        },
        {
          dryRun: command.dryRun,
          webhooks: command.webhooks,
          ...(command.remoteMedia === false ? { remoteMedia: false } : {}),
          ...(command.batchSize ? { batchSize: command.batchSize } : {}),
          ...(options.deferStatistics ? { analyze: false } : {}),
        },
      );
      return { workspace, ...summary };
    }
  }
}

type LocaleWriteCommand = Extract<CliCommand, { command: "locale add" | "locale set" | "locale remove" }>;

/** A locale write, answered with the workspace's locales as they are after it. */
async function runLocaleWrite(prisma: PrismaClient, command: LocaleWriteCommand): Promise<unknown> {
  const workspace = await findWorkspace(prisma, command.workspace);
  if (command.command === "locale remove")
    await deleteLocale(prisma, workspace.id, command.code, { force: command.force === true });
  else {
    const input = {
      ...(command.name !== undefined ? { name: command.name } : {}),
      ...(command.fallback ? { fallback: command.fallback } : {}),
      ...(command.isDefault ? { isDefault: true } : {}),
    };
    if (command.command === "locale add")
      await createLocale(prisma, workspace.id, { code: command.code, ...input });
    else await updateLocale(prisma, workspace.id, command.code, input);
  }
  return { workspace, ...(await localesOf(prisma, workspace.id)) };
}

/**
 * Input the rules refuse is the user's to fix, as a usage error (exit 2) whose message names every
 * field at fault: an error crosses the control socket by name and message only.
 */
async function usageOnBadInput<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof InvalidInputError) {
      const details = error.details.map((problem) => `${problem.field}: ${problem.message}`).join("; ");
      throw new UsageError(details ? `${error.message} (${details})` : error.message);
    }
    throw error;
  }
}
