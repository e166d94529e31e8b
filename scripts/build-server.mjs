// Builds the server into dist/server/ (esbuild-bundle.mjs), so `npm start` runs compiled JavaScript with
// plain node instead of compiling TypeScript on every start (tsx: seconds on a busy machine), and then
// the data template new embedded data folders start from (src/db/data-template.ts).
//
// `node scripts/build-server.mjs` (`npm run build:server`, part of `npm run setup`) builds both;
// `--no-template` only the code. scripts/start-server.mjs calls ensureServerBuilt(), which rebuilds the
// code only when a file under src/ is newer than the last build; the template it leaves to the server,
// which builds one itself when a new data folder finds none it can use.
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { bundle, isStale, root } from "./esbuild-bundle.mjs";

const outdir = path.join(root, "dist", "server");
export const serverEntry = path.join(outdir, "server.js");
const templateBuilderEntry = path.join(outdir, "data-template-builder.js");

export const buildServer = () =>
  bundle(
    {
      server: "src/server.ts",
      "data-template-builder": "src/db/data-template-builder.ts",
      // The embedded database's thread (src/db/embedded-thread-supervisor.ts): an entry of its own, beside server.js.
      "embedded-database-thread": "src/db/embedded-database-thread.ts",
    },
    outdir,
  );

export async function ensureServerBuilt() {
  if (isStale(outdir, serverEntry)) await buildServer();
}

/** Builds the data template (initdb and every migration, in a folder of its own): a few seconds. */
export async function buildTemplate() {
  const { buildDataTemplate } = await import(pathToFileURL(templateBuilderEntry).href);
  return buildDataTemplate();
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  let started = performance.now();
  await buildServer();
  console.log(`dist/server built in ${Math.round(performance.now() - started)} ms`);
  if (!process.argv.includes("--no-template")) {
    started = performance.now();
    const manifest = await buildTemplate();
    console.log(
      `dist/pgdata-template built in ${Math.round(performance.now() - started)} ms ` +
        `(PGlite ${manifest.pglite}, ${manifest.migrations.length} migrations)`,
    );
  }
}
