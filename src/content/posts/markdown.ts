// HTML ⇄ markdown. Reads convert stored HTML to markdown with turndown; writes may send markdown,
// which marked turns into HTML (then sanitized like any HTML body).
// turndown (with its DOM, domino: about sixty files) loads on the first conversion, not with the server.
import { createRequire } from "node:module";
import { marked } from "marked";
import type TurndownService from "turndown";

const require = createRequire(import.meta.url);

/**
 * Turndown escapes what would be markdown syntax in text (`*`, `_`, `[` …) but not what would be HTML:
 * the text `<img src=x onerror=…>` (stored as `&lt;img …&gt;`) would come out as a live tag, and
 * `&amp;lt;` as an entity a renderer decodes. Markdown treats raw HTML and entities as markup, so text
 * must escape them too: every `<` (tags, comments, autolinks such as `<javascript:…>`) and an `&` that
 * would start an entity reference. CommonMark lets a backslash escape any ASCII punctuation; an `&` in
 * ordinary prose ("Tom & Jerry") and other text stay as they are. Code keeps its text verbatim (turndown
 * does not escape it), where neither is markup.
 */
const ENTITY_START = /&(?=#\d{1,7};|#[xX][\da-fA-F]{1,6};|[A-Za-z][A-Za-z\d]{0,31};)/g;

let turndown: TurndownService | undefined;

function createTurndown(): TurndownService {
  const Turndown = require("turndown") as typeof TurndownService;
  const service = new Turndown({ headingStyle: "atx", codeBlockStyle: "fenced", bulletListMarker: "-" });
  const escapeMarkdownSyntax = service.escape.bind(service);
  service.escape = (text: string) =>
    escapeMarkdownSyntax(text).replace(/</g, "\\<").replace(ENTITY_START, "\\&");
  return service;
}

/** Converted bodies are cached process-wide: the same post is read far more often than it changes. */
const cache = new Map<string, string>();
const CACHE_LIMIT = 2_000;

export function htmlToMarkdown(html: string): string {
  const cached = cache.get(html);
  if (cached !== undefined) return cached;
  turndown ??= createTurndown();
  const markdown = turndown.turndown(html);
  if (cache.size >= CACHE_LIMIT) cache.delete(cache.keys().next().value as string);
  cache.set(html, markdown);
  return markdown;
}

export function markdownToHtml(markdown: string): string {
  return marked.parse(markdown, { async: false, gfm: true }) as string;
}
