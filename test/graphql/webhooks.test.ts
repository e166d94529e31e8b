// Webhook endpoints in GraphQL: the same operations as /v1/webhooks (create with the secret once,
// read without it, update, rotate, delete), private keys only, the workspace's own endpoints only,
// private targets refused as BAD_USER_INPUT.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp, type TestWorkspace } from "../helpers/test-app.ts";
import { type GraphQLClient, graphqlClient, isoDate } from "./support/graphql.ts";

let app: TestApp;
let ws: TestWorkspace;
let writer: GraphQLClient;
let reader: GraphQLClient;
let stranger: GraphQLClient;

const FIELDS = "id url description events enabled disabledReason previousSecretExpiresAt createdAt updatedAt";
const CREATE = `mutation($input: CreateWebhookEndpointInput!) {
  createWebhookEndpoint(input: $input) { endpoint { ${FIELDS} } secret }
}`;
const GET = `query($id: String!) { webhookEndpoint(id: $id) { ${FIELDS} } }`;
const LIST = `query { webhookEndpoints { ${FIELDS} } }`;
const UPDATE = `mutation($id: String!, $input: UpdateWebhookEndpointInput!) {
  updateWebhookEndpoint(id: $id, input: $input) { ${FIELDS} }
}`;
const ROTATE = `mutation($id: String!) { rotateWebhookEndpointSecret(id: $id) { endpoint { ${FIELDS} } secret } }`;
const DELETE = "mutation($id: String!) { deleteWebhookEndpoint(id: $id) { id } }";

const FORBIDDEN = {
  message: "Webhook endpoints need a private API key; public keys are embedded in websites",
  extensions: { code: "FORBIDDEN", http: { status: 403 }, requiredScope: "webhooks:manage" },
};

beforeAll(async () => {
  app = await startTestApp();
  ws = await app.workspace("Blog");
  const other = await app.workspace("Other");
  writer = graphqlClient(app, ws.privateKey);
  reader = graphqlClient(app, ws.publicKey);
  stranger = graphqlClient(app, other.privateKey);
});
afterAll(async () => app?.close());

async function create(input: Record<string, unknown>, client = writer) {
  return (await client.ok(CREATE, { input })).createWebhookEndpoint as {
    endpoint: { id: string } & Record<string, unknown>;
    secret: string;
  };
}

describe("createWebhookEndpoint", () => {
  it("creates an endpoint and returns its secret beside it", async () => {
    const { endpoint, secret } = await create({
      url: "https://hooks.example.com/gql",
      events: ["author.updated"],
      description: "Authors",
    });
    expect(endpoint).toEqual({
      id: expect.any(String),
      url: "https://hooks.example.com/gql",
      description: "Authors",
      events: ["author.updated"],
      enabled: true,
      disabledReason: null,
      previousSecretExpiresAt: null,
      createdAt: isoDate,
      updatedAt: isoDate,
    });
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
  });

  it("refuses a private target and an unknown event type as BAD_USER_INPUT naming the fields", async () => {
    const error = await writer.fails(CREATE, {
      input: { url: "http://169.254.169.254/latest", events: ["post.created", "post.nope"] },
    });
    expect(error.extensions).toMatchObject({
      code: "BAD_USER_INPUT",
      http: { status: 400 },
      details: [
        {
          field: "url",
          message: "Must not point at a loopback, private, link-local or other non-public address",
        },
        { field: "events.1", message: expect.stringMatching(/^Must be "\*" or one of /) },
      ],
    });
  });

  it("is refused to public keys", async () => {
    const error = await reader.fails(CREATE, { input: { url: "https://x.example.com/", events: ["*"] } });
    expect(error).toMatchObject(FORBIDDEN);
  });
});

describe("webhookEndpoint and webhookEndpoints", () => {
  it("read the workspace's endpoints; the secret is no field of an endpoint", async () => {
    const { endpoint } = await create({ url: "https://read.example.com/", events: ["*"] });
    expect((await writer.ok(GET, { id: endpoint.id })).webhookEndpoint).toEqual(endpoint);
    expect((await writer.ok(LIST)).webhookEndpoints).toContainEqual(endpoint);
    const error = await writer.fails(`query($id: String!) { webhookEndpoint(id: $id) { secret } }`, {
      id: endpoint.id,
    });
    expect(error.message).toMatch(/WebhookEndpoint\.secret/);
    expect(error.extensions).toMatchObject({ http: { status: 400 } });
  });

  it("are refused to public keys, reads included", async () => {
    const { endpoint } = await create({ url: "https://public.example.com/", events: ["*"] });
    expect(await reader.fails(GET, { id: endpoint.id })).toMatchObject(FORBIDDEN);
    expect(await reader.fails(LIST)).toMatchObject(FORBIDDEN);
  });

  it("never show another workspace's endpoint", async () => {
    const { endpoint } = await create({ url: "https://mine.example.com/", events: ["*"] });
    const error = await stranger.fails(GET, { id: endpoint.id });
    expect(error.extensions).toMatchObject({ code: "NOT_FOUND", http: { status: 404 } });
    const theirs = (await stranger.ok(LIST)).webhookEndpoints as { id: string }[];
    expect(theirs.map((w) => w.id)).not.toContain(endpoint.id);
  });
});

describe("updateWebhookEndpoint, rotateWebhookEndpointSecret, deleteWebhookEndpoint", () => {
  it("update what is given, rotate keeps the previous secret signing for 24 h, delete removes", async () => {
    const { endpoint, secret } = await create({ url: "https://life.example.com/", events: ["tag.created"] });
    const updated = (await writer.ok(UPDATE, { id: endpoint.id, input: { enabled: false, events: ["*"] } }))
      .updateWebhookEndpoint;
    expect(updated).toMatchObject({ url: "https://life.example.com/", events: ["*"], enabled: false });

    const rotated = (await writer.ok(ROTATE, { id: endpoint.id })).rotateWebhookEndpointSecret;
    expect(rotated.secret).not.toBe(secret);
    const overlap = Date.parse(rotated.endpoint.previousSecretExpiresAt) - Date.now();
    expect(Math.abs(overlap - 24 * 3_600_000)).toBeLessThan(10_000);
    const stored = await app.db.prisma.webhookEndpoint.findUniqueOrThrow({ where: { id: endpoint.id } });
    expect(stored).toMatchObject({ secret: rotated.secret, previousSecret: secret });

    expect((await writer.ok(DELETE, { id: endpoint.id })).deleteWebhookEndpoint).toEqual({ id: endpoint.id });
    expect((await writer.fails(GET, { id: endpoint.id })).extensions).toMatchObject({ code: "NOT_FOUND" });
  });

  it("refuse a private target on update and leave the endpoint as it was", async () => {
    const { endpoint } = await create({ url: "https://stay.example.com/", events: ["*"] });
    const error = await writer.fails(UPDATE, { id: endpoint.id, input: { url: "http://[::1]:8080/" } });
    expect(error.extensions).toMatchObject({ code: "BAD_USER_INPUT", http: { status: 400 } });
    expect((await writer.ok(GET, { id: endpoint.id })).webhookEndpoint.url).toBe("https://stay.example.com/");
  });

  it("are refused to public keys and reach no endpoint of another workspace", async () => {
    const { endpoint, secret } = await create({ url: "https://guarded.example.com/", events: ["*"] });
    expect(await reader.fails(UPDATE, { id: endpoint.id, input: { enabled: false } })).toMatchObject(
      FORBIDDEN,
    );
    expect(await reader.fails(ROTATE, { id: endpoint.id })).toMatchObject(FORBIDDEN);
    expect(await reader.fails(DELETE, { id: endpoint.id })).toMatchObject(FORBIDDEN);
    for (const [query, variables] of [
      [UPDATE, { id: endpoint.id, input: { enabled: false } }],
      [ROTATE, { id: endpoint.id }],
      [DELETE, { id: endpoint.id }],
    ] as const) {
      const error = await stranger.fails(query, variables);
      expect(error.extensions).toMatchObject({ code: "NOT_FOUND", http: { status: 404 } });
    }
    const stored = await app.db.prisma.webhookEndpoint.findUniqueOrThrow({ where: { id: endpoint.id } });
    expect(stored).toMatchObject({ enabled: true, secret, previousSecret: null });
  });
});
