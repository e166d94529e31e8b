// `npx tsx bench/translation-list-requests.ts`: the issue 56 target for lists in a locale, as requests:
// an uncached `GET /v1/posts?locale=fr&fallback=de,en` (a two-locale fallback) against the same list
// without a locale, side by side. The service runs in-process (CACHE=off, NODE_ENV=production) on a
// fresh PostgreSQL bench schema seeded as bench:statement-cpu seeds it (2,000 posts, --posts), plus
// locales fr and de and a French translation for every other post and a German one for every third
// (published but for every tenth), copied from the posts by SQL. One client sends requests one after
// the other, `--runs` of one list then `--runs` of the other per round, alternating; the median of the
// rounds' requests per second is printed for each, and their ratio.
import { parseArgs } from "node:util";
import pg from "pg";
import { createBenchDatabase } from "./database.ts";
import { startInProcessService } from "./in-process-service.ts";
import { log } from "./log.ts";
import { seedBenchDatabase } from "./seed.ts";

const { values } = parseArgs({
  options: {
    posts: { type: "string", default: "2000" },
    runs: { type: "string", default: "200" },
    rounds: { type: "string", default: "5" },
  },
});
const SIZES = { posts: Number(values.posts), categories: 8, tags: 20, authors: 5, fields: 2, paragraphs: 5 };
const RUNS = Number(values.runs);
const ROUNDS = Number(values.rounds);

const TRANSLATE = (locale: string, every: number) => `
INSERT INTO "PostTranslation" ("postId", "workspaceId", locale, slug, title, description, content, status,
                               "publishedAt", "releasedAt", "updatedAt")
SELECT p.id, p."workspaceId", '${locale}', p.slug || '-${locale}', p.title || ' (${locale})', p.description, p.content,
       CASE WHEN n % 10 = 0 THEN 'draft'::"PostStatus" ELSE p.status END, p."publishedAt" + interval '1 minute',
       CASE WHEN n % 10 = 0 THEN NULL ELSE p."releasedAt" END, now()
  FROM (SELECT p.*, row_number() OVER (ORDER BY p.id) AS n FROM "Post" p) p WHERE n % ${every} = 0`;

const database = await createBenchDatabase({
  embedded: false,
  databaseUrl: process.env.DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/test",
});
try {
  const seed = await seedBenchDatabase(database.env, SIZES, { analyze: true });
  const client = new pg.Client({
    connectionString: database.env.DATABASE_URL,
    options: `-c search_path=${database.env.DATABASE_SCHEMA}`,
  });
  await client.connect();
  await client.query(`INSERT INTO "Locale" (id, "workspaceId", code, name, "updatedAt")
    SELECT 'l-' || code || w.id, w.id, code, code, now() FROM "Workspace" w, unnest(ARRAY['fr', 'de']) AS code`);
  await client.query(TRANSLATE("fr", 2));
  await client.query(TRANSLATE("de", 3));
  await client.query(`ANALYZE "PostTranslation"`);
  await client.end();
  log(`${database.location}: ${SIZES.posts} posts, French for half, German for a third`);
  const service = await startInProcessService(database.env);
  const { base } = service;
  const headers = { authorization: `Bearer ${seed.fixtures.publicKey}` };
  const lists = { plain: "/v1/posts?limit=10", localized: "/v1/posts?limit=10&locale=fr&fallback=de,en" };
  const get = async (path: string) => {
    const res = await fetch(`${base}${path}`, { headers });
    const body = await res.text();
    if (res.status !== 200) throw new Error(`${path}: ${res.status} ${body}`);
  };
  for (const path of Object.values(lists)) for (let n = 0; n < 20; n++) await get(path);
  const rates: Record<keyof typeof lists, number[]> = { plain: [], localized: [] };
  for (let round = 0; round < ROUNDS; round++) {
    for (const [name, path] of Object.entries(lists) as [keyof typeof lists, string][]) {
      const started = performance.now();
      for (let n = 0; n < RUNS; n++) await get(path);
      rates[name].push((RUNS * 1000) / (performance.now() - started));
    }
  }
  const median = (list: number[]) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)] ?? 0;
  const plain = median(rates.plain);
  const localized = median(rates.localized);
  console.log(`${SIZES.posts} posts, ${RUNS} requests × ${ROUNDS} rounds, one client, uncached`);
  console.log(`no locale                    ${plain.toFixed(0)} req/s`);
  console.log(
    `locale=fr&fallback=de,en     ${localized.toFixed(0)} req/s   ${(localized / plain).toFixed(2)}×`,
  );
  await service.close();
} finally {
  await database.drop();
}
