// /v1/webhooks: the workspace's webhook endpoints (private keys only, reads included). The signing
// secret is in the answers of create and rotate-secret only.
import { z } from "zod";
import type { RestRoute } from "../route.ts";
import { DeleteResultShape } from "../shapes.ts";

const FIELDS =
  "id url description events enabled disabledReason disabledAt previousSecretExpiresAt createdAt updatedAt";

const WebhookEndpointShape = z.object({
  id: z.string(),
  url: z.string(),
  description: z.string().nullable(),
  events: z.array(z.string()),
  enabled: z.boolean(),
  disabledReason: z.string().nullable(),
  disabledAt: z.string().nullable(),
  previousSecretExpiresAt: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
const WebhookEndpointWithSecretShape = WebhookEndpointShape.extend({ secret: z.string() });

const writeFields = {
  url: z.string().min(1),
  events: z.array(z.string()).min(1),
  description: z.string().nullable().optional(),
};
const CreateBody = z.object(writeFields);
const UpdateBody = z.object(writeFields).partial().extend({ enabled: z.boolean().optional() });

/** The endpoint with its secret beside it, as one object (the secret's only appearance). */
function withSecret(result: unknown): Record<string, unknown> {
  const { endpoint, secret } = result as { endpoint: Record<string, unknown>; secret: string };
  return { ...endpoint, secret };
}

export const webhookRoutes: RestRoute[] = [
  {
    name: "listWebhooks",
    method: "get",
    path: "/webhooks",
    tag: "Webhooks",
    summary: "List the workspace's webhook endpoints, oldest first",
    document: `query List { webhookEndpoints { ${FIELDS} } }`,
    variables: () => ({}),
    reshape: (data) => ({ webhooks: data.webhookEndpoints }),
    status: 200,
    response: z.object({ webhooks: z.array(WebhookEndpointShape) }),
  },
  {
    name: "getWebhook",
    method: "get",
    path: "/webhooks/{id}",
    tag: "Webhooks",
    summary: "Get a webhook endpoint (without its secret)",
    document: `query Get($id: String!) { webhookEndpoint(id: $id) { ${FIELDS} } }`,
    variables: ({ params }) => ({ id: params.id }),
    reshape: (data) => ({ webhook: data.webhookEndpoint }),
    status: 200,
    response: z.object({ webhook: WebhookEndpointShape }),
  },
  {
    name: "createWebhook",
    method: "post",
    path: "/webhooks",
    tag: "Webhooks",
    summary:
      'Create a webhook endpoint for event types (or ["*"]); the answer holds its signing secret, shown only this once',
    body: CreateBody,
    document: `mutation Create($input: CreateWebhookEndpointInput!) {
      createWebhookEndpoint(input: $input) { endpoint { ${FIELDS} } secret }
    }`,
    variables: ({ body }) => ({ input: body }),
    reshape: (data) => ({ webhook: withSecret(data.createWebhookEndpoint) }),
    status: 201,
    response: z.object({ webhook: WebhookEndpointWithSecretShape }),
  },
  {
    name: "updateWebhook",
    method: "patch",
    path: "/webhooks/{id}",
    tag: "Webhooks",
    summary: "Update a webhook endpoint's url, events, description or enabled",
    body: UpdateBody,
    document: `mutation Update($id: String!, $input: UpdateWebhookEndpointInput!) {
      updateWebhookEndpoint(id: $id, input: $input) { ${FIELDS} }
    }`,
    variables: ({ params, body }) => ({ id: params.id, input: body }),
    reshape: (data) => ({ webhook: data.updateWebhookEndpoint }),
    status: 200,
    response: z.object({ webhook: WebhookEndpointShape }),
  },
  {
    name: "deleteWebhook",
    method: "delete",
    path: "/webhooks/{id}",
    tag: "Webhooks",
    summary: "Delete a webhook endpoint",
    document: "mutation Delete($id: String!) { deleteWebhookEndpoint(id: $id) { id } }",
    variables: ({ params }) => ({ id: params.id }),
    reshape: (data) => data.deleteWebhookEndpoint,
    status: 200,
    response: DeleteResultShape,
  },
  {
    name: "rotateWebhookSecret",
    method: "post",
    path: "/webhooks/{id}/rotate-secret",
    tag: "Webhooks",
    summary: "Give a webhook endpoint a new signing secret; the previous one keeps signing for 24 hours",
    document: `mutation Rotate($id: String!) {
      rotateWebhookEndpointSecret(id: $id) { endpoint { ${FIELDS} } secret }
    }`,
    variables: ({ params }) => ({ id: params.id }),
    reshape: (data) => ({ webhook: withSecret(data.rotateWebhookEndpointSecret) }),
    status: 200,
    response: z.object({ webhook: WebhookEndpointWithSecretShape }),
  },
];
