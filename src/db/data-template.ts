// The template of a new embedded data folder: a PGlite data directory, initialised and migrated once
// (data-template-builder.ts), that a new folder starts as a copy of. PGlite's own first start runs
// initdb (about 2–4 s of WebAssembly, the largest part of a first start) and then every migration;
// copying 40 MB of files takes about 0.1 s. Migrations newer than the template then run through the
// normal runner (migrations.ts), so a template is never wrong, at worst less complete.
//
// Layout: <root>/manifest.json (what the data was made with) and <root>/data/ (the data directory).
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync } from "node:fs";
import { copyFile } from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { MigrationFile } from "./migrations.ts";

/** dist/pgdata-template, found from this file (src/db/ or dist/server/, both two levels down). */
export const defaultTemplateRoot = fileURLToPath(new URL("../../dist/pgdata-template", import.meta.url));

/** PostgreSQL writes PG_VERSION into a data directory first; PGlite resumes a folder that has one. */
const VERSION_FILE = "PG_VERSION";

export interface TemplateManifest {
  /** The PGlite version that made the data: another version may not read it (catalog, WAL format). */
  pglite: string;
  /** The migrations recorded in the template's `_prisma_migrations`, in order. */
  migrations: { name: string; checksum: string }[];
}

export interface DataTemplate {
  dataDir: string;
  manifest: TemplateManifest;
}

export const templatePaths = (root: string) => ({
  manifest: path.join(root, "manifest.json"),
  dataDir: path.join(root, "data"),
});

/** True when `dir` holds no database yet: PGlite would initialise it. */
export const isNewDataFolder = (dir: string): boolean => !existsSync(path.join(dir, VERSION_FILE));

/**
 * The template under `root` if this PGlite can open it and its migrations are the first of `migrations`
 * (same names, same checksums: an edited migration would make the runner refuse the copy), else null.
 */
export function findUsableTemplate(root: string, migrations: MigrationFile[]): DataTemplate | null {
  const paths = templatePaths(root);
  let manifest: TemplateManifest;
  try {
    manifest = JSON.parse(readFileSync(paths.manifest, "utf8")) as TemplateManifest;
  } catch {
    return null;
  }
  if (manifest.pglite !== pgliteVersion() || !existsSync(path.join(paths.dataDir, VERSION_FILE))) return null;
  const isPrefix = manifest.migrations.every(
    (applied, index) =>
      applied.name === migrations[index]?.name && applied.checksum === migrations[index]?.checksum,
  );
  return isPrefix ? { dataDir: paths.dataDir, manifest } : null;
}

/**
 * Copies the template's data into `dir` (which may already hold the service's lock file). PG_VERSION
 * goes last: a copy cut short leaves a folder without it, which the next start copies again.
 *
 * About a thousand small files: copied all at once on libuv's threads rather than by fs.cpSync, whose
 * per-file checks made it several times slower here.
 */
export async function copyTemplate(template: DataTemplate, dir: string): Promise<void> {
  const files: string[] = [];
  const walk = (relative: string) => {
    for (const entry of readdirSync(path.join(template.dataDir, relative), { withFileTypes: true })) {
      const name = path.join(relative, entry.name);
      if (!entry.isDirectory()) files.push(name);
      else {
        mkdirSync(path.join(dir, name), { recursive: true });
        walk(name);
      }
    }
  };
  walk("");
  await Promise.all(
    files
      .filter((name) => name !== VERSION_FILE)
      .map((name) => copyFile(path.join(template.dataDir, name), path.join(dir, name))),
  );
  copyFileSync(path.join(template.dataDir, VERSION_FILE), path.join(dir, VERSION_FILE));
}

/** The installed PGlite's version, from its package.json (its exports do not list that file). */
export function pgliteVersion(): string {
  let dir = path.dirname(createRequire(import.meta.url).resolve("@electric-sql/pglite"));
  for (;;) {
    const file = path.join(dir, "package.json");
    if (existsSync(file)) {
      const pkg = JSON.parse(readFileSync(file, "utf8")) as { name?: string; version?: string };
      if (pkg.name === "@electric-sql/pglite" && pkg.version) return pkg.version;
    }
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error("No package.json of @electric-sql/pglite above its entry");
    dir = parent;
  }
}
