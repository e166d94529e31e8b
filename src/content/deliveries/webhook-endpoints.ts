// Webhook endpoints: where a workspace's events are delivered, and the secret that signs them. Every
// write goes through the one writer and names its change as a `webhook` (the change log records no
// event for a client's change: endpoints are configuration, not content; it records `webhook.disabled`
// when the service disables a failing endpoint, so the workspace's other endpoints and subscribers hear
// of it). The secret is generated here and returned
// only by create and rotate; reads never select it.
//
// Target safety is checked on the URL as given (src/webhooks/target-safety.ts): the scheme, and
// loopback, private or link-local literal addresses, unless the caller's policy allows private targets
// (WEBHOOK_ALLOW_PRIVATE_TARGETS). Names are checked again, resolved, at delivery time.
import { NotFoundError } from "../../domain/errors.ts";
import { EVENT_TYPES, isEventType } from "../../domain/event-types.ts";
import type { WebhookEndpointWrite } from "../../domain/inputs.ts";
import type { PrismaClient } from "../../generated/prisma/client.ts";
import { generateEndpointSecret } from "../../webhooks/signing.ts";
import { type TargetPolicy, unsafeTargetReason } from "../../webhooks/target-safety.ts";
import { orNotFound } from "../or-not-found.ts";
import { ProblemList } from "../validation.ts";
import { type ReadClient, write } from "../writer.ts";
import { fanOutEndpoint, fanOutStart } from "./webhook-fan-out.ts";

/** Subscribes to every event type, those added later included. */
export const ALL_EVENTS = "*";

/** How long the secret before a rotation keeps signing, so receivers can switch without a gap. */
export const SECRET_ROTATION_OVERLAP_MS = 24 * 60 * 60 * 1000;

/** Endpoints per workspace: each event is delivered to every subscribed one, so the fan-out is bounded. */
export const MAX_ENDPOINTS_PER_WORKSPACE = 50;

const URL_MAX_LENGTH = 2_048;

export async function findWebhookEndpointId(
  prisma: ReadClient,
  workspaceId: string,
  id: string,
): Promise<string> {
  const found = await prisma.webhookEndpoint.findFirst({ where: { id, workspaceId }, select: { id: true } });
  if (!found) throw new NotFoundError("Webhook endpoint", id);
  return found.id;
}

/** Creates an endpoint; returns its id and its secret (shown to the client this once). */
export async function createWebhookEndpoint(
  prisma: PrismaClient,
  workspaceId: string,
  input: WebhookEndpointWrite & { url: string; events: readonly string[] },
  policy: TargetPolicy,
): Promise<{ id: string; secret: string }> {
  webhookEndpointProblems(input, policy).throwIfAny("Invalid webhook endpoint");
  return write(prisma, async (uow) => {
    const full = await endpointsFull(uow.tx, workspaceId);
    if (full) new ProblemList().add("url", full).throwIfAny("Too many webhook endpoints");
    const secret = generateEndpointSecret();
    const row = await uow.tx.webhookEndpoint.create({
      data: {
        workspaceId,
        // Sent what is written after it: the log so far is not fanned out to it (a replay can).
        fannedOutTo: await fanOutStart(uow.tx, workspaceId),
        url: input.url,
        events: normalizedEvents(input.events),
        description: input.description ?? null,
        enabled: input.enabled ?? true,
        secret,
      },
      select: { id: true },
    });
    uow.changed({ resource: "webhook", action: "created", id: row.id, workspaceId });
    return { id: row.id, secret };
  });
}

/** Why the workspace can take no other endpoint (it has MAX_ENDPOINTS_PER_WORKSPACE), or null. */
export async function endpointsFull(client: ReadClient, workspaceId: string): Promise<string | null> {
  const existing = await client.webhookEndpoint.count({ where: { workspaceId } });
  return existing >= MAX_ENDPOINTS_PER_WORKSPACE
    ? `A workspace has at most ${MAX_ENDPOINTS_PER_WORKSPACE} webhook endpoints; delete one first`
    : null;
}

export async function updateWebhookEndpoint(
  prisma: PrismaClient,
  workspaceId: string,
  id: string,
  input: WebhookEndpointWrite,
  policy: TargetPolicy,
): Promise<string> {
  const problems = webhookEndpointProblems(input, policy);
  for (const key of ["url", "events", "enabled"] as const)
    if (input[key] === null) problems.add(key, "Cannot be null");
  problems.throwIfAny("Invalid webhook endpoint");
  return write(prisma, async (uow) => {
    const found = await findWebhookEndpointId(uow.tx, workspaceId, id);
    // What was written before this change goes where the settings it was written under send it.
    if (input.events !== undefined || input.enabled !== undefined)
      uow.queuedDeliveries(await fanOutEndpoint(uow.tx, found));
    await orNotFound(
      uow.tx.webhookEndpoint.update({
        where: { id: found },
        data: {
          url: input.url ?? undefined,
          events: input.events ? normalizedEvents(input.events) : undefined,
          description: input.description,
          enabled: input.enabled ?? undefined,
          // A client enabling an endpoint again clears why the service had disabled it, and its failing
          // streak: it starts afresh (else the next failure would disable it again at once).
          ...(input.enabled === true ? RESUMED : {}),
        },
        select: { id: true },
      }),
      "Webhook endpoint",
      id,
    );
    // Resumed: its deliveries left pending while it was disabled are due now; wake the dispatchers.
    if (input.enabled === true) uow.queuedDeliveries(1);
    uow.changed({ resource: "webhook", action: "updated", id: found, workspaceId });
    return found;
  });
}

/** A resumed endpoint's health: as a new one's. */
const RESUMED = {
  disabledReason: null,
  disabledAt: null,
  failingSince: null,
  failuresInRow: 0,
  backoffUntil: null,
} as const;

/**
 * Disables endpoints the dispatcher found failing (a 410 Gone, or every attempt failing for
 * WEBHOOK_DISABLE_AFTER), each with its reason, in one write that records `webhook.disabled` for each
 * one still enabled (an endpoint deleted or disabled meanwhile is left as it is).
 */
export async function disableFailingEndpoints(
  prisma: PrismaClient,
  endpoints: readonly { id: string; workspaceId: string; reason: string }[],
): Promise<void> {
  await write(prisma, async (uow) => {
    for (const endpoint of endpoints) {
      // What was written before it is disabled goes where the settings it was written under send it.
      uow.queuedDeliveries(await fanOutEndpoint(uow.tx, endpoint.id));
      const disabled = await uow.tx.webhookEndpoint.updateMany({
        where: { id: endpoint.id, enabled: true },
        data: { enabled: false, disabledReason: endpoint.reason, disabledAt: new Date() },
      });
      if (disabled.count > 0)
        uow.changed({
          resource: "webhook",
          action: "disabled",
          id: endpoint.id,
          workspaceId: endpoint.workspaceId,
        });
    }
  });
}

export async function deleteWebhookEndpoint(
  prisma: PrismaClient,
  workspaceId: string,
  id: string,
): Promise<string> {
  return write(prisma, async (uow) => {
    const deleted = await uow.tx.webhookEndpoint.deleteMany({ where: { id, workspaceId } });
    if (deleted.count === 0) throw new NotFoundError("Webhook endpoint", id);
    uow.changed({ resource: "webhook", action: "deleted", id, workspaceId });
    return id;
  });
}

/**
 * Gives the endpoint a new secret; the current one becomes the previous secret and keeps signing for
 * SECRET_ROTATION_OVERLAP_MS, so a receiver can deploy the new one without rejecting deliveries. A
 * rotation during an overlap ends the older overlap: only two secrets ever sign.
 */
export async function rotateWebhookEndpointSecret(
  prisma: PrismaClient,
  workspaceId: string,
  id: string,
  now: Date = new Date(),
): Promise<{ id: string; secret: string }> {
  return write(prisma, async (uow) => {
    const current = await uow.tx.webhookEndpoint.findFirst({
      where: { id, workspaceId },
      select: { id: true, secret: true },
    });
    if (!current) throw new NotFoundError("Webhook endpoint", id);
    const secret = generateEndpointSecret();
    // Guarded by the secret read above: two rotations racing cannot both keep "their" previous secret.
    const updated = await uow.tx.webhookEndpoint.updateMany({
      where: { id: current.id, secret: current.secret },
      data: {
        secret,
        previousSecret: current.secret,
        previousSecretExpiresAt: new Date(now.getTime() + SECRET_ROTATION_OVERLAP_MS),
      },
    });
    if (updated.count === 0) throw new NotFoundError("Webhook endpoint", id);
    uow.changed({ resource: "webhook", action: "updated", id: current.id, workspaceId });
    return { id: current.id, secret };
  });
}

/** The secrets that sign a delivery made at `now`: the current one first, then the previous one while it lasts. */
export function activeSecrets(
  endpoint: { secret: string; previousSecret: string | null; previousSecretExpiresAt: Date | null },
  now: Date = new Date(),
): [string, ...string[]] {
  const previousLasts =
    endpoint.previousSecret !== null &&
    endpoint.previousSecretExpiresAt !== null &&
    endpoint.previousSecretExpiresAt > now;
  return previousLasts ? [endpoint.secret, endpoint.previousSecret as string] : [endpoint.secret];
}

/** ["*"] stays as it is; a list of types loses its repeats and is kept in a stable order. */
export function normalizedEvents(events: readonly string[]): string[] {
  if (events.includes(ALL_EVENTS)) return [ALL_EVENTS];
  return EVENT_TYPES.filter((type) => events.includes(type));
}

/**
 * What is wrong with an endpoint's settings (its URL's target, its events, its description): the rules
 * a create or update through the API applies, and an import of an endpoint too (import-writes.ts).
 */
export function webhookEndpointProblems(input: WebhookEndpointWrite, policy: TargetPolicy): ProblemList {
  const problems = new ProblemList().text("description", input.description, { min: 0, max: 1_000 });
  if (typeof input.url === "string") {
    const reason =
      input.url.length > URL_MAX_LENGTH
        ? `Must be at most ${URL_MAX_LENGTH} characters`
        : unsafeTargetReason(input.url, policy);
    if (reason !== null) problems.add("url", reason.charAt(0).toUpperCase() + reason.slice(1));
  }
  if (input.events) {
    if (input.events.length === 0)
      problems.add("events", `Must name at least one event type, or "${ALL_EVENTS}" for all`);
    input.events.forEach((type, index) => {
      if (type !== ALL_EVENTS && !isEventType(type))
        problems.add(`events.${index}`, `Must be "${ALL_EVENTS}" or one of ${EVENT_TYPES.join(", ")}`);
    });
    if (input.events.includes(ALL_EVENTS) && input.events.length > 1)
      problems.add("events", `"${ALL_EVENTS}" already subscribes to every event type: give it alone`);
  }
  return problems;
}
