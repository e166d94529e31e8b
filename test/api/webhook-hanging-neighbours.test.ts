// A workspace whose receivers hang must not delay another workspace's webhooks (issue 53, the held-out
// check): workspace A has 20 endpoints that accept the connection and never answer, subscribed to every
// event, and writes 8 posts; then workspace B, with one endpoint that answers at once, writes 5 posts one
// after another. Every one of B's deliveries must arrive within 1 s of the request that created its
// post, while A's attempts hang for the whole delivery timeout (the default 10 s). Real service
// processes with the default dispatch settings: two on one PostgreSQL and Redis, one on the embedded
// store (whose database belongs to one process).
//
// Every endpoint is a path of one receiver (one host and port), as endpoints of a hosted webhook
// service are: a sender that pools its connections by host must not make B's delivery wait for a
// socket that A's hanging attempts hold (before issue 53, 16 per host and instance: B's deliveries
// claimed by the instance sending A's waited 7-9 s, until A's attempts timed out).
import { afterAll, describe, expect, it } from "vitest";
import { adminWorkspace, type Instance, instanceGroup } from "../helpers/server-instances.ts";
import { storageMode } from "../helpers/test-database.ts";
import { startWebhookReceiver, type WebhookReceiver } from "../helpers/webhook-receiver.ts";

const HANGING_ENDPOINTS = 20;
const A_POSTS = 8;
const B_POSTS = 5;
const WITHIN_MS = 1_000;
const ENV = { WEBHOOK_ALLOW_PRIVATE_TARGETS: "true", RATE_LIMIT_AUTHENTICATED: "100000" };

type Workspace = Awaited<ReturnType<typeof adminWorkspace>>;

const receivers: WebhookReceiver[] = [];
const groups: ReturnType<typeof instanceGroup>[] = [];
afterAll(async () => {
  await Promise.all(groups.map((group) => group.stop()));
  await Promise.all(receivers.map((receiver) => receiver.close()));
});

async function call(instance: Instance, key: string, path: string, body: unknown) {
  const res = await fetch(`${instance.url}${path}`, {
    method: "POST",
    headers: { authorization: key, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const json = (await res.json()) as Record<string, { id: string }>;
  expect(res.status, JSON.stringify(json)).toBe(201);
  return json;
}

async function category(instance: Instance, ws: Workspace): Promise<string> {
  const body = await call(instance, ws.privateKey, "/v1/categories", { name: "News", slug: "news" });
  return body.category?.id as string;
}

function createPost(instance: Instance, ws: Workspace, categoryId: string, slug: string) {
  return call(instance, ws.privateKey, "/v1/posts", {
    title: slug,
    slug,
    description: `About ${slug}`,
    content: `<p>${slug}</p>`,
    categoryId,
    status: "published",
  });
}

async function hangingNeighbours(instances: readonly [Instance, ...Instance[]]) {
  const at = (i: number) => instances[i % instances.length] as Instance;
  const a = await adminWorkspace(at(0), "A: hanging receivers");
  const b = await adminWorkspace(at(0), "B: one prompt receiver");
  const aCategory = await category(at(0), a);
  const bCategory = await category(at(0), b);
  // One receiver: the paths of A's endpoints are never answered, B's path at once.
  const receiver = await startWebhookReceiver("/b");
  receivers.push(receiver);
  receiver.respond((received, res) => {
    if (received.path === "/b") res.end("ok");
  });
  const origin = new URL(receiver.url).origin;
  for (let i = 0; i < HANGING_ENDPOINTS; i++)
    await call(at(i), a.privateKey, "/v1/webhooks", { url: `${origin}/a/${i}`, events: ["*"] });
  await call(at(0), b.privateKey, "/v1/webhooks", { url: receiver.url, events: ["*"] });

  for (let i = 0; i < A_POSTS; i++) await createPost(at(i), a, aCategory, `a-${i}`);
  const sentAt = new Map<string, number>();
  for (let i = 0; i < B_POSTS; i++) {
    const started = performance.now();
    const body = await createPost(at(i), b, bCategory, `b-${i}`);
    sentAt.set(body.post?.id as string, started);
  }

  // Long enough to see how late a late one is (the hanging attempts end after 10 s).
  const bCreated = (got: WebhookReceiver["received"]) =>
    got.filter((r) => r.path === "/b" && r.json.type === "post.created");
  await receiver.waitFor((got) => bCreated(got).length >= B_POSTS, 15_000).catch(() => undefined);
  const delays = [...sentAt].map(([id, started]) => {
    const got = bCreated(receiver.received).find((r) => r.json.data.id === id);
    return got ? Math.round(got.receivedAt - started) : Number.POSITIVE_INFINITY;
  });
  console.log(`B's post.created deliveries arrived after (ms): ${delays.join(", ")}`);
  for (const [i, delay] of delays.entries()) expect(delay, `B's post ${i}`).toBeLessThan(WITHIN_MS);
}

describe("a workspace whose receivers hang", () => {
  it.runIf(storageMode === "postgres")(
    "delays none of another workspace's deliveries, two instances on PostgreSQL",
    async () => {
      const group = instanceGroup("webhooks-hanging");
      groups.push(group);
      const first = await group.start(ENV);
      const second = await group.start(ENV);
      await hangingNeighbours([first, second]);
    },
    90_000,
  );

  it.runIf(storageMode !== "postgres")(
    "delays none of another workspace's deliveries, one instance on the embedded store",
    async () => {
      const group = instanceGroup("webhooks-hanging");
      groups.push(group);
      await hangingNeighbours([await group.start(ENV)]);
    },
    90_000,
  );
});
