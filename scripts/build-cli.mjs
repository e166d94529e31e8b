// Builds the CLI into dist/cli/ (esbuild-bundle.mjs), so a command runs compiled JavaScript instead of
// compiling TypeScript on every run (tsx: about a second more per command).
//
// `node scripts/build-cli.mjs` builds; bin/content-gateway.mjs calls ensureCliBuilt(), which rebuilds
// only when a file under src/ is newer than the last build (a stat of each, a few milliseconds).
import path from "node:path";
import { fileURLToPath } from "node:url";
import { bundle, isStale, root } from "./esbuild-bundle.mjs";

const outdir = path.join(root, "dist", "cli");
export const cliEntry = path.join(outdir, "main.js");

// The worker that export and import run in (src/cli/command-in-worker.ts) and the embedded database's
// thread (src/db/embedded-thread-supervisor.ts) are entries of their own, beside main.js.
export const buildCli = () =>
  bundle(
    {
      main: "src/cli/main.ts",
      "command-worker": "src/cli/command-worker.ts",
      "embedded-database-thread": "src/db/embedded-database-thread.ts",
    },
    outdir,
  );

export async function ensureCliBuilt() {
  if (isStale(outdir, cliEntry)) await buildCli();
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) await buildCli();
