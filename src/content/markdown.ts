// HTML ⇄ markdown. Reads convert stored HTML to markdown with turndown; writes may send markdown,
// which marked turns into HTML (then sanitized like any HTML body).
import { marked } from "marked";
import TurndownService from "turndown";

const turndown = new TurndownService({
  headingStyle: "atx",
  codeBlockStyle: "fenced",
  bulletListMarker: "-",
});

/** Converted bodies are cached process-wide: the same post is read far more often than it changes. */
const cache = new Map<string, string>();
const CACHE_LIMIT = 2_000;

export function htmlToMarkdown(html: string): string {
  const cached = cache.get(html);
  if (cached !== undefined) return cached;
  const markdown = turndown.turndown(html);
  if (cache.size >= CACHE_LIMIT) cache.delete(cache.keys().next().value as string);
  cache.set(html, markdown);
  return markdown;
}

export function markdownToHtml(markdown: string): string {
  return marked.parse(markdown, { async: false, gfm: true }) as string;
}
