// Builds the CLI into dist/cli/ (esbuild: one bundle of src/cli/main.ts, its lazy imports split into
// chunks, npm packages left as imports), so a command runs compiled JavaScript instead of compiling
// TypeScript on every run (tsx: about a second more per command).
//
// `node scripts/build-cli.mjs` builds; bin/content-gateway.mjs calls ensureCliBuilt(), which rebuilds
// only when a file under src/ is newer than the last build (a stat of each, a few milliseconds).
// dist/cli/ sits two levels below the project like src/<module>/, so paths the code finds from its own
// file (prisma/migrations, prisma/schema.prisma: `new URL("../../prisma/…", import.meta.url)`) still hold.
import { existsSync, mkdirSync, readdirSync, renameSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const outdir = path.join(root, "dist", "cli");
export const cliEntry = path.join(outdir, "main.js");
const stampFile = path.join(outdir, ".built");

function newestSourceTime(dir) {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    const time = entry.isDirectory() ? newestSourceTime(full) : statSync(full).mtimeMs;
    if (time > newest) newest = time;
  }
  return newest;
}

export async function buildCli() {
  // Loaded only when building: esbuild is a dev tool (it comes with tsx).
  const { build } = await import("esbuild");
  const { outputFiles } = await build({
    entryPoints: [path.join(root, "src", "cli", "main.ts")],
    outdir,
    bundle: true,
    splitting: true,
    format: "esm",
    platform: "node",
    target: "node20",
    packages: "external",
    sourcemap: true,
    logLevel: "warning",
    write: false,
  });
  // Each file is written beside and renamed into place: two CLIs rebuilding at once (parallel test files)
  // write the same content, and neither ever imports a half-written file. Chunk names carry a content hash.
  mkdirSync(outdir, { recursive: true });
  for (const file of outputFiles) writeAtomically(file.path, file.contents);
  writeAtomically(stampFile, new Date().toISOString());
}

function writeAtomically(file, contents) {
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, contents);
  renameSync(temporary, file);
}

export async function ensureCliBuilt() {
  const built = existsSync(stampFile) && existsSync(cliEntry) ? statSync(stampFile).mtimeMs : 0;
  if (built < newestSourceTime(path.join(root, "src"))) await buildCli();
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) await buildCli();
