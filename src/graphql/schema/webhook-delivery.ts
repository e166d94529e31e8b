// Webhook deliveries: the delivery log of an endpoint (every attempt, newest delivery first), and the
// operations that send again: retry one delivery, replay the change log since a cursor, send a test
// event. Private keys only, like the endpoints.
import { retentionCutoff } from "../../content/changes/event-retention.ts";
import { replayEvents, retryDelivery, sendTestEvent } from "../../content/deliveries/webhook-deliveries.ts";
import { findWebhookEndpointId } from "../../content/deliveries/webhook-endpoints.ts";
import { NotFoundError } from "../../domain/errors.ts";
import { DELIVERY_STATUSES, type DeliveryStatus } from "../../domain/webhook-deliveries.ts";
import type { Prisma } from "../../generated/prisma/client.ts";
import { builder } from "../builder.ts";
import type { GraphQLContext } from "../context.ts";
import { decodeEventCursor, encodeEventCursor, eventLogScope } from "../cursors/event-cursors.ts";
import { decodeDeliveryCursor, encodeDeliveryCursor } from "../cursors/webhook-delivery-cursors.ts";
import { cursorExpiredError } from "../errors.ts";
import { MAX_PAGE_SIZE } from "../pagination.ts";

interface AttemptRow {
  attemptedAt: Date;
  durationMs: number;
  statusCode: number | null;
  error: string | null;
  responseBody: string | null;
}

interface DeliveryRow {
  id: string;
  endpointId: string;
  eventId: string;
  eventType: string;
  status: string;
  nextAttemptAt: Date;
  createdAt: Date;
  updatedAt: Date;
  attempts: AttemptRow[];
}

const DELIVERY_SELECT = {
  id: true,
  endpointId: true,
  eventId: true,
  eventType: true,
  status: true,
  nextAttemptAt: true,
  createdAt: true,
  updatedAt: true,
  attempts: {
    orderBy: [{ attemptedAt: "asc" as const }, { id: "asc" as const }],
    select: { attemptedAt: true, durationMs: true, statusCode: true, error: true, responseBody: true },
  },
} satisfies Prisma.WebhookDeliverySelect;

const DEFAULT_DELIVERY_PAGE_SIZE = 20;

export const WebhookDeliveryStatusEnum = builder.enumType("WebhookDeliveryStatus", {
  values: Object.fromEntries(
    DELIVERY_STATUSES.map((status) => [status.toUpperCase(), { value: status }]),
  ) as {
    [K in Uppercase<DeliveryStatus>]: { value: Lowercase<K> };
  },
});

const WebhookAttempt = builder.objectRef<AttemptRow>("WebhookAttempt").implement({
  description: "One HTTP attempt of a delivery",
  fields: (t) => ({
    attemptedAt: t.expose("attemptedAt", { type: "DateTime" }),
    durationMs: t.exposeInt("durationMs"),
    statusCode: t.exposeInt("statusCode", {
      nullable: true,
      description: "The receiver's HTTP status; null when none came (timeout, network error, refused target)",
    }),
    error: t.exposeString("error", { nullable: true }),
    responseBody: t.exposeString("responseBody", {
      nullable: true,
      description: "The first 2 KB of the receiver's answer",
    }),
  }),
});

export const WebhookDelivery = builder.objectRef<DeliveryRow>("WebhookDelivery").implement({
  description: "One event for one endpoint, with every attempt to send it",
  fields: (t) => ({
    id: t.exposeID("id", { description: "Sent as x-marble-delivery-id" }),
    endpointId: t.exposeString("endpointId"),
    eventId: t.exposeString("eventId", { description: "Sent as webhook-id: the receiver's idempotency key" }),
    eventType: t.exposeString("eventType"),
    status: t.field({ type: WebhookDeliveryStatusEnum, resolve: (row) => row.status as DeliveryStatus }),
    nextAttemptAt: t.field({
      type: "DateTime",
      nullable: true,
      description: "When the next attempt is due (pending or retrying only)",
      resolve: (row) => (row.status === "pending" || row.status === "retrying" ? row.nextAttemptAt : null),
    }),
    attempts: t.field({
      type: [WebhookAttempt],
      description: "Oldest first",
      resolve: (row) => row.attempts,
    }),
    createdAt: t.expose("createdAt", { type: "DateTime" }),
    updatedAt: t.expose("updatedAt", { type: "DateTime" }),
  }),
});

const WebhookDeliveryPage = builder
  .objectRef<{ deliveries: DeliveryRow[]; nextCursor: string | null; hasMore: boolean }>(
    "WebhookDeliveryPage",
  )
  .implement({
    fields: (t) => ({
      deliveries: t.field({ type: [WebhookDelivery], resolve: (page) => page.deliveries }),
      nextCursor: t.exposeString("nextCursor", {
        nullable: true,
        description: "Give as `after` for the next (older) page",
      }),
      hasMore: t.exposeBoolean("hasMore"),
    }),
  });

const WebhookReplay = builder
  .objectRef<{ replayed: number; nextCursor: string | null; hasMore: boolean }>("WebhookReplay")
  .implement({
    fields: (t) => ({
      replayed: t.exposeInt("replayed", { description: "Events queued for delivery again" }),
      nextCursor: t.exposeString("nextCursor", {
        nullable: true,
        description: "The change log cursor of the last event replayed: replay again from it while hasMore",
      }),
      hasMore: t.exposeBoolean("hasMore"),
    }),
  });

async function deliveryById(ctx: GraphQLContext, endpointId: string, id: string): Promise<DeliveryRow> {
  const row = await ctx.prisma.webhookDelivery.findFirst({
    where: { id, endpointId, workspaceId: ctx.caller.workspaceId },
    select: DELIVERY_SELECT,
  });
  if (!row) throw new NotFoundError("Webhook delivery", id);
  return row;
}

builder.queryFields((t) => ({
  webhookDeliveries: t.field({
    type: WebhookDeliveryPage,
    description: "An endpoint's deliveries, newest first, with every attempt (private key)",
    args: {
      endpointId: t.arg.string({ required: true }),
      status: t.arg({ type: WebhookDeliveryStatusEnum, required: false }),
      first: t.arg.int({ required: false, description: `At most ${MAX_PAGE_SIZE}` }),
      after: t.arg.string({ required: false }),
    },
    complexity: (args) => ({ field: 1, multiplier: args.first ?? DEFAULT_DELIVERY_PAGE_SIZE }),
    resolve: async (_root, args, ctx) => {
      const endpointId = await findWebhookEndpointId(ctx.prisma, ctx.caller.workspaceId, args.endpointId);
      const limit = Math.max(1, Math.min(args.first ?? DEFAULT_DELIVERY_PAGE_SIZE, MAX_PAGE_SIZE));
      const after = args.after == null ? null : decodeDeliveryCursor(args.after, endpointId);
      const rows = await ctx.prisma.webhookDelivery.findMany({
        where: {
          endpointId,
          ...(args.status ? { status: args.status } : {}),
          ...(after
            ? {
                OR: [
                  { createdAt: { lt: after.createdAt } },
                  { createdAt: after.createdAt, id: { lt: after.id } },
                ],
              }
            : {}),
        },
        orderBy: [{ createdAt: "desc" }, { id: "desc" }],
        take: limit + 1,
        select: DELIVERY_SELECT,
      });
      const deliveries = rows.slice(0, limit);
      const last = deliveries.at(-1);
      return {
        deliveries,
        nextCursor: last ? encodeDeliveryCursor(endpointId, last) : (args.after ?? null),
        hasMore: rows.length > limit,
      };
    },
  }),
}));

builder.mutationFields((t) => ({
  retryWebhookDelivery: t.field({
    type: WebhookDelivery,
    description: "Sends a delivery again now, with a fresh retry schedule (private key)",
    args: { endpointId: t.arg.string({ required: true }), deliveryId: t.arg.string({ required: true }) },
    resolve: async (_root, { endpointId, deliveryId }, ctx) => {
      await retryDelivery(ctx.prisma, ctx.caller.workspaceId, endpointId, deliveryId);
      return deliveryById(ctx, endpointId, deliveryId);
    },
  }),
  replayWebhookEvents: t.field({
    type: WebhookReplay,
    description: `Delivers to the endpoint again every event it subscribes to after a change log cursor (all retained events without one), oldest first, up to 1,000 per call (private key)`,
    args: {
      endpointId: t.arg.string({ required: true }),
      after: t.arg.string({
        required: false,
        description: "A cursor of the change log (events, /v1/events)",
      }),
    },
    resolve: async (_root, { endpointId, after }, ctx) => {
      const scope = eventLogScope(ctx.caller.workspaceId);
      const from = after == null ? null : decodeEventCursor(after, scope);
      const retentionDays = ctx.services.config.events.retentionDays;
      if (from && from.createdAt < retentionCutoff(retentionDays)) throw cursorExpiredError(retentionDays);
      const result = await replayEvents(
        ctx.prisma,
        ctx.caller.workspaceId,
        endpointId,
        from?.position ?? null,
      );
      return {
        replayed: result.replayed,
        nextCursor: result.last ? encodeEventCursor(scope, result.last) : (after ?? null),
        hasMore: result.hasMore,
      };
    },
  }),
  sendWebhookTestEvent: t.field({
    type: WebhookDelivery,
    description: "Sends a webhook.test event to the endpoint, enabled or not (private key)",
    args: { endpointId: t.arg.string({ required: true }) },
    resolve: async (_root, { endpointId }, ctx) => {
      const deliveryId = await sendTestEvent(ctx.prisma, ctx.caller.workspaceId, endpointId);
      return deliveryById(ctx, endpointId, deliveryId);
    },
  }),
}));
