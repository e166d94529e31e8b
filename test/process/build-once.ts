// Vitest global setup of TEST_SERVER=process runs (vitest.process.config.ts): `npm run setup`'s builds,
// once for the run — the CLI, the server and the data template — so no test file's process builds them
// (two files rebuilding at once would each pay for it).
import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

export default function setup(): void {
  // A developer re-running files after `npm run setup` (and no change under src/) may skip it.
  if (process.env.TEST_PROCESS_SKIP_BUILD === "1") return;
  const started = performance.now();
  for (const script of ["scripts/prisma-generate.mjs", "scripts/build-cli.mjs", "scripts/build-server.mjs"]) {
    const args = script.includes("prisma-generate") ? [script, "--if-stale"] : [script];
    execFileSync(process.execPath, args, { cwd: ROOT, stdio: "inherit" });
  }
  console.log(
    `built the CLI, the server and the data template in ${((performance.now() - started) / 1000).toFixed(1)} s`,
  );
}
