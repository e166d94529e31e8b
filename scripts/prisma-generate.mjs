// Runs `prisma generate`. The Prisma CLI insists on locating its native schema-engine binary even
// though generate never runs it, and this machine cannot download it: point it at any existing file.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

const env = { ...process.env, PRISMA_HIDE_UPDATE_MESSAGE: "1" };
if (!env.PRISMA_SCHEMA_ENGINE_BINARY || !existsSync(env.PRISMA_SCHEMA_ENGINE_BINARY)) {
  env.PRISMA_SCHEMA_ENGINE_BINARY = fileURLToPath(import.meta.url);
}
const result = spawnSync("npx", ["prisma", "generate", ...process.argv.slice(2)], { stdio: "inherit", env });
process.exit(result.status ?? 1);
