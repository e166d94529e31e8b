// `npm run bench:start`: how long the server takes from the start command to `listening`, and to its
// first answer (GET /ready, which reads the database), on the embedded database, on a new data folder (first start: the data template is copied in) and on an
// existing one (a restart), through `npm start` as a user types it and through `node
// scripts/start-server.mjs` (the same without npm's own start-up). Prints every run and the median,
// and exits 1 when a median of `npm start` is above the target (issue 19: under 3 s).
//
//   npm run bench:start -- [--runs N] [--target-ms MS]
//
// A first, unmeasured start makes sure the server build and the data template are current, so the
// runs measure starts, not builds.
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { type StartCommand, timeStart } from "./start-timing.ts";

const { values } = parseArgs({
  options: { runs: { type: "string", default: "5" }, "target-ms": { type: "string", default: "3000" } },
});
const runs = Number(values.runs);
const targetMs = Number(values["target-ms"]);

const COMMANDS: StartCommand[] = [
  { label: "npm start", command: "npm", args: ["start"] },
  { label: "node scripts/start-server.mjs", command: process.execPath, args: ["scripts/start-server.mjs"] },
];

const scratch = mkdtempSync(path.join(tmpdir(), "bench-start-"));
let folders = 0;
const newDataFolder = () => path.join(scratch, `data-${folders++}`);

const median = (list: number[]) => {
  const sorted = [...list].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? (sorted[middle] ?? 0) : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
};
const load = () =>
  loadavg()
    .map((value) => value.toFixed(2))
    .join(" ");

try {
  console.log(`Node ${process.version}, load average ${load()}; ${runs} runs each, target ${targetMs} ms`);
  await timeStart(COMMANDS[0] as StartCommand, newDataFolder());

  const results: { label: string; folder: "new" | "existing"; ms: number[]; answered: number[] }[] = [];
  for (const start of COMMANDS) {
    const fresh = {
      label: start.label,
      folder: "new" as const,
      ms: [] as number[],
      answered: [] as number[],
    };
    const again = {
      label: start.label,
      folder: "existing" as const,
      ms: [] as number[],
      answered: [] as number[],
    };
    for (let run = 0; run < runs; run++) {
      const dataDir = newDataFolder();
      for (const [result, times] of [
        [fresh, await timeStart(start, dataDir)],
        [again, await timeStart(start, dataDir)],
      ] as const) {
        result.ms.push(times.listening);
        result.answered.push(times.firstAnswer);
      }
    }
    results.push(fresh, again);
  }

  console.log(
    "\ncommand                         data folder   listening   first answer   listening runs (ms)",
  );
  for (const { label, folder, ms, answered } of results) {
    const runsText = ms.map((value) => Math.round(value)).join(" ");
    console.log(
      `${label.padEnd(32)}${folder.padEnd(14)}${`${Math.round(median(ms))} ms`.padEnd(12)}${`${Math.round(median(answered))} ms`.padEnd(15)}${runsText}`,
    );
  }
  console.log(`\nload average at the end: ${load()}`);

  const slow = results.filter((result) => result.label === "npm start" && median(result.ms) > targetMs);
  if (slow.length > 0) {
    console.error(`Above the ${targetMs} ms target: ${slow.map((result) => result.folder).join(", ")}`);
    process.exitCode = 1;
  }
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
