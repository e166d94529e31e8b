// Prints where a V8 CPU profile (.cpuprofile, from `node --cpu-prof`) spends its time: the top functions
// by self time, self time per package / project file, and inclusive time of the project's own functions.
//   npx tsx bench/summarize-profile.ts <file.cpuprofile | directory> [--top 30] [--skip-ms 0]
// A directory means its largest profile (the main thread; tsx's loader thread writes a small one too).
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

export interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
  columnNumber: number;
}

interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

export interface ProfileEntry {
  name: string;
  where: string;
  ms: number;
  /** Share of the busy (non-idle) time. */
  percent: number;
}

export interface ProfileSummary {
  file: string;
  skippedMs: number;
  totalMs: number;
  idleMs: number;
  busyMs: number;
  gcMs: number;
  topSelf: ProfileEntry[];
  selfByArea: ProfileEntry[];
  /** Inclusive time of functions in the project's src/ (each counted once per sample). */
  projectInclusive: ProfileEntry[];
}

const PROJECT_ROOT = fileURLToPath(new URL("..", import.meta.url));

export interface SummaryOptions {
  /** Entries per list. */
  top?: number;
  /** Ignore the first milliseconds of the profile (process start-up: module loading, migrations). */
  skipMs?: number;
}

export function summarizeProfile(file: string, options: SummaryOptions = {}): ProfileSummary {
  const top = options.top ?? 30;
  const profileFile = resolveProfileFile(file);
  const profile = JSON.parse(readFileSync(profileFile, "utf8")) as CpuProfile;
  dropStartup(profile, (options.skipMs ?? 0) * 1000);
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);

  const selfUs = new Map<number, number>();
  profile.samples.forEach((id, i) => {
    selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
  });

  const self = new Map<string, { name: string; where: string; us: number }>();
  const area = new Map<string, number>();
  let totalUs = 0;
  let idleUs = 0;
  let gcUs = 0;
  for (const [id, us] of selfUs) {
    const frame = byId.get(id)?.callFrame;
    if (!frame) continue;
    totalUs += us;
    if (frame.functionName === "(idle)") {
      idleUs += us;
      continue;
    }
    if (frame.functionName === "(garbage collector)") gcUs += us;
    const key = frameKey(frame);
    const entry = self.get(key) ?? {
      name: frame.functionName || "(anonymous)",
      where: location(frame),
      us: 0,
    };
    entry.us += us;
    self.set(key, entry);
    const areaName = areaOf(frame);
    area.set(areaName, (area.get(areaName) ?? 0) + us);
  }

  const inclusive = new Map<string, { name: string; where: string; us: number }>();
  profile.samples.forEach((leaf, i) => {
    const us = profile.timeDeltas[i] ?? 0;
    const seen = new Set<string>();
    for (let id: number | undefined = leaf; id !== undefined; id = parent.get(id)) {
      const frame = byId.get(id)?.callFrame;
      if (!frame || !isProjectFile(frame.url)) continue;
      const key = frameKey(frame);
      if (seen.has(key)) continue;
      seen.add(key);
      const entry = inclusive.get(key) ?? {
        name: frame.functionName || "(anonymous)",
        where: location(frame),
        us: 0,
      };
      entry.us += us;
      inclusive.set(key, entry);
    }
  });

  const busyUs = totalUs - idleUs;
  const toEntries = (items: Iterable<{ name: string; where: string; us: number }>) =>
    [...items]
      .sort((a, b) => b.us - a.us)
      .slice(0, top)
      .map((e) => ({
        name: e.name,
        where: e.where,
        ms: e.us / 1000,
        percent: busyUs > 0 ? (100 * e.us) / busyUs : 0,
      }));
  return {
    file: profileFile,
    skippedMs: options.skipMs ?? 0,
    totalMs: totalUs / 1000,
    idleMs: idleUs / 1000,
    busyMs: busyUs / 1000,
    gcMs: gcUs / 1000,
    topSelf: toEntries(self.values()),
    selfByArea: toEntries([...area].map(([name, us]) => ({ name, where: "", us }))),
    projectInclusive: toEntries(inclusive.values()),
  };
}

/**
 * The busy time of a profile and the part of it spent in the frames `within` picks: their self time
 * and that of the Node built-ins they call (a sample counts when the innermost frame that is neither a
 * built-in nor native is picked). Callees in other JavaScript are not counted: a middleware's `next()`
 * or a resolver's wrapped resolver runs the rest of the request inside it. `within` sees the frame's
 * file URL, so it can name another checkout's files.
 */
export function selfTimeWithin(
  file: string,
  within: (frame: CallFrame) => boolean,
  options: { skipMs?: number } = {},
): { busyMs: number; withinMs: number } {
  const profile = JSON.parse(readFileSync(resolveProfileFile(file), "utf8")) as CpuProfile;
  dropStartup(profile, (options.skipMs ?? 0) * 1000);
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const builtIn = (frame: CallFrame) => frame.url === "" || frame.url.startsWith("node:");
  let busyUs = 0;
  let withinUs = 0;
  profile.samples.forEach((leaf, i) => {
    const us = profile.timeDeltas[i] ?? 0;
    if (byId.get(leaf)?.callFrame.functionName === "(idle)") return;
    busyUs += us;
    for (let id: number | undefined = leaf; id !== undefined; id = parent.get(id)) {
      const frame = byId.get(id)?.callFrame;
      if (!frame || builtIn(frame)) continue;
      if (within(frame)) withinUs += us;
      return;
    }
  });
  return { busyMs: busyUs / 1000, withinMs: withinUs / 1000 };
}

/**
 * The busy time of a profile by the areas `classify` names: each sample goes to the first frame, from
 * the innermost outwards, that `classify` gives an area (built-ins included, so that a write to a socket
 * can be told from the code that asked for it); samples no frame names go to "other". Garbage collection
 * and V8's own work are areas of their own.
 */
export function selfTimeByArea(
  file: string,
  classify: (frame: CallFrame) => string | null,
  options: { skipMs?: number } = {},
): { busyMs: number; byArea: Map<string, number> } {
  const profile = JSON.parse(readFileSync(resolveProfileFile(file), "utf8")) as CpuProfile;
  dropStartup(profile, (options.skipMs ?? 0) * 1000);
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const byArea = new Map<string, number>();
  let busyUs = 0;
  profile.samples.forEach((leaf, i) => {
    const us = profile.timeDeltas[i] ?? 0;
    const leafName = byId.get(leaf)?.callFrame.functionName;
    if (leafName === "(idle)" || us === 0) return;
    busyUs += us;
    let area: string | null =
      leafName === "(garbage collector)"
        ? "garbage collection"
        : leafName === "(program)"
          ? "V8 (program)"
          : null;
    for (let id: number | undefined = leaf; id !== undefined && area === null; id = parent.get(id)) {
      const frame = byId.get(id)?.callFrame;
      if (frame) area = classify(frame);
    }
    byArea.set(area ?? "other", (byArea.get(area ?? "other") ?? 0) + us);
  });
  return {
    busyMs: busyUs / 1000,
    byArea: new Map([...byArea].map(([name, us]) => [name, us / 1000])),
  };
}

/** Zeroes the samples taken within `skipUs` of the profile's start (their time no longer counts). */
function dropStartup(profile: CpuProfile, skipUs: number): void {
  if (skipUs <= 0) return;
  let elapsed = 0;
  for (let i = 0; i < profile.timeDeltas.length; i++) {
    elapsed += profile.timeDeltas[i] ?? 0;
    if (elapsed > skipUs) break;
    profile.timeDeltas[i] = 0;
  }
}

/** How many entries of each list to print (all of them when omitted). */
export interface FormatLimits {
  topSelf?: number;
  selfByArea?: number;
  projectInclusive?: number;
}

export function formatProfileSummary(summary: ProfileSummary, limits: FormatLimits = {}): string {
  const skipped = summary.skippedMs ? ` (first ${fmt(summary.skippedMs)} ms of start-up left out)` : "";
  const lines = [
    `CPU profile ${path.relative(process.cwd(), summary.file) || summary.file}${skipped}`,
    `  sampled ${fmt(summary.totalMs)} ms: busy ${fmt(summary.busyMs)} ms, idle ${fmt(summary.idleMs)} ms, GC ${fmt(summary.gcMs)} ms (${pct(summary.gcMs, summary.busyMs)} of busy)`,
  ];
  const section = (title: string, entries: ProfileEntry[], limit: number | undefined, withWhere: boolean) => {
    if (limit === 0) return;
    lines.push("", title, ...table(entries.slice(0, limit ?? entries.length), withWhere));
  };
  section("Top functions by self time (% of busy time):", summary.topSelf, limits.topSelf, true);
  section("Self time by package / area:", summary.selfByArea, limits.selfByArea, false);
  section(
    "Inclusive time of project functions (src/):",
    summary.projectInclusive,
    limits.projectInclusive,
    true,
  );
  return lines.join("\n");
}

function table(entries: ProfileEntry[], withWhere: boolean): string[] {
  return entries.map(
    (e) =>
      `  ${fmt(e.ms).padStart(9)} ms ${`${e.percent.toFixed(1)}%`.padStart(6)}  ${e.name}${withWhere && e.where ? `  ${e.where}` : ""}`,
  );
}

function frameKey(frame: CallFrame): string {
  return `${frame.functionName}|${frame.url}|${frame.lineNumber}|${frame.columnNumber}`;
}

function location(frame: CallFrame): string {
  if (!frame.url) return "";
  const line = isTypeScript(frame.url) ? definitionLine(frame) : frame.lineNumber + 1;
  return line ? `${shortUrl(frame.url)}:${line}` : shortUrl(frame.url);
}

function isTypeScript(url: string): boolean {
  return url.startsWith("file://") && /\.(ts|mts|cts)$/.test(url);
}

const sources = new Map<string, string[] | null>();

/**
 * tsx compiles TypeScript without line breaks, so V8's positions in .ts files say nothing. Named
 * functions are found again in the source by their definition; anonymous ones keep only the file.
 */
function definitionLine(frame: CallFrame): number | null {
  const name = frame.functionName;
  if (!name || !/^[\w$]+$/.test(name)) return null;
  const filePath = fileURLToPath(frame.url);
  if (!sources.has(filePath)) {
    try {
      sources.set(filePath, readFileSync(filePath, "utf8").split("\n"));
    } catch {
      sources.set(filePath, null);
    }
  }
  const lines = sources.get(filePath);
  if (!lines) return null;
  const id = name.replace(/\$/g, "\\$");
  const declared = new RegExp(
    `\\bfunction\\*?\\s+${id}\\b|\\b${id}\\s*[:=]\\s*(async\\s*)?(\\(|function\\b|[\\w$]+\\s*=>)`,
  );
  const method = new RegExp(
    `^\\s*((async|static|get|set|override|private|public)\\s+|#)*${id}\\s*(<[^>]*>)?\\(`,
  );
  let index = lines.findIndex((line) => declared.test(line));
  if (index < 0) index = lines.findIndex((line) => method.test(line));
  return index >= 0 ? index + 1 : null;
}

function shortUrl(url: string): string {
  const filePath = url.startsWith("file://") ? fileURLToPath(url) : url;
  const nodeModules = filePath.lastIndexOf("/node_modules/");
  if (nodeModules >= 0) return filePath.slice(nodeModules + "/node_modules/".length);
  if (filePath.startsWith(PROJECT_ROOT)) return filePath.slice(PROJECT_ROOT.length);
  return filePath;
}

function isProjectFile(url: string): boolean {
  if (!url.startsWith("file://")) return false;
  const filePath = fileURLToPath(url);
  return filePath.startsWith(path.join(PROJECT_ROOT, "src")) && !filePath.includes("/node_modules/");
}

/** `(garbage collector)`, `node:internal/…`, an npm package name, or a project file. */
function areaOf(frame: CallFrame): string {
  const url = frame.url;
  if (!url) return frame.functionName.startsWith("(") ? frame.functionName : "(native / V8 builtins)";
  if (url.startsWith("node:"))
    return url.startsWith("node:internal/") ? `node:${url.split("/")[1] ?? "internal"}` : url;
  const short = shortUrl(url);
  if (url.includes("/node_modules/")) {
    const parts = short.split("/");
    return parts[0]?.startsWith("@") ? `${parts[0]}/${parts[1]}` : (parts[0] ?? short);
  }
  return short;
}

function resolveProfileFile(file: string): string {
  if (!statSync(file).isDirectory()) return file;
  const candidates = readdirSync(file)
    .filter((name) => name.endsWith(".cpuprofile"))
    .map((name) => path.join(file, name))
    .sort((a, b) => statSync(b).size - statSync(a).size);
  if (!candidates[0]) throw new Error(`No .cpuprofile in ${file}`);
  return candidates[0];
}

function fmt(ms: number): string {
  return ms.toLocaleString("en-US", { maximumFractionDigits: 0 });
}

function pct(part: number, whole: number): string {
  return whole > 0 ? `${((100 * part) / whole).toFixed(1)}%` : "0%";
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const topIndex = args.indexOf("--top");
  const skipIndex = args.indexOf("--skip-ms");
  const top = topIndex >= 0 ? Number(args[topIndex + 1]) : 30;
  const skipMs = skipIndex >= 0 ? Number(args[skipIndex + 1]) : 0;
  const values = new Set([topIndex + 1, skipIndex + 1].filter((i) => i > 0));
  const file = args.find((arg, i) => !arg.startsWith("--") && !values.has(i));
  if (!file) {
    process.stderr.write(
      "Usage: npx tsx bench/summarize-profile.ts <file.cpuprofile | directory> [--top 30] [--skip-ms 0]\n",
    );
    process.exit(2);
  }
  process.stdout.write(`${formatProfileSummary(summarizeProfile(file, { top, skipMs }))}\n`);
}
