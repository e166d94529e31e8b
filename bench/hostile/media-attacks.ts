// Issue 60 items 7–9 against a running server: transforms that would enlarge a tiny image (or write a
// many-frame animation padded to a huge box), a burst of distinct new variants from one address, and
// variants of an original that is deleted (before and while they are computed).
import { readdirSync } from "node:fs";
import path from "node:path";
import sharp from "sharp";
import { makeImage } from "../../test/media/helpers/make-files.ts";
import { makeAnimatedGif } from "../../test/media/helpers/make-images.ts";
import { type Target, timed, type UploadedMedia, upload, type Verdict } from "./target.ts";

interface Answer {
  status: number;
  bytes: Buffer;
  headers: Headers;
  ms: number;
}

async function get(url: string): Promise<Answer> {
  const started = performance.now();
  const response = await fetch(url);
  const bytes = Buffer.from(await response.arrayBuffer());
  return { status: response.status, bytes, headers: response.headers, ms: performance.now() - started };
}

/** Files under `folder` (none when it does not exist): a variant's folder may outlive its files. */
function filesUnder(folder: string): number {
  try {
    return readdirSync(folder, { recursive: true, withFileTypes: true }).filter((entry) => entry.isFile())
      .length;
  } catch {
    return 0;
  }
}

/** A transform of an original answers quickly within this (its own work is milliseconds). */
const QUICKLY_MS = 2_000;

/**
 * Item 7: boxes far beyond a 10×10 PNG and a 10×10 GIF of 14 frames (contain and cover to 3840), and a
 * 14-frame 16×2000 strip padded to 2048² (56 Mpx to write, over the output cap): small answers, or a
 * 422, each in milliseconds.
 */
export async function enlargingTransforms(target: Target): Promise<Verdict[]> {
  const tinyPng = await sharp({
    create: { width: 10, height: 10, channels: 4, background: { r: 255, g: 0, b: 0, alpha: 1 } },
  })
    .png()
    .toBuffer();
  const png = await upload(target, tinyPng, "tiny.png");
  const gif = await upload(target, await makeAnimatedGif(14, 10, 10), "tiny.gif");
  const strip = await upload(target, await makeAnimatedGif(14, 16, 2000), "strip.gif");
  const cases: {
    media: UploadedMedia;
    name: string;
    query: string;
    expected: [number, number, number, number];
  }[] = [
    { media: png, name: "10×10 PNG", query: "w=3840&h=3840&fit=contain", expected: [200, 10, 10, 1] },
    { media: png, name: "10×10 PNG", query: "w=3840&h=3840&fit=cover", expected: [200, 10, 10, 1] },
    {
      media: gif,
      name: "10×10 GIF, 14 frames",
      query: "w=3840&h=3840&fit=contain",
      expected: [200, 10, 10, 14],
    },
    {
      media: strip,
      name: "16×2000 GIF, 14 frames",
      query: "w=2048&h=2048&fit=contain",
      expected: [422, 0, 0, 0],
    },
  ];
  const verdicts: Verdict[] = [];
  for (const { media, name, query, expected } of cases) {
    const answer = await get(`${media.url}?${query}`);
    let seen: [number, number, number, number] = [answer.status, 0, 0, 0];
    if (answer.status === 200) {
      const meta = await sharp(answer.bytes, { animated: true }).metadata();
      seen = [answer.status, meta.width ?? 0, meta.pageHeight ?? meta.height ?? 0, meta.pages ?? 1];
    }
    const describe = ([status, width, height, frames]: typeof seen) =>
      status === 200 ? `200 ${width}×${height}×${frames} frames` : `${status}`;
    verdicts.push({
      attack: `7 ${name} ?${query}`,
      expected: `${describe(expected)} within ${QUICKLY_MS} ms`,
      seen: `${describe(seen)}, ${answer.bytes.byteLength} bytes${answer.status === 422 ? ` ${answer.bytes.toString("utf8").slice(0, 120)}` : ""}`,
      ms: answer.ms,
      ok: seen.join() === expected.join() && answer.ms < QUICKLY_MS,
    });
  }
  return verdicts;
}

/** Distinct transforms of a 640×480 image: every width up to 640 in four formats, webp in two qualities. */
function distinctQueries(): string[] {
  const widths = [16, 32, 48, 64, 96, 128, 256, 384, 640];
  const queries: string[] = [];
  for (const format of ["webp", "jpeg", "png", "avif"])
    for (const width of widths) queries.push(`w=${width}&fm=${format}`);
  for (const width of widths) queries.push(`w=${width}&fm=webp&q=50`);
  return queries;
}

/**
 * Item 8: `distinctQueries()` new variants asked by this one address in one rate-limit window, eight
 * at a time: at most MEDIA_TRANSFORM_RATE_LIMIT computed, the rest 429 with Retry-After; a stored
 * variant still answers 200 after (it costs nothing).
 */
export async function transformBurst(target: Target, limit: number): Promise<Verdict> {
  const media = await upload(target, await makeImage("png", 640, 480), "burst.png");
  const queries = distinctQueries();
  const statuses = new Map<number, number>();
  let retryAfterMissing = 0;
  let firstComputed: string | undefined;
  const [, ms] = await timed(async () => {
    let next = 0;
    const worker = async () => {
      while (next < queries.length) {
        const query = queries[next++] as string;
        const answer = await get(`${media.url}?${query}`);
        statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
        if (answer.status === 429 && !answer.headers.get("retry-after")) retryAfterMissing += 1;
        if (answer.status === 200) firstComputed ??= query;
      }
    };
    await Promise.all(Array.from({ length: 8 }, worker));
  });
  const computed = statuses.get(200) ?? 0;
  const limited = statuses.get(429) ?? 0;
  const storedAgain = firstComputed ? (await get(`${media.url}?${firstComputed}`)).status : 0;
  const counts = [...statuses].map(([status, count]) => `${count}×${status}`).join(", ");
  return {
    attack: `8 a burst of ${queries.length} distinct new variants from one address`,
    expected: `≤ ${limit}×200, the rest 429 with Retry-After, a stored variant 200 after`,
    seen: `${counts}, Retry-After missing on ${retryAfterMissing}, stored variant ${storedAgain}`,
    ms,
    ok:
      computed > 0 &&
      computed <= limit &&
      computed + limited === queries.length &&
      retryAfterMissing === 0 &&
      storedAgain === 200,
  };
}

/**
 * Item 9: an original's variants, then the original deleted: every variant URL and the original answer
 * 404 and no variant file is left in the store. Then again with the delete sent while six variants
 * of a larger original are being computed.
 */
export async function deletedOriginal(target: Target): Promise<Verdict[]> {
  const queries = ["w=64", "w=128&fm=webp", "w=96&h=96&fit=cover", "w=256&fm=jpeg", "w=384&fm=avif", "w=48"];
  const remove = (media: UploadedMedia) =>
    target.app.request("DELETE", `/v1/media/${media.id}`, { key: target.ws.privateKey });
  const variantFolder = (media: UploadedMedia) => {
    const storage = target.app.config.media.storage;
    if (storage.kind !== "local") throw new Error("expected local media storage");
    const key = new URL(media.url).pathname.replace(/^\/media\//, "");
    return path.join(storage.dir, key.replace(/\.[a-z]+$/, ""));
  };
  const afterwards = async (media: UploadedMedia) => {
    const statuses = await Promise.all(
      [...queries.map((query) => `${media.url}?${query}`), media.url].map(
        async (url) => (await get(url)).status,
      ),
    );
    return { statuses, leftOnDisk: filesUnder(variantFolder(media)) > 0 };
  };

  const verdicts: Verdict[] = [];
  const before = await upload(target, await makeImage("png", 640, 480), "variants-then-delete.png");
  const [made, madeMs] = await timed(() =>
    Promise.all(queries.map(async (query) => (await get(`${before.url}?${query}`)).status)),
  );
  const deleted = (await remove(before)).status;
  const after = await afterwards(before);
  verdicts.push({
    attack: "9 variants made, then the original deleted",
    expected: `${queries.length}×200, delete 200, then ${queries.length + 1}×404, no variant file left`,
    seen: `${made.join(" ")}, delete ${deleted}, then ${after.statuses.join(" ")}, variant files ${after.leftOnDisk ? "LEFT" : "gone"}`,
    ms: madeMs,
    ok:
      made.every((status) => status === 200) &&
      deleted === 200 &&
      after.statuses.every((status) => status === 404) &&
      !after.leftOnDisk,
  });

  // The delete sent 50, 150 and 300 ms into the computation of six variants of a 4000×3000 original
  // (two at a time: hundreds of milliseconds in all), so it lands before, between and after some.
  for (const delayMs of [50, 150, 300]) {
    const racing = await upload(
      target,
      await makeImage("png", 4000, 3000),
      `deleted-after-${delayMs}-ms.png`,
    );
    const [raced, racedMs] = await timed(async () => {
      const inFlight = Promise.all(
        queries.map(async (query) => (await get(`${racing.url}?${query}`)).status),
      );
      await new Promise((resolve) => setTimeout(resolve, delayMs));
      const deletedStatus = (await remove(racing)).status;
      return { during: await inFlight, deletedStatus };
    });
    // A variant stored after the delete is removed once its write is seen; give that a moment.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const racedAfter = await afterwards(racing);
    verdicts.push({
      attack: `9 the original deleted ${delayMs} ms into computing 6 variants`,
      expected: `delete 200; after: ${queries.length + 1}×404, no variant file left`,
      seen: `during ${raced.during.join(" ")}, delete ${raced.deletedStatus}, after ${racedAfter.statuses.join(" ")}, variant files ${racedAfter.leftOnDisk ? "LEFT" : "gone"}`,
      ms: racedMs,
      ok:
        raced.deletedStatus === 200 &&
        racedAfter.statuses.every((status) => status === 404) &&
        !racedAfter.leftOnDisk,
    });
  }
  return verdicts;
}
