// /v1/export and /v1/import: a workspace as bytes, through the API, for a private key with the transfer
// scope (issue 57). They are the two /v1 routes that run no GraphQL operation: an export is a streamed
// .tar.gz of any size and an import an uploaded file of up to IMPORT_UPLOAD_MAX_BYTES, neither of which
// GraphQL carries well (as media files are served outside it too). Their scope is declared in the one
// table (src/graphql/execution/scope-rules.ts BYTE_ROUTE_SCOPES) and checked as every route's is.
import { createWriteStream } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { Request, RequestHandler, Response, Router } from "express";
import { scopeRefusal } from "../auth/access-rules.ts";
import { ImportSourceError, PayloadTooLargeError } from "../domain/errors.ts";
import { BYTE_ROUTE_SCOPES } from "../graphql/execution/scope-rules.ts";
import { sendError, sendKeyRefusal } from "../http/json-errors.ts";

/** A workspace as the transfer work names it (src/transfer/transfer-commands.ts WorkspaceRef). */
interface WorkspaceRef {
  id: string;
  name: string;
  slug: string;
}

/** What an uploaded file may be: the three sources that are one file (markdown is a folder, marble a URL). */
export const UPLOAD_SOURCES = ["archive", "ghost", "wxr"] as const;
type UploadSource = (typeof UPLOAD_SOURCES)[number];

/** The transfer work itself, given by the app's wiring (src/transfer/transfer-commands.ts). */
export interface TransferDoor {
  workspace(id: string): Promise<WorkspaceRef>;
  exportTo(workspace: WorkspaceRef, out: Response): Promise<unknown>;
  importFrom(
    workspace: WorkspaceRef,
    file: string,
    options: { from?: UploadSource; dryRun: boolean; webhooks: boolean; signal: AbortSignal },
  ): Promise<object>;
  uploadMaxBytes: number;
}

export function mountTransferRoutes(router: Router, limited: RequestHandler[], door: TransferDoor): void {
  router.get("/export", ...limited, requireScope("GET /export"), async (req, res, next) => {
    try {
      const workspace = await door.workspace(callerWorkspace(req));
      res.setHeader("Content-Type", "application/gzip");
      res.setHeader("Content-Disposition", `attachment; filename="${workspace.slug}.tar.gz"`);
      res.setHeader("Cache-Control", "no-store");
      // Streamed: once bytes have gone out, a failure can only cut the response short (a truncated
      // gzip, which no reader accepts).
      await door.exportTo(workspace, res).catch((error) => {
        if (!res.headersSent) throw error;
        res.destroy(error as Error);
      });
    } catch (error) {
      next(error);
    }
  });
  router.post("/import", ...limited, requireScope("POST /import"), async (req, res, next) => {
    res.setHeader("Cache-Control", "no-store");
    const options = importOptions(req, res);
    if (!options) return;
    const folder = await mkdtemp(path.join(tmpdir(), "content-import-"));
    const file = path.join(folder, "upload");
    // The client going away ends the import's reads and fetches (what is committed stays: a re-run resumes).
    const aborted = new AbortController();
    res.on("close", () => {
      if (!res.writableFinished) aborted.abort();
    });
    try {
      await pipeline(req, byteLimit(door.uploadMaxBytes), createWriteStream(file));
      const workspace = await door.workspace(callerWorkspace(req));
      const summary = await door.importFrom(workspace, file, { ...options, signal: aborted.signal });
      res.status(200).json({ workspace, ...summary });
    } catch (error) {
      if (error instanceof PayloadTooLargeError) {
        req.resume();
        sendError(res, 413, "Payload too large", error.message);
      } else if (error instanceof ImportSourceError)
        sendError(res, 400, "Invalid import", uploadWording(error.message, file));
      else next(error);
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  });
}

function callerWorkspace(req: Request): string {
  // requireScope let only a resolved caller through.
  return (req.caller as { workspaceId: string }).workspaceId;
}

function requireScope(route: keyof typeof BYTE_ROUTE_SCOPES): RequestHandler {
  const scope = BYTE_ROUTE_SCOPES[route];
  return (req, res, next) => {
    if (!req.caller || req.caller.keyId === null) {
      sendKeyRefusal(res, req);
      return;
    }
    const refusal = scopeRefusal(req.caller, scope);
    if (refusal) sendError(res, 403, "Forbidden", refusal, { requiredScope: scope });
    else next();
  };
}

/** `?from=archive|ghost|wxr` (default: told from the content), `?dryRun=true`, `?webhooks=false`. */
function importOptions(
  req: Request,
  res: Response,
): { from?: UploadSource; dryRun: boolean; webhooks: boolean } | null {
  const { from, dryRun, webhooks } = req.query;
  const problems: { field: string; message: string }[] = [];
  if (from !== undefined && !UPLOAD_SOURCES.includes(from as UploadSource))
    problems.push({ field: "from", message: `One of ${UPLOAD_SOURCES.join(", ")}` });
  const flag = (value: unknown, field: string, otherwise: boolean) => {
    if (value === undefined) return otherwise;
    if (value === "true" || value === "false") return value === "true";
    problems.push({ field, message: "true or false" });
    return otherwise;
  };
  const options = {
    ...(from !== undefined ? { from: from as UploadSource } : {}),
    dryRun: flag(dryRun, "dryRun", false),
    webhooks: flag(webhooks, "webhooks", true),
  };
  if (problems.length === 0) return options;
  sendError(res, 400, "Invalid parameters", "The import's parameters are not valid", { details: problems });
  return null;
}

/** Passes bytes through until there are more than `maxBytes`, then fails the pipeline with 413's error. */
function byteLimit(maxBytes: number): Transform {
  let seen = 0;
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      seen += chunk.length;
      if (seen > maxBytes)
        done(new PayloadTooLargeError(`An uploaded import may have at most ${maxBytes} bytes`));
      else done(null, chunk);
    },
  });
}

/** The importers speak to the CLI (`--from`, a file name); say the same to an HTTP client. */
function uploadWording(message: string, file: string): string {
  return message
    .replaceAll(file, "the uploaded file")
    .replaceAll("(archive, ghost, wxr, markdown or marble)", `(${UPLOAD_SOURCES.join(", ")})`)
    .replaceAll(/--from (\w+)/g, "?from=$1")
    .replaceAll("--from", "?from=");
}
