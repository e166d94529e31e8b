// /v1/webhooks/{id}/deliveries, …/retry, /replay and /test: an endpoint's delivery log and the ways to
// send again (private keys only). A retry, a replay or a test answers 202: the attempt is made by the
// dispatcher right after, and shows in the delivery log.
import { z } from "zod";
import { DELIVERY_STATUSES } from "../../domain/webhook-deliveries.ts";
import type { RestRoute } from "../route.ts";
import { graphqlEnum } from "./conventions.ts";

const DELIVERY_FIELDS =
  "id endpointId eventId eventType status nextAttemptAt createdAt updatedAt attempts { attemptedAt durationMs statusCode error responseBody }";

const AttemptShape = z.object({
  attemptedAt: z.string(),
  durationMs: z.number().int(),
  statusCode: z.number().int().nullable(),
  error: z.string().nullable(),
  responseBody: z.string().nullable(),
});
const DeliveryShape = z.object({
  id: z.string(),
  endpointId: z.string(),
  eventId: z.string(),
  eventType: z.string(),
  status: z.enum(DELIVERY_STATUSES),
  nextAttemptAt: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
  attempts: z.array(AttemptShape),
});

/** GraphQL's enum value (SUCCEEDED) as the contract's lowercase word, in place. */
function lowercaseStatus(delivery: unknown): unknown {
  const row = delivery as { status: string };
  row.status = row.status.toLowerCase();
  return row;
}

const ReplayBody = z.object({ after: z.string().max(256).nullable().optional() }).strict();

export const webhookDeliveryRoutes: RestRoute[] = [
  {
    name: "listWebhookDeliveries",
    method: "get",
    path: "/webhooks/{id}/deliveries",
    tag: "Webhooks",
    summary:
      "An endpoint's deliveries, newest first, each with every attempt (status code, duration, error, first 2 KB of the answer)",
    query: [
      {
        name: "status",
        kind: "enum",
        values: DELIVERY_STATUSES,
        description: "Only deliveries in this state",
      },
      { name: "limit", kind: "integer", min: 1, max: 100, default: 20, description: "Deliveries per answer" },
      { name: "after", kind: "string", maxLength: 256, description: "A `nextCursor` of an earlier answer" },
    ],
    document: `query Deliveries($id: String!, $status: WebhookDeliveryStatus, $first: Int, $after: String) {
      webhookDeliveries(endpointId: $id, status: $status, first: $first, after: $after) {
        deliveries { ${DELIVERY_FIELDS} } nextCursor hasMore
      }
    }`,
    variables: ({ params, query }) => ({
      id: params.id,
      status: graphqlEnum(query.status),
      first: query.limit,
      after: query.after,
    }),
    reshape: (data) => {
      const page = data.webhookDeliveries as {
        deliveries: unknown[];
        nextCursor: string | null;
        hasMore: boolean;
      };
      page.deliveries.forEach(lowercaseStatus);
      return page;
    },
    status: 200,
    response: z.object({
      deliveries: z.array(DeliveryShape),
      nextCursor: z.string().nullable(),
      hasMore: z.boolean(),
    }),
  },
  {
    name: "retryWebhookDelivery",
    method: "post",
    path: "/webhooks/{id}/deliveries/{deliveryId}/retry",
    tag: "Webhooks",
    summary: "Send a delivery again now, with a fresh retry schedule (409 while the endpoint is disabled)",
    document: `mutation Retry($id: String!, $deliveryId: String!) {
      retryWebhookDelivery(endpointId: $id, deliveryId: $deliveryId) { ${DELIVERY_FIELDS} }
    }`,
    variables: ({ params }) => ({ id: params.id, deliveryId: params.deliveryId }),
    reshape: (data) => ({ delivery: lowercaseStatus(data.retryWebhookDelivery) }),
    status: 202,
    response: z.object({ delivery: DeliveryShape }),
  },
  {
    name: "replayWebhookEvents",
    method: "post",
    path: "/webhooks/{id}/replay",
    tag: "Webhooks",
    summary:
      "Deliver again every subscribed event after a change log cursor (`after`; all retained events without it), up to 1,000 per call: continue from `nextCursor` while `hasMore`",
    body: ReplayBody,
    document: `mutation Replay($id: String!, $after: String) {
      replayWebhookEvents(endpointId: $id, after: $after) { replayed nextCursor hasMore }
    }`,
    variables: ({ params, body }) => ({ id: params.id, after: (body as z.infer<typeof ReplayBody>).after }),
    reshape: (data) => data.replayWebhookEvents,
    status: 202,
    errors: { 410: "Cursor expired: older than the retention (EVENT_RETENTION_DAYS)" },
    response: z.object({
      replayed: z.number().int(),
      nextCursor: z.string().nullable(),
      hasMore: z.boolean(),
    }),
  },
  {
    name: "testWebhook",
    method: "post",
    path: "/webhooks/{id}/test",
    tag: "Webhooks",
    summary: "Send a webhook.test event to the endpoint (enabled or not); follow it in the delivery log",
    document: `mutation Test($id: String!) { sendWebhookTestEvent(endpointId: $id) { ${DELIVERY_FIELDS} } }`,
    variables: ({ params }) => ({ id: params.id }),
    reshape: (data) => ({ delivery: lowercaseStatus(data.sendWebhookTestEvent) }),
    status: 202,
    response: z.object({ delivery: DeliveryShape }),
  },
];
