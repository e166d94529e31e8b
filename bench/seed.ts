// Seeds the bench dataset with the project's own batched seeder and reads back what the scenarios
// need (keys, slugs, ids, custom field definitions).
import { createWorkspace } from "../src/auth/workspaces.ts";
import { openRuntime } from "../src/bootstrap.ts";
import { loadConfig } from "../src/config.ts";
import type { SqlExecutor } from "../src/db/sql-executor.ts";
import type { PrismaClient } from "../src/generated/prisma/client.ts";
import { silentLogger } from "../src/logger.ts";
import { type SeedSizes, seedWorkspace } from "../src/seed/seed-workspace.ts";

export interface BenchFixtures {
  workspaceId: string;
  publicKey: string;
  privateKey: string;
  /** A published post about 500 posts deep, for the single-post routes. */
  postSlug: string;
  categorySlugs: string[];
  tagSlugs: string[];
  searchText: string;
  categoryIds: string[];
  tagIds: string[];
  authorIds: string[];
  fields: { key: string; type: string; options: string[] }[];
}

export interface SeedReport {
  sizes: SeedSizes;
  /** Time of `seedWorkspace` (every record through the content services, as the API writes them). */
  seedMs: number;
  /** Time of VACUUM ANALYZE and CHECKPOINT afterwards (planner statistics, visibility map, pages written). */
  vacuumMs: number;
  fixtures: BenchFixtures;
}

/** 10,000 posts of ~3.5 KB HTML (8 paragraphs), 50 categories, 200 tags, 20 authors, 5 custom fields. */
export function benchSizes(posts: number): SeedSizes {
  return { posts, categories: 50, tags: 200, authors: 20, fields: 5, paragraphs: 8 };
}

export async function seedBenchDatabase(
  env: Record<string, string>,
  sizes: SeedSizes,
  options: { analyze: boolean } = { analyze: true },
): Promise<SeedReport> {
  const config = loadConfig({ ...env, LOG_LEVEL: "silent" });
  const runtime = await openRuntime(config, silentLogger);
  try {
    const prisma = runtime.db.prisma;
    // Statistics missing: autovacuum must not analyse the bench tables behind the run's back.
    if (!options.analyze && runtime.db.kind === "postgres") await disableAutovacuum(runtime.db.sql);
    const { workspace, publicKey, privateKey } = await createWorkspace(prisma, "Bench");
    const seedStarted = performance.now();
    await seedWorkspace(prisma, workspace.id, sizes);
    const seedMs = performance.now() - seedStarted;
    const vacuumStarted = performance.now();
    // As autovacuum would have by now: planner statistics, and a visibility map for index-only scans.
    if (options.analyze) await runtime.db.sql.exec("VACUUM ANALYZE");
    // The seed's dirty pages written now: left to the periodic checkpoint (5 minutes after the last, by
    // default), their writing falls into whichever routes are being measured by then.
    await runtime.db.sql.exec("CHECKPOINT");
    const vacuumMs = performance.now() - vacuumStarted;
    const fixtures = await readFixtures(prisma, workspace.id, { publicKey, privateKey });
    return { sizes, seedMs, vacuumMs, fixtures };
  } finally {
    await runtime.close();
  }
}

async function disableAutovacuum(sql: SqlExecutor): Promise<void> {
  const tables = await sql.query<{ name: string }>(
    `SELECT c.relname AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = current_schema() AND c.relkind = 'r'`,
  );
  for (const { name } of tables) await sql.exec(`ALTER TABLE "${name}" SET (autovacuum_enabled = false)`);
}

/** When the service last analysed `Post` (null: never), for the report of a run without statistics. */
export async function postsAnalysedAt(env: Record<string, string>): Promise<Date | null> {
  const config = loadConfig({ ...env, LOG_LEVEL: "silent" });
  const runtime = await openRuntime(config, silentLogger);
  try {
    const [row] = await runtime.db.sql.query<{ at: Date | null }>(
      `SELECT greatest(last_analyze, last_autoanalyze) AS at FROM pg_stat_user_tables
        WHERE schemaname = current_schema() AND relname = 'Post'`,
    );
    return row?.at ?? null;
  } finally {
    await runtime.close();
  }
}

async function readFixtures(
  prisma: PrismaClient,
  workspaceId: string,
  keys: { publicKey: string; privateKey: string },
): Promise<BenchFixtures> {
  const inWorkspace = { workspaceId };
  const [post, categories, tags, authors, fields] = await Promise.all([
    prisma.post.findFirst({
      where: { ...inWorkspace, status: "published" },
      orderBy: [{ publishedAt: "desc" }, { id: "asc" }],
      skip: 500,
      select: { slug: true },
    }),
    prisma.category.findMany({
      where: inWorkspace,
      orderBy: { id: "asc" },
      select: { id: true, slug: true },
    }),
    prisma.tag.findMany({ where: inWorkspace, orderBy: { id: "asc" }, select: { id: true, slug: true } }),
    prisma.author.findMany({ where: inWorkspace, orderBy: { id: "asc" }, select: { id: true } }),
    prisma.field.findMany({
      where: inWorkspace,
      orderBy: { position: "asc" },
      select: { key: true, type: true, options: { select: { value: true }, orderBy: { position: "asc" } } },
    }),
  ]);
  const fallbackPost = await prisma.post.findFirst({
    where: { ...inWorkspace, status: "published" },
    select: { slug: true },
  });
  const slug = post?.slug ?? fallbackPost?.slug;
  if (!slug || categories.length < 2 || tags.length < 2 || authors.length < 1) {
    throw new Error("Seeding produced too little data for the bench scenarios");
  }
  return {
    workspaceId,
    ...keys,
    postSlug: slug,
    categorySlugs: [categories[3 % categories.length]!.slug, categories[7 % categories.length]!.slug],
    tagSlugs: [tags[5 % tags.length]!.slug, tags[11 % tags.length]!.slug],
    // A subject of the demo titles and bodies: matches about one post in eight.
    searchText: "webhooks",
    categoryIds: categories.slice(0, 5).map((c) => c.id),
    tagIds: tags.slice(0, 20).map((t) => t.id),
    authorIds: authors.map((a) => a.id),
    fields: fields.map((f) => ({ key: f.key, type: f.type, options: f.options.map((o) => o.value) })),
  };
}

/** Stand-in fixtures for listing the scenarios without a database (`--list`). */
export function exampleFixtures(): BenchFixtures {
  return {
    workspaceId: "",
    publicKey: "",
    privateKey: "",
    postSlug: "slug",
    categorySlugs: ["a", "b"],
    tagSlugs: ["c", "d"],
    searchText: "webhooks",
    categoryIds: [],
    tagIds: [],
    authorIds: [],
    fields: [],
  };
}
