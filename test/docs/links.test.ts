// Every relative link of the project's Markdown resolves: README.md, docs/*.md and bench/README.md link
// to files that exist, and a `#anchor` names a heading of the file it points into (GitHub's slugs).
// Absolute http(s) links are not fetched. A link that leaves the repository (the contract, which lives
// beside it: `../shared/spec/content-api.md` from its root) is not the repository's to check: a clone
// elsewhere (CI's) has nothing there.
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = path.resolve(import.meta.dirname, "../..");

/** The Markdown files whose links are checked. */
const CHECKED = [
  "README.md",
  ...readdirSync(path.join(ROOT, "docs"))
    .filter((name) => name.endsWith(".md"))
    .sort()
    .map((name) => `docs/${name}`),
  "bench/README.md",
];

/** The lines of a Markdown text outside fenced code blocks, each with its number (1-based). */
function proseLines(text: string): { line: number; text: string }[] {
  const out: { line: number; text: string }[] = [];
  let fence: string | null = null;
  text.split("\n").forEach((line, index) => {
    const marker = /^\s*(```|~~~)/.exec(line)?.[1];
    if (marker && (fence === null || fence === marker)) {
      fence = fence === null ? marker : null;
      return;
    }
    if (fence === null) out.push({ line: index + 1, text: line });
  });
  return out;
}

/** A line without its inline code spans (so `[a](b)` in code is no link); link text keeps a stand-in. */
function withoutCode(line: string): string {
  return line.replace(/(`+)(?:(?!\1).)+?\1/g, "code");
}

/** GitHub's heading slug: lowercase, keep letters, digits, spaces, hyphens and underscores, spaces to hyphens. */
function slug(heading: string): string {
  return heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1") // a link in a heading counts by its text
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, "")
    .replace(/ /g, "-");
}

/** The anchors a Markdown file offers: its headings' slugs (a repeated one gets -1, -2, …) and HTML ids. */
function anchorsOf(text: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const { text: line } of proseLines(text)) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line)?.[1];
    if (heading !== undefined) {
      const base = slug(heading);
      const count = seen.get(base) ?? 0;
      seen.set(base, count + 1);
      anchors.add(count === 0 ? base : `${base}-${count}`);
    }
    for (const match of line.matchAll(/<a\s+(?:name|id)="([^"]+)"/g)) anchors.add(match[1] as string);
  }
  return anchors;
}

/** The link targets of a Markdown text: inline links and images, and reference definitions. */
function linksOf(text: string): { line: number; target: string }[] {
  return proseLines(text).flatMap(({ line, text: raw }) => {
    const prose = withoutCode(raw);
    const inline = [...prose.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map(
      (m) => m[1] as string,
    );
    const reference = /^\s{0,3}\[[^\]]+\]:\s*<?([^\s>]+)>?/.exec(prose)?.[1];
    return [...inline, ...(reference ? [reference] : [])].map((target) => ({ line, target }));
  });
}

/** Why a link of `file` (relative to ROOT) does not resolve, or null when it does. */
function problemOf(file: string, target: string): string | null {
  if (/^[a-z][a-z0-9+.-]*:/i.test(target)) return null; // http(s), mailto: not fetched
  const hash = target.indexOf("#");
  const pathPart = decodeURIComponent(hash === -1 ? target : target.slice(0, hash));
  const anchor = hash === -1 ? null : decodeURIComponent(target.slice(hash + 1));
  const resolved =
    pathPart === "" ? path.join(ROOT, file) : path.resolve(path.join(ROOT, path.dirname(file)), pathPart);
  if (path.relative(ROOT, resolved).startsWith("..")) return null;
  if (!existsSync(resolved)) return `no such file: ${path.relative(ROOT, resolved)}`;
  if (anchor === null || anchor === "") return null;
  if (statSync(resolved).isDirectory() || !resolved.endsWith(".md"))
    return `an anchor into a file that is not Markdown`;
  const anchors = anchorsOf(readFileSync(resolved, "utf8"));
  return anchors.has(anchor) ? null : `no heading "#${anchor}" in ${path.relative(ROOT, resolved)}`;
}

describe("Markdown links", () => {
  it("checks the README, every docs/ file and bench/README.md, which link to each docs/ file", () => {
    expect(CHECKED).toContain("docs/api.md");
    const readmeLinks = linksOf(readFileSync(path.join(ROOT, "README.md"), "utf8")).map(
      ({ target }) => target,
    );
    for (const doc of CHECKED.filter((file) => file.startsWith("docs/")))
      expect(
        readmeLinks.some((target) => target.split("#")[0] === doc),
        `README links ${doc}`,
      ).toBe(true);
  });

  it.each(CHECKED)("%s: every relative link resolves, anchors included", (file) => {
    const broken = linksOf(readFileSync(path.join(ROOT, file), "utf8")).flatMap(({ line, target }) => {
      const problem = problemOf(file, target);
      return problem ? [`${file}:${line}: (${target}) ${problem}`] : [];
    });
    expect(broken).toEqual([]);
  });

  it("makes GitHub's slugs and finds links, not code", () => {
    expect(slug("Shared by every instance (`CACHE=redis`, the default with `REDIS_URL`)")).toBe(
      "shared-by-every-instance-cacheredis-the-default-with-redis_url",
    );
    expect(slug("Where the answers' bytes live")).toBe("where-the-answers-bytes-live");
    expect([...anchorsOf("# A\n## A\n```\n# not a heading\n```\n")]).toEqual(["a", "a-1"]);
    expect(
      linksOf("see [x](a.md#b) and `[y](not-a-link.md)`\n```\n[z](nor-this.md)\n```").map((l) => l.target),
    ).toEqual(["a.md#b"]);
    expect(problemOf("README.md", "docs/nope.md")).toMatch(/no such file/);
    expect(problemOf("README.md", "#no-such-heading")).toMatch(/no heading/);
  });
});
