// The admin API: workspaces and keys over HTTP, for when the CLI cannot open the database (the
// embedded one is held by the running server). Mounted only when ADMIN_TOKEN is configured.
import { timingSafeEqual } from "node:crypto";
import express, { type RequestHandler, Router } from "express";
import { z } from "zod";
import {
  ApiKeyNotFoundError,
  issueKey,
  listKeys,
  revokeKey,
  rotateKey,
  setPrivateKeyMaxLifetime,
} from "../auth/api-keys.ts";
import type { CallerResolver } from "../auth/caller-cache.ts";
import { CreateKeyBody, RevokeKeyBody, RotateKeyBody } from "../auth/key-request-bodies.ts";
import {
  createWorkspace,
  findWorkspace,
  listWorkspaces,
  setSlugsUniqueAcrossLocales,
  WorkspaceNotFoundError,
} from "../auth/workspaces.ts";
import { ConflictError } from "../domain/errors.ts";
import { canonicalLocaleCode, LOCALE_CODE_RULE, localeCodeProblem } from "../domain/locale-codes.ts";
import type { PrismaClient } from "../generated/prisma/client.ts";
import { adminAuthFailuresKey } from "../limits/rate-budgets.ts";
import { admitOrAnswer429 } from "../limits/rate-limit-middleware.ts";
import type { RateLimiter } from "../limits/rate-limiter.ts";
import { sendError } from "./json-errors.ts";
import { refuseNullBytesInBody } from "./refuse-null-bytes.ts";

/** How many wrong admin tokens one client address may send per rate-limit window. */
export interface FailedAuthLimit {
  limiter: RateLimiter;
  limit: number;
}

export function adminRoutes(options: {
  prisma: PrismaClient;
  token: string;
  callers: CallerResolver;
  failedAuth: FailedAuthLimit;
  /** Streams a workspace's portable export (src/transfer) into the response; given by the app's wiring. */
  exportWorkspace?: (
    workspace: { id: string; name: string; slug: string },
    out: express.Response,
  ) => Promise<unknown>;
}): Router {
  const { prisma, callers } = options;
  const router = Router();
  router.use(
    // Admin answers carry secrets (new keys, whole exports) and admin state: no cache, browser or proxy,
    // may keep any of them, refusals included.
    (_req, res, next) => {
      res.setHeader("Cache-Control", "no-store");
      next();
    },
    requireAdminToken(options.token, options.failedAuth),
    express.json({ limit: "16kb" }),
    refuseNullBytesInBody(),
  );

  router.get("/workspaces", async (_req, res) => {
    res.json({ workspaces: await listWorkspaces(prisma) });
  });
  router.post("/workspaces", async (req, res) => {
    const name = typeof req.body?.name === "string" ? req.body.name.trim() : "";
    if (!name || name.length > 200) {
      sendError(res, 400, "Invalid request body", "`name` must be a string of 1-200 characters", {
        details: [{ field: "name", message: "Must be 1-200 characters" }],
      });
      return;
    }
    const locale: unknown = req.body?.locale;
    if (locale !== undefined && (typeof locale !== "string" || canonicalLocaleCode(locale) === null)) {
      const message = typeof locale === "string" ? localeCodeProblem(locale) : LOCALE_CODE_RULE;
      sendError(res, 400, "Invalid request body", message, { details: [{ field: "locale", message }] });
      return;
    }
    res.status(201).json(await createWorkspace(prisma, name, locale === undefined ? {} : { locale }));
  });
  router.get("/workspaces/:workspace/keys", async (req, res) => {
    const workspace = await findWorkspace(prisma, req.params.workspace);
    res.json({ keys: await listKeys(prisma, workspace.id) });
  });
  router.patch("/workspaces/:workspace", async (req, res) => {
    const body = parsedBody(WorkspaceSettingsBody, req.body, res);
    if (!body) return;
    const workspace = await findWorkspace(prisma, req.params.workspace);
    const { privateKeyMaxLifetimeDays: days, slugsUniqueAcrossLocales: acrossLocales } = body;
    res.json({
      workspace,
      ...(days !== undefined ? await setPrivateKeyMaxLifetime(prisma, workspace.id, days) : {}),
      ...(acrossLocales !== undefined
        ? await setSlugsUniqueAcrossLocales(prisma, workspace.id, acrossLocales)
        : {}),
    });
  });
  router.post("/workspaces/:workspace/keys", async (req, res) => {
    const body = parsedBody(CreateKeyBody, req.body, res);
    if (!body) return;
    const workspace = await findWorkspace(prisma, req.params.workspace);
    const { expiresAt, ...rest } = body;
    const { key, apiKey } = await issueKey(prisma, workspace.id, {
      ...rest,
      ...(expiresAt ? { expiresAt: new Date(expiresAt) } : {}),
    });
    res.status(201).json({ key, apiKey });
  });
  router.post("/keys/:id/rotate", async (req, res) => {
    const body = parsedBody(RotateKeyBody, req.body ?? {}, res);
    if (!body) return;
    const rotated = await rotateKey(
      prisma,
      req.params.id,
      body.graceSeconds !== undefined ? { graceMs: body.graceSeconds * 1000 } : {},
    );
    res.status(201).json(rotated);
  });
  router.get("/workspaces/:workspace/export", async (req, res) => {
    const exportWorkspace = options.exportWorkspace;
    if (!exportWorkspace) {
      sendError(res, 404, "Not found", "Exports are not available on this instance");
      return;
    }
    const workspace = await findWorkspace(prisma, req.params.workspace);
    res.setHeader("content-type", "application/gzip");
    res.setHeader("content-disposition", `attachment; filename="${workspace.slug}.tar.gz"`);
    // Streamed: the archive is written into the response as it is read, in bounded memory. Once bytes
    // have gone out a failure can only cut the response short (a truncated gzip, which no reader accepts).
    await exportWorkspace(workspace, res).catch((error) => {
      if (!res.headersSent) throw error;
      res.destroy(error as Error);
    });
  });
  router.post("/keys/:id/revoke", async (req, res) => {
    const body = parsedBody(RevokeKeyBody, req.body ?? {}, res);
    if (!body) return;
    const apiKey = await revokeKey(prisma, req.params.id, body);
    callers.clear();
    res.json({ apiKey });
  });
  router.use(((error, _req, res, next) => {
    if (error instanceof WorkspaceNotFoundError || error instanceof ApiKeyNotFoundError) {
      sendError(res, 404, "Not found", error.message);
    } else if (error instanceof ConflictError) {
      // A setting the content refuses (slugs unique across locales while two locales share one).
      sendError(res, 409, "Conflict", error.message);
    } else next(error);
  }) satisfies express.ErrorRequestHandler);
  return router;
}

const WorkspaceSettingsBody = z
  .object({
    privateKeyMaxLifetimeDays: z.number().int().min(1).max(3650).nullable().optional(),
    /** Slugs unique across the workspace's locales, or per locale (stored only until translations). */
    slugsUniqueAcrossLocales: z.boolean().optional(),
  })
  .refine((body) => Object.values(body).some((value) => value !== undefined), {
    message: "Give privateKeyMaxLifetimeDays or slugsUniqueAcrossLocales",
  });

/** The body as `schema` reads it, or null once a 400 naming each wrong field has been sent. */
function parsedBody<T>(schema: z.ZodType<T>, body: unknown, res: express.Response): T | null {
  const parsed = schema.safeParse(body);
  if (parsed.success) return parsed.data;
  sendError(res, 400, "Invalid request body", "The request body does not match what this route takes", {
    details: parsed.error.issues.map((issue) => ({
      field: issue.path.join(".") || "body",
      message: issue.message,
    })),
  });
  return null;
}

/**
 * Checks the bearer token, counting wrong ones per client address so the token cannot be guessed at
 * speed. Only failures are counted (an operator's script is not limited), and a client over its budget
 * is answered 429 whatever it sends, the right token included: were the right token let through, a 200
 * among the 429s would still tell a guesser which guess was right. Each request compares first, then
 * asks the store (a wrong token is counted atomically, a right one only looks), so concurrent guesses
 * cannot learn more than the budget allows: every wrong guess answered 401 was counted.
 */
function requireAdminToken(token: string, failedAuth: FailedAuthLimit): RequestHandler {
  const expected = Buffer.from(token);
  const { limiter, limit } = failedAuth;
  return async (req, res, next) => {
    const presented = Buffer.from(/^Bearer\s+(.+)$/i.exec(req.headers.authorization ?? "")?.[1] ?? "");
    const budget = adminAuthFailuresKey(req);
    if (presented.length === expected.length && timingSafeEqual(presented, expected)) {
      const standing = await limiter.check(budget, limit);
      if (standing.allowed) next();
      else admitOrAnswer429(res, standing);
      return;
    }
    if (admitOrAnswer429(res, await limiter.consume(budget, limit)))
      sendError(res, 401, "Unauthorized", "The admin API needs `Authorization: Bearer <ADMIN_TOKEN>`");
  };
}
