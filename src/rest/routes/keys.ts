// /v1/keys: the workspace's API keys, for a private key with keys:manage (issue 57). A secret is in the
// answers of create and rotate only; no key can make or rotate a key wider than its own scopes.
import { z } from "zod";
import { CreateKeyBody, RevokeKeyBody, RotateKeyBody } from "../../auth/key-request-bodies.ts";
import type { RestRoute } from "../route.ts";

const FIELDS =
  "id name kind displayHint scopes allowedOrigins allowedAddresses createdAt expiresAt lastUsedAt lastUsedFrom revokedAt revokedReason rotatedFromId graceEndsAt";

const ApiKeyShape = z.object({
  id: z.string(),
  name: z.string(),
  kind: z.enum(["public", "private"]),
  displayHint: z.string(),
  scopes: z.array(z.string()),
  allowedOrigins: z.array(z.string()),
  allowedAddresses: z.array(z.string()),
  createdAt: z.string(),
  expiresAt: z.string().nullable(),
  lastUsedAt: z.string().nullable(),
  lastUsedFrom: z.string().nullable(),
  revokedAt: z.string().nullable(),
  revokedReason: z.string().nullable(),
  rotatedFromId: z.string().nullable(),
  graceEndsAt: z.string().nullable(),
});
const ApiKeyWithSecretShape = z.object({ key: z.string(), apiKey: ApiKeyShape });

export const keyRoutes: RestRoute[] = [
  {
    name: "listKeys",
    method: "get",
    path: "/keys",
    tag: "Keys",
    summary: "List the workspace's API keys, oldest first (never their secrets)",
    document: `query List { apiKeys { ${FIELDS} } }`,
    variables: () => ({}),
    reshape: (data) => ({ keys: data.apiKeys }),
    status: 200,
    response: z.object({ keys: z.array(ApiKeyShape) }),
  },
  {
    name: "createKey",
    method: "post",
    path: "/keys",
    tag: "Keys",
    summary:
      "Create an API key with a name, scopes (default: the caller's) and an expiry; its secret is shown only this once",
    body: CreateKeyBody,
    document: `mutation Create($input: CreateApiKeyInput!) { createApiKey(input: $input) { key apiKey { ${FIELDS} } } }`,
    variables: ({ body }) => ({ input: body }),
    reshape: (data) => data.createApiKey,
    status: 201,
    response: ApiKeyWithSecretShape,
  },
  {
    name: "rotateKey",
    method: "post",
    path: "/keys/{id}/rotate",
    tag: "Keys",
    summary:
      "Make a new secret for a key; the old one keeps working for graceSeconds (default 86400), then is refused",
    body: RotateKeyBody,
    document: `mutation Rotate($id: String!, $graceSeconds: Int) {
      rotateApiKey(id: $id, graceSeconds: $graceSeconds) { key apiKey { ${FIELDS} } replaced { ${FIELDS} } }
    }`,
    variables: ({ params, body }) => ({
      id: params.id,
      graceSeconds: (body as z.infer<typeof RotateKeyBody>).graceSeconds ?? null,
    }),
    reshape: (data) => data.rotateApiKey,
    status: 201,
    response: ApiKeyWithSecretShape.extend({ replaced: ApiKeyShape }),
  },
  {
    name: "revokeKey",
    method: "post",
    path: "/keys/{id}/revoke",
    tag: "Keys",
    summary:
      "Revoke a key (with withRotation, also the key it was rotated from or into); refused at once on every instance",
    body: RevokeKeyBody,
    document: `mutation Revoke($id: String!, $reason: String, $withRotation: Boolean) {
      revokeApiKey(id: $id, reason: $reason, withRotation: $withRotation) { ${FIELDS} }
    }`,
    variables: ({ params, body }) => {
      const { reason, withRotation } = body as z.infer<typeof RevokeKeyBody>;
      return { id: params.id, reason: reason ?? null, withRotation: withRotation ?? null };
    },
    reshape: (data) => ({ key: data.revokeApiKey }),
    status: 200,
    response: z.object({ key: ApiKeyShape }),
  },
];
