// Webhook endpoints: type, queries and mutations. Private keys only, reads included: an endpoint's URL
// and subscriptions are the workspace's integration settings, not content for websites. The signing
// secret is never a field of the endpoint; create and rotate return it beside the endpoint, once.
import {
  createWebhookEndpoint,
  deleteWebhookEndpoint,
  rotateWebhookEndpointSecret,
  updateWebhookEndpoint,
} from "../../content/deliveries/webhook-endpoints.ts";
import { NotFoundError } from "../../domain/errors.ts";
import type { WebhookEndpointWrite } from "../../domain/inputs.ts";
import { builder } from "../builder.ts";
import type { GraphQLContext } from "../context.ts";
import { DeleteResult } from "./enums.ts";

/** What the endpoint type reads: every column but the secrets. */
const PUBLIC_COLUMNS = {
  id: true,
  url: true,
  description: true,
  events: true,
  enabled: true,
  disabledReason: true,
  disabledAt: true,
  previousSecretExpiresAt: true,
  createdAt: true,
  updatedAt: true,
} as const;

interface WebhookEndpointRow {
  id: string;
  url: string;
  description: string | null;
  events: string[];
  enabled: boolean;
  disabledReason: string | null;
  disabledAt: Date | null;
  previousSecretExpiresAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

async function endpointById(ctx: GraphQLContext, id: string): Promise<WebhookEndpointRow> {
  const row = await ctx.prisma.webhookEndpoint.findFirst({
    where: { id, workspaceId: ctx.caller.workspaceId },
    select: PUBLIC_COLUMNS,
  });
  if (!row) throw new NotFoundError("Webhook endpoint", id);
  return row;
}

function targetPolicy(ctx: GraphQLContext) {
  return { allowPrivate: ctx.services.config.webhooks.allowPrivateTargets };
}

export const WebhookEndpoint = builder.objectRef<WebhookEndpointRow>("WebhookEndpoint").implement({
  description: "Where the workspace's events are delivered, signed with the endpoint's secret",
  fields: (t) => ({
    id: t.exposeID("id"),
    url: t.exposeString("url"),
    description: t.exposeString("description", { nullable: true }),
    events: t.exposeStringList("events", { description: 'Event types delivered, or ["*"] for all' }),
    enabled: t.exposeBoolean("enabled"),
    disabledReason: t.exposeString("disabledReason", {
      nullable: true,
      description: "Why the service disabled the endpoint; null when enabled or disabled by a client",
    }),
    disabledAt: t.expose("disabledAt", {
      type: "DateTime",
      nullable: true,
      description:
        "When the service disabled the endpoint (a 410 Gone, or every attempt failing for WEBHOOK_DISABLE_AFTER); null when enabled or disabled by a client",
    }),
    previousSecretExpiresAt: t.field({
      type: "DateTime",
      nullable: true,
      description: "Until when the secret before the last rotation still signs deliveries, if it still does",
      resolve: (row) =>
        row.previousSecretExpiresAt !== null && row.previousSecretExpiresAt > new Date()
          ? row.previousSecretExpiresAt
          : null,
    }),
    createdAt: t.expose("createdAt", { type: "DateTime" }),
    updatedAt: t.expose("updatedAt", { type: "DateTime" }),
  }),
});

const WebhookEndpointWithSecret = builder
  .objectRef<{ endpoint: WebhookEndpointRow; secret: string }>("WebhookEndpointWithSecret")
  .implement({
    description: "An endpoint and its new signing secret: shown only in this answer",
    fields: (t) => ({
      endpoint: t.field({ type: WebhookEndpoint, resolve: (parent) => parent.endpoint }),
      secret: t.exposeString("secret", {
        description: "whsec_… (Standard Webhooks form): verify deliveries with it; it is not shown again",
      }),
    }),
  });

const webhookWriteFields = (
  t: Parameters<Parameters<typeof builder.inputType>[1]["fields"]>[0],
  required: boolean,
) => ({
  url: t.string({ required, description: "http or https; loopback and private addresses are refused" }),
  events: t.stringList({ required, description: 'Event types to deliver, or ["*"] for all' }),
  description: t.string({ required: false }),
});

const CreateWebhookEndpointInput = builder.inputType("CreateWebhookEndpointInput", {
  fields: (t) => webhookWriteFields(t, true),
});
const UpdateWebhookEndpointInput = builder.inputType("UpdateWebhookEndpointInput", {
  fields: (t) => ({ ...webhookWriteFields(t, false), enabled: t.boolean({ required: false }) }),
});

builder.queryFields((t) => ({
  webhookEndpoint: t.field({
    type: WebhookEndpoint,
    description: "A webhook endpoint of the workspace (private key)",
    args: { id: t.arg.string({ required: true }) },
    resolve: (_root, { id }, ctx) => {
      return endpointById(ctx, id);
    },
  }),
  webhookEndpoints: t.field({
    type: [WebhookEndpoint],
    description: "The workspace's webhook endpoints, oldest first (private key)",
    resolve: (_root, _args, ctx) => {
      return ctx.prisma.webhookEndpoint.findMany({
        where: { workspaceId: ctx.caller.workspaceId },
        orderBy: [{ createdAt: "asc" }, { id: "asc" }],
        select: PUBLIC_COLUMNS,
      });
    },
  }),
}));

builder.mutationFields((t) => ({
  createWebhookEndpoint: t.field({
    type: WebhookEndpointWithSecret,
    args: { input: t.arg({ type: CreateWebhookEndpointInput, required: true }) },
    resolve: async (_root, { input }, ctx) => {
      const created = await createWebhookEndpoint(
        ctx.prisma,
        ctx.caller.workspaceId,
        input as WebhookEndpointWrite & { url: string; events: string[] },
        targetPolicy(ctx),
      );
      return { endpoint: await endpointById(ctx, created.id), secret: created.secret };
    },
  }),
  updateWebhookEndpoint: t.field({
    type: WebhookEndpoint,
    args: {
      id: t.arg.string({ required: true }),
      input: t.arg({ type: UpdateWebhookEndpointInput, required: true }),
    },
    resolve: async (_root, { id, input }, ctx) => {
      await updateWebhookEndpoint(ctx.prisma, ctx.caller.workspaceId, id, input, targetPolicy(ctx));
      return endpointById(ctx, id);
    },
  }),
  deleteWebhookEndpoint: t.field({
    type: DeleteResult,
    args: { id: t.arg.string({ required: true }) },
    resolve: async (_root, { id }, ctx) => {
      return { id: await deleteWebhookEndpoint(ctx.prisma, ctx.caller.workspaceId, id) };
    },
  }),
  rotateWebhookEndpointSecret: t.field({
    type: WebhookEndpointWithSecret,
    description: "A new signing secret; the previous one keeps signing for 24 hours",
    args: { id: t.arg.string({ required: true }) },
    resolve: async (_root, { id }, ctx) => {
      const rotated = await rotateWebhookEndpointSecret(ctx.prisma, ctx.caller.workspaceId, id);
      return { endpoint: await endpointById(ctx, rotated.id), secret: rotated.secret };
    },
  }),
}));
