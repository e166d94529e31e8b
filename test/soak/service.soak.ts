// A randomized soak of the service as users run it (TEST_SERVER=process: the built server, started as
// `npm start` starts it, on this run's store): four keys, a private and a public one in each of two
// workspaces, send random operations, valid and invalid, several at once, through REST and GraphQL
// alike: conflicting slugs, two edits of one post at once, deletes of categories in use, uploads,
// webhook endpoint changes (their deliveries go to receivers on 127.0.0.1). Every answer is checked
// as it comes (soak-operations.ts); at the end every acknowledged write is read back against the model,
// and no record of one workspace shows in the other.
//
//   npm run test:soak                            # 60 s, a new seed
//   SOAK_SECONDS=600 SOAK_SEED=1234 npm run test:soak   # longer, or replaying a failed run's seed
//
// Each caller's operations come from the seed (fast-check), so a seed replays every caller's sequence;
// their interleaving is the machine's. A failure names the seed, the caller and the operation.
import fc from "fast-check";
import sharp from "sharp";
import { afterAll, beforeAll, expect, it } from "vitest";
import { openApiChecker } from "../helpers/openapi-check.ts";
import { startTestApp, type TestApp } from "../helpers/test-app.ts";
import { startWebhookReceiver, type WebhookReceiver } from "../helpers/webhook-receiver.ts";
import { emptyWorkspace, RecordLocks } from "./soak-model.ts";
import {
  categoryRows,
  listPosts,
  modelCategoryRows,
  type Operation,
  perform,
  privateOperation,
  publicOperation,
  type SoakContext,
  type SoakWorkspace,
  send,
} from "./soak-operations.ts";

const SECONDS = Number(process.env.SOAK_SECONDS ?? 60);
const SEED = Number(process.env.SOAK_SEED ?? Date.now() % 2 ** 31);
/** Operations each caller keeps in flight. */
const LANES_PER_CALLER = 2;

let app: TestApp;
const receivers: WebhookReceiver[] = [];

beforeAll(async () => {
  app = await startTestApp({ background: true, env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: "true" } });
  for (let i = 0; i < 2; i++) receivers.push(await startWebhookReceiver());
}, 180_000);
afterAll(async () => {
  await app?.close();
  await Promise.all(receivers.map((receiver) => receiver.close()));
});

it(
  `answers every operation of four callers in two workspaces as the contract says, for ${SECONDS} s`,
  async () => {
    const workspaces: SoakWorkspace[] = [];
    for (const index of [0, 1]) {
      const created = await app.workspace(index === 0 ? "Test workspace" : "Second soak workspace");
      workspaces.push({
        index,
        model: emptyWorkspace(created.id),
        privateKey: created.privateKey,
        publicKey: created.publicKey,
        hookUrl: `${receivers[index]?.url}`,
      });
    }
    const statuses = new Map<number, number>();
    const ctx: SoakContext = {
      url: app.url,
      openApi: openApiChecker(),
      locks: new RecordLocks(),
      png: await sharp({ create: { width: 4, height: 4, channels: 3, background: "#3366cc" } })
        .png()
        .toBuffer(),
      count: (status) => statuses.set(status, (statuses.get(status) ?? 0) + 1),
    };
    const callers = workspaces.flatMap((ws, w) => [
      {
        name: `workspace ${w} private key`,
        ws,
        other: workspaces[1 - w] as SoakWorkspace,
        arbitrary: privateOperation,
      },
      {
        name: `workspace ${w} public key`,
        ws,
        other: workspaces[1 - w] as SoakWorkspace,
        arbitrary: publicOperation,
      },
    ]);

    console.log(
      `soak: seed ${SEED}, ${SECONDS} s, ${callers.length} callers × ${LANES_PER_CALLER} lanes (replay: SOAK_SEED=${SEED})`,
    );
    const started = performance.now();
    const deadline = started + SECONDS * 1000;
    let operations = 0;
    let failure: Error | undefined;
    await Promise.all(
      callers.map(async (caller, c) => {
        // The caller's sequence: its own stream of the seed.
        const stream = fc.sample(fc.infiniteStream(caller.arbitrary as fc.Arbitrary<Operation>), {
          seed: SEED + c,
          numRuns: 1,
        })[0] as Iterable<Operation>;
        const next = stream[Symbol.iterator]();
        let index = 0;
        const lane = async () => {
          while (!failure && performance.now() < deadline) {
            const n = index++;
            const op = next.next().value as Operation;
            try {
              await perform(ctx, caller.ws, caller.other, op);
              operations++;
            } catch (error) {
              failure ??= new Error(
                `soak failed (seed ${SEED}, replay with SOAK_SEED=${SEED}) after ${operations} operations in ` +
                  `${seconds(started)} s: ${caller.name}, operation #${n} ${JSON.stringify(op)}\n${describe(error)}`,
              );
            }
          }
        };
        await Promise.all(Array.from({ length: LANES_PER_CALLER }, lane));
      }),
    );
    const summary = `soak: seed ${SEED}, ${operations} operations (${[...statuses.values()].reduce((a, b) => a + b, 0)} requests, statuses ${JSON.stringify(Object.fromEntries(statuses))}) in ${seconds(started)} s`;
    console.log(summary);
    if (failure) throw failure;

    // Every acknowledged write reads back as the model says; nothing of one workspace shows in the other.
    for (const ws of workspaces) {
      const other = workspaces[1 - ws.index] as SoakWorkspace;
      const m = ws.model;
      const categories = await send(ctx, "GET", "/v1/categories?limit=100", ws.privateKey);
      expect(
        categoryRows(categories.body.categories),
        `seed ${SEED}: workspace ${ws.index}'s categories`,
      ).toEqual(modelCategoryRows(m));
      const tags = await send(ctx, "GET", "/v1/tags?limit=100", ws.privateKey);
      expect(
        tags.body.tags
          .map((tag: { id: string; name: string; slug: string }) => [tag.slug, tag.id, tag.name])
          .sort(),
        `seed ${SEED}: workspace ${ws.index}'s tags`,
      ).toEqual([...m.tags].map(([slug, tag]) => [slug, tag.id, tag.name]).sort());
      const posts = await listPosts(ctx, ws.privateKey);
      expect(
        posts
          .map((post) => ({
            slug: post.slug,
            id: post.id,
            title: post.title,
            content: post.content,
            status: post.status,
            category: post.category.slug,
            tags: post.tags.map((tag: { slug: string }) => tag.slug).sort(),
          }))
          .sort((a, b) => a.slug.localeCompare(b.slug)),
        `seed ${SEED}: workspace ${ws.index}'s posts`,
      ).toEqual(
        [...m.posts]
          .map(([slug, post]) => ({ slug, ...post, tags: [...post.tags].sort() }))
          .sort((a, b) => a.slug.localeCompare(b.slug)),
      );
      const webhooks = await send(ctx, "GET", "/v1/webhooks", ws.privateKey);
      expect(
        webhooks.body.webhooks
          .map((hook: { id: string; url: string; events: string[] }) => [hook.id, hook.url, hook.events])
          .sort(),
        `seed ${SEED}: workspace ${ws.index}'s webhook endpoints`,
      ).toEqual([...m.webhooks.values()].map((hook) => [hook.id, hook.url, hook.events]).sort());
      const media = await send(ctx, "GET", "/v1/media?limit=100", ws.privateKey);
      expect(
        media.body.media.map((item: { id: string }) => item.id).sort(),
        `seed ${SEED}: workspace ${ws.index}'s media`,
      ).toEqual([...m.media.values()].map((item) => item.id).sort());

      // The other workspace's records, asked for by id with this workspace's key, do not exist here.
      for (const { id } of [...other.model.categories.values()]) {
        const res = await send(ctx, "GET", `/v1/categories/${id}`, ws.privateKey);
        expect(res.status, `seed ${SEED}: workspace ${ws.index} reads category ${id} of the other`).toBe(404);
      }
      for (const { id } of [...other.model.media.values()]) {
        const res = await send(ctx, "GET", `/v1/media/${id}`, ws.privateKey);
        expect(res.status, `seed ${SEED}: workspace ${ws.index} reads media ${id} of the other`).toBe(404);
      }
      // Every delivery to this workspace's receiver was one of its own events.
      const foreign =
        receivers[ws.index]?.received.filter((received) => received.json.workspaceId !== m.id) ?? [];
      expect(
        foreign.map((received) => received.json.type),
        `seed ${SEED}: deliveries of the other workspace`,
      ).toEqual([]);
    }
  },
  (SECONDS + 120) * 1000,
);

/** An assertion's message with what it compared (vitest's own message elides nested values). */
function describe(error: unknown): string {
  const { message, actual, expected } = error as { message: string; actual?: unknown; expected?: unknown };
  if (actual === undefined && expected === undefined) return message;
  return `${message}\n  actual:   ${JSON.stringify(actual)?.slice(0, 1500)}\n  expected: ${JSON.stringify(expected)?.slice(0, 1500)}`;
}

function seconds(since: number): string {
  return ((performance.now() - since) / 1000).toFixed(1);
}
