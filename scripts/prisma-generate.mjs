// Runs `prisma generate`. The Prisma CLI insists on locating its native schema-engine binary even
// though generate never runs it, and this machine cannot download it: point it at any existing file.
//
// `--if-stale` (used before `npm test`; `npm start` asks isGeneratedClientCurrent() itself) skips the
// run when the generated client was made from this very schema by this very Prisma version: a start
// then costs no generation (~2.4 s). A stamp of both is written beside the client after every
// successful run.
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const stampFile = `${root}src/generated/prisma/.generated-from`;

function sourceStamp() {
  const prismaVersion = createRequire(import.meta.url)("prisma/package.json").version;
  return createHash("sha256")
    .update(readFileSync(`${root}prisma/schema.prisma`))
    .update(`\0${prismaVersion}`)
    .digest("hex");
}

/** True when the generated client was made from the current schema by the installed Prisma (a few ms). */
export function isGeneratedClientCurrent() {
  return existsSync(stampFile) && readFileSync(stampFile, "utf8") === sourceStamp();
}

/** Runs `prisma generate` with `args`; returns its exit status. */
export function generate(args = []) {
  const env = { ...process.env, PRISMA_HIDE_UPDATE_MESSAGE: "1" };
  if (!env.PRISMA_SCHEMA_ENGINE_BINARY || !existsSync(env.PRISMA_SCHEMA_ENGINE_BINARY)) {
    env.PRISMA_SCHEMA_ENGINE_BINARY = fileURLToPath(import.meta.url);
  }
  const stamp = sourceStamp();
  const result = spawnSync("npx", ["prisma", "generate", ...args], { stdio: "inherit", env, cwd: root });
  if (result.status === 0) writeFileSync(stampFile, stamp);
  return result.status ?? 1;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const ifStale = process.argv.includes("--if-stale");
  if (ifStale && isGeneratedClientCurrent()) process.exit(0);
  process.exit(generate(process.argv.slice(2).filter((arg) => arg !== "--if-stale")));
}
