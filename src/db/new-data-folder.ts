// A new embedded data folder starts as a copy of the data template (data-template.ts) instead of
// PGlite's initdb and every migration: the first start of a fresh install then takes about as long as
// any other. With no template this install can use (none built yet, another PGlite version, an edited
// migration), one is built first, once; if that fails (a read-only install), PGlite initialises the
// folder itself as it always did.
import { copyTemplate, defaultTemplateRoot, findUsableTemplate, isNewDataFolder } from "./data-template.ts";
import { buildDataTemplate } from "./data-template-builder.ts";
import { defaultMigrationsDir, readMigrations } from "./migrations.ts";

export interface NewDataFolderOptions {
  /** Where the template lives [dist/pgdata-template]. */
  templateRoot?: string;
  migrationsDir?: string;
  log?: (msg: string) => void;
  warn?: (msg: string, error: unknown) => void;
}

/** Fills `dir` from the template when it holds no database yet; otherwise leaves it alone. */
export async function startFromTemplate(dir: string, options: NewDataFolderOptions = {}): Promise<void> {
  if (!isNewDataFolder(dir)) return;
  const root = options.templateRoot ?? defaultTemplateRoot;
  const migrationsDir = options.migrationsDir ?? defaultMigrationsDir;
  const migrations = await readMigrations(migrationsDir);
  let template = findUsableTemplate(root, migrations);
  if (!template) {
    options.log?.(`No usable data template in ${root}: building it (once per install)`);
    try {
      await buildDataTemplate(root, { migrationsDir });
    } catch (error) {
      options.warn?.("Building the data template failed; initialising the database without it", error);
      return;
    }
    template = findUsableTemplate(root, migrations);
    if (!template) return;
  }
  await copyTemplate(template, dir);
  const fromTemplate = template.manifest.migrations.length;
  options.log?.(
    `Created the database from the data template (${fromTemplate} of ${migrations.length} migrations applied)`,
  );
}
