// The bodies that make, rotate and revoke a key, as both doors read them: `/v1/keys` (a caller's key,
// limited by its own scopes and ranges) and the admin API (the operator's token). One schema, so the two
// never take different fields; which constraint fits which kind is checked where keys are made
// (api-keys.ts constraintsFor), not here.
import { z } from "zod";
import { ALL_SCOPES } from "./scopes.ts";

export const CreateKeyBody = z.object({
  kind: z.enum(["public", "private"]),
  name: z.string().max(100).optional(),
  scopes: z
    .array(z.enum(ALL_SCOPES as [string, ...string[]]))
    .min(1)
    .optional(),
  expiresAt: z.string().datetime({ offset: true }).optional(),
  allowedOrigins: z.array(z.string().max(300)).max(20).optional(),
  allowedAddresses: z.array(z.string().max(60)).max(20).optional(),
});

/** Grace of the replaced key: up to 30 days. */
export const RotateKeyBody = z.object({ graceSeconds: z.number().int().min(0).max(2_592_000).optional() });

export const RevokeKeyBody = z.object({
  reason: z.string().max(100).optional(),
  withRotation: z.boolean().optional(),
});
