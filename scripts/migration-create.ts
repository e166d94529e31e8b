// `npm run migrate:create -- <name>`: writes the next migration from the difference between
// prisma/migrations and prisma/schema.prisma, like `prisma migrate dev --create-only` would, but
// through the wasm schema engine (see src/db/schema-engine.ts). Review the SQL before committing.
import { existsSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { join, relative } from "node:path";
import { defaultMigrationsDir } from "../src/db/migrations.ts";
import {
  diffMigrationsToSchema,
  MIGRATION_LOCK_CONTENT,
  MIGRATION_LOCK_FILE,
} from "../src/db/schema-engine.ts";

/** Prisma's folder-name timestamp: UTC, YYYYMMDDHHMMSS. */
function timestamp(date: Date): string {
  return date.toISOString().replace(/\D/g, "").slice(0, 14);
}

async function main(): Promise<number> {
  const rawName = process.argv.slice(2).join("_");
  // Like Prisma, keep the name to characters that are safe in a folder name on every OS.
  const name = rawName.replace(/[^A-Za-z0-9_]+/g, "_").replace(/^_+|_+$/g, "");
  if (!name) {
    console.error("Usage: npm run migrate:create -- <name>   (e.g. add_post_subtitle)");
    return 2;
  }

  const sql = await diffMigrationsToSchema();
  if (sql === "") {
    console.log("No changes: prisma/migrations already matches prisma/schema.prisma");
    return 0;
  }

  const folder = join(defaultMigrationsDir, `${timestamp(new Date())}_${name}`);
  await mkdir(defaultMigrationsDir, { recursive: true });
  await mkdir(folder); // fails rather than overwrite a migration created in the same second
  const lockFile = join(defaultMigrationsDir, MIGRATION_LOCK_FILE);
  if (!existsSync(lockFile)) await writeFile(lockFile, MIGRATION_LOCK_CONTENT);
  await writeFile(join(folder, "migration.sql"), sql);
  console.log(`Created ${relative(process.cwd(), join(folder, "migration.sql"))}`);
  return 0;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  },
);
