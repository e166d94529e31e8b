// `npx tsx bench/translation-list-sql.ts`: the storage decision of post translations (issue 56, stage 0;
// docs/decisions.md). A list's count and first page of ids, as readPostPage asks for them, timed as
// prepared statements on one PostgreSQL connection: today's (no locale) against option A (the default
// locale's translation in Post's columns, the others in PostTranslation) and option B (every translation
// in PostTranslation), each with `locale=fr` and the fallback chain fr → de → en. Its own schema with the
// columns and indexes the lists use, 2,000 posts (--posts), a French translation for half of them and a
// German one for a third (published but for every tenth), dropped afterwards. Prints, per statement, the
// median over the rounds of the mean time of `--runs` runs (backend CPU from /proc when it is readable,
// else wall time), the statements alternating within each round.
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import pg from "pg";

const { values } = parseArgs({
  options: {
    posts: { type: "string", default: "2000" },
    runs: { type: "string", default: "300" },
    rounds: { type: "string", default: "5" },
    url: { type: "string", default: process.env.DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/test" },
  },
});
const POSTS = Number(values.posts);
const RUNS = Number(values.runs);
const ROUNDS = Number(values.rounds);
const SCHEMA = `bench_l10n_${process.pid}`;

const SETUP = `
CREATE TYPE "PostStatus" AS ENUM ('published', 'draft');
CREATE TABLE "Post" (id text PRIMARY KEY, "workspaceId" text NOT NULL, slug text NOT NULL, title text NOT NULL,
  status "PostStatus" NOT NULL, "publishedAt" timestamp(3) NOT NULL, "categoryId" text NOT NULL);
CREATE INDEX ON "Post" ("workspaceId", status, "publishedAt");
CREATE INDEX ON "Post" ("workspaceId", "publishedAt");
CREATE INDEX "Post_published" ON "Post" ("workspaceId", "publishedAt") WHERE status = 'published';
CREATE TABLE "PostTranslation" ("postId" text NOT NULL, "workspaceId" text NOT NULL, locale text NOT NULL,
  slug text NOT NULL, title text NOT NULL, status "PostStatus" NOT NULL, "publishedAt" timestamp(3) NOT NULL,
  PRIMARY KEY ("postId", locale));
CREATE INDEX ON "PostTranslation" ("workspaceId", locale, "publishedAt");
CREATE INDEX "PostTranslation_published" ON "PostTranslation" ("workspaceId", locale, "publishedAt") WHERE status = 'published';
INSERT INTO "Post" SELECT 'p' || i, 'w1', 'post-' || i, 'Post ' || i,
  (CASE WHEN i % 10 = 0 THEN 'draft' ELSE 'published' END)::"PostStatus",
  timestamp '2026-01-01' + i * interval '1 hour', 'c' || (i % 8) FROM generate_series(1, ${POSTS}) i;
-- Option A's table: French for every other post, German for every third.
INSERT INTO "PostTranslation" SELECT id, 'w1', 'fr', slug || '-fr', title, status, "publishedAt" + interval '1 minute'
  FROM "Post" WHERE substr(id, 2)::int % 2 = 0;
INSERT INTO "PostTranslation" SELECT id, 'w1', 'de', slug || '-de', title, status, "publishedAt" + interval '2 minutes'
  FROM "Post" WHERE substr(id, 2)::int % 3 = 0;
`;

const NOW = "2027-01-01T00:00:00.000Z";
const at = `($2::timestamptz AT TIME ZONE 'UTC')`;
const live = (alias: string) => `${alias}.status = 'published' AND ${alias}."publishedAt" <= ${at}`;

/** Today's list: published, newest first, count and first page of 10 ids. */
const TODAY = `SELECT (SELECT count(*)::int FROM "Post" p WHERE p."workspaceId" = $1 AND ${live("p")}) AS total,
  array_to_json(ARRAY(SELECT p.id FROM "Post" p WHERE p."workspaceId" = $1 AND ${live("p")}
                      ORDER BY p."publishedAt" DESC, p.id LIMIT 10)) AS ids`;

/**
 * Option A, locale fr, fallback de then the default (Post's own columns): the served translation of each
 * post is the first of the chain that exists and is public; filters, count and order run on it.
 */
const OPTION_A = `WITH served AS MATERIALIZED (
  SELECT p.id, COALESCE(fr."publishedAt", de."publishedAt", p."publishedAt") AS "publishedAt"
    FROM "Post" p
    LEFT JOIN "PostTranslation" fr ON fr."postId" = p.id AND fr.locale = 'fr' AND ${live("fr")}
    LEFT JOIN "PostTranslation" de ON de."postId" = p.id AND de.locale = 'de' AND ${live("de")}
   WHERE p."workspaceId" = $1 AND (fr."postId" IS NOT NULL OR de."postId" IS NOT NULL OR (${live("p")})))
SELECT (SELECT count(*)::int FROM served) AS total,
  array_to_json(ARRAY(SELECT id FROM served ORDER BY "publishedAt" DESC, id LIMIT 10)) AS ids`;

/**
 * Option A again, as three streams each in an index's order (the French translations, the German ones
 * whose post has no public French one, the posts with neither), so that the page's LIMIT can stop early.
 */
const notPublicIn = (locale: string, post: string) =>
  `NOT EXISTS (SELECT 1 FROM "PostTranslation" x WHERE x."postId" = ${post} AND x.locale = '${locale}' AND ${live("x")})`;
const OPTION_A_STREAMS = `WITH served AS (
  SELECT fr."postId" AS id, fr."publishedAt" FROM "PostTranslation" fr
   WHERE fr."workspaceId" = $1 AND fr.locale = 'fr' AND ${live("fr")}
  UNION ALL
  SELECT de."postId", de."publishedAt" FROM "PostTranslation" de
   WHERE de."workspaceId" = $1 AND de.locale = 'de' AND ${live("de")} AND ${notPublicIn("fr", 'de."postId"')}
  UNION ALL
  SELECT p.id, p."publishedAt" FROM "Post" p
   WHERE p."workspaceId" = $1 AND ${live("p")} AND ${notPublicIn("fr", "p.id")} AND ${notPublicIn("de", "p.id")})
SELECT (SELECT count(*)::int FROM served) AS total,
  array_to_json(ARRAY(SELECT id FROM served ORDER BY "publishedAt" DESC, id LIMIT 10)) AS ids`;

/** Option B without a locale: the default's translations alone (here the `en` rows of PostTranslation). */
const OPTION_B_DEFAULT = `SELECT (SELECT count(*)::int FROM "PostTranslation" t WHERE t."workspaceId" = $1 AND t.locale = 'en' AND ${live("t")}) AS total,
  array_to_json(ARRAY(SELECT t."postId" FROM "PostTranslation" t WHERE t."workspaceId" = $1 AND t.locale = 'en' AND ${live("t")}
                      ORDER BY t."publishedAt" DESC, t."postId" LIMIT 10)) AS ids`;

/** Option B, locale fr, fallback de then en: the first public translation of each post in chain order. */
const OPTION_B = `WITH served AS MATERIALIZED (
  SELECT DISTINCT ON (t."postId") t."postId" AS id, t."publishedAt"
    FROM "PostTranslation" t
    JOIN unnest($3::text[]) WITH ORDINALITY AS chain(locale, position) ON chain.locale = t.locale
   WHERE t."workspaceId" = $1 AND ${live("t")}
   ORDER BY t."postId", chain.position)
SELECT (SELECT count(*)::int FROM served) AS total,
  array_to_json(ARRAY(SELECT id FROM served ORDER BY "publishedAt" DESC, id LIMIT 10)) AS ids`;

const STATEMENTS: Record<string, { text: string; values: unknown[] }> = {
  today: { text: TODAY, values: ["w1", NOW] },
  "A fr→de→en": { text: OPTION_A, values: ["w1", NOW] },
  "A streams": { text: OPTION_A_STREAMS, values: ["w1", NOW] },
  "B no locale": { text: OPTION_B_DEFAULT, values: ["w1", NOW] },
  "B fr→de→en": { text: OPTION_B, values: ["w1", NOW, ["fr", "de", "en"]] },
};

function backendCpuMs(pid: number): number | null {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.split(" ") ?? [];
    // utime and stime are fields 14 and 15 of stat (11 and 12 after the command's closing parenthesis).
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return null;
  }
}

async function main(): Promise<void> {
  const client = new pg.Client({ connectionString: values.url });
  await client.connect();
  try {
    await client.query(`CREATE SCHEMA "${SCHEMA}"; SET search_path TO "${SCHEMA}"`);
    await client.query(SETUP);
    // Option B's rows of the default locale: every post's own columns as an `en` translation.
    await client.query(
      `INSERT INTO "PostTranslation" SELECT id, "workspaceId", 'en', slug, title, status, "publishedAt" FROM "Post"`,
    );
    await client.query("ANALYZE");
    const [{ pid }] = (await client.query<{ pid: number }>("SELECT pg_backend_pid() AS pid")).rows as [
      { pid: number },
    ];
    const cpu = backendCpuMs(pid) !== null;
    // Same answers from A and B (the served set does not depend on where the translations are).
    const answers = new Map<string, string>();
    for (const [name, statement] of Object.entries(STATEMENTS)) {
      const { rows } = await client.query({ name, text: statement.text, values: statement.values });
      answers.set(name, JSON.stringify(rows[0]));
    }
    if (answers.get("today") !== answers.get("B no locale"))
      throw new Error("B's default list differs from today's");
    for (const other of ["A streams", "B fr→de→en"])
      if (answers.get("A fr→de→en") !== answers.get(other)) throw new Error(`${other} serves another list`);
    const samples = new Map<string, number[]>(Object.keys(STATEMENTS).map((name) => [name, []]));
    for (let round = 0; round < ROUNDS; round++) {
      for (const [name, statement] of Object.entries(STATEMENTS)) {
        const cpuBefore = backendCpuMs(pid) ?? 0;
        const started = performance.now();
        for (let run = 0; run < RUNS; run++)
          await client.query({ name, text: statement.text, values: statement.values });
        const spent = cpu ? (backendCpuMs(pid) ?? 0) - cpuBefore : performance.now() - started;
        samples.get(name)?.push(spent / RUNS);
      }
    }
    const median = (list: number[]) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)] ?? 0;
    const today = median(samples.get("today") ?? []);
    console.log(
      `${POSTS} posts, ${RUNS} runs × ${ROUNDS} rounds, ${cpu ? "backend CPU" : "wall time"} per statement (ms)`,
    );
    for (const [name, list] of samples) {
      const ms = median(list);
      console.log(`${name.padEnd(14)} ${ms.toFixed(3)}  ${(today / ms).toFixed(2)}× today's speed`);
    }
    console.log(`answer of the fr→de→en list: ${answers.get("A fr→de→en")}`);
  } finally {
    await client.query(`DROP SCHEMA IF EXISTS "${SCHEMA}" CASCADE`).catch(() => {});
    await client.end();
  }
}

await main();
