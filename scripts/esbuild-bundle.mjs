// What the CLI's and the server's builds share: one esbuild bundle of a TypeScript entry (its lazy
// imports split into chunks, npm packages left as imports), written so that a process importing the
// output while another rebuilds never reads a half-written file, and a stamp that tells whether any
// file under src/ changed since.
//
// The outputs sit two levels below the project (dist/<name>/) like src/<module>/, so paths the code
// finds from its own file (`new URL("../../prisma/…", import.meta.url)`) hold in both.
import { existsSync, mkdirSync, readdirSync, renameSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const root = fileURLToPath(new URL("..", import.meta.url));

function newestSourceTime(dir) {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    const time = entry.isDirectory() ? newestSourceTime(full) : statSync(full).mtimeMs;
    if (time > newest) newest = time;
  }
  return newest;
}

/** True when `outdir` holds no complete build of `entryFile`, or a file under src/ is newer (a stat of each). */
export function isStale(outdir, entryFile) {
  const stampFile = path.join(outdir, ".built");
  const built = existsSync(stampFile) && existsSync(entryFile) ? statSync(stampFile).mtimeMs : 0;
  return built < newestSourceTime(path.join(root, "src"));
}

/**
 * Bundles `entries` ({ output name: path under src/ }) into `outdir` (as `<output name>.js`, all at its
 * top level, so every file keeps the depth the paths above rely on), then stamps it.
 */
export async function bundle(entries, outdir) {
  // Loaded only when building: esbuild is a dev tool (it comes with tsx).
  const { build } = await import("esbuild");
  const { outputFiles } = await build({
    entryPoints: Object.entries(entries).map(([out, entry]) => ({ in: path.join(root, entry), out })),
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
  // Each file is written beside and renamed into place: two processes rebuilding at once (parallel test
  // files) write the same content, and neither ever imports a half-written file. Chunk names carry a
  // content hash.
  mkdirSync(outdir, { recursive: true });
  for (const file of outputFiles) writeAtomically(file.path, file.contents);
  writeAtomically(path.join(outdir, ".built"), new Date().toISOString());
}

function writeAtomically(file, contents) {
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, contents);
  renameSync(temporary, file);
}
