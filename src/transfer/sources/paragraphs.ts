// Paragraphs for bodies written with the classic WordPress editor: WordPress stores them as text with
// blank lines between paragraphs and single line breaks inside them, and adds the <p> and <br> only
// when it renders a page. Stored as they are, they read as one run of text. Our rule, applied where the
// body has no block markup (the block editor writes its own <p>):
//
// - text between block-level elements is split at blank lines; each piece becomes a <p>, its single
//   line breaks <br>. At the top level and in a <blockquote> any text is a paragraph; in other flow
//   containers (div, li, td, …) only text that blank lines split into several pieces is;
// - inside elements that hold phrasing only (p, h1–h6, dt, figcaption, …) nothing changes, nor inside
//   pre, script, style and textarea, whose text is kept to the character.

const RAW = "pre|script|style|textarea";
const BLOCKS =
  "address|article|aside|blockquote|caption|col|colgroup|dd|details|div|dl|dt|fieldset|figcaption|figure|footer|form|h[1-6]|header|hgroup|hr|legend|li|main|menu|nav|ol|p|section|summary|table|tbody|td|tfoot|th|thead|tr|ul";
const TOKEN = new RegExp(`<(${RAW})\\b[^>]*>[\\s\\S]*?<\\/\\1\\s*>|<(\\/?)(${BLOCKS})\\b[^>]*>`, "gi");
const VOID = new Set(["hr", "col"]);

/** Where any text is a paragraph. */
const PARAGRAPHED = new Set(["", "blockquote"]);
/** Where text is paragraphs only when blank lines split it. */
const FLOW = new Set([
  "article",
  "aside",
  "dd",
  "details",
  "div",
  "fieldset",
  "figure",
  "footer",
  "form",
  "header",
  "li",
  "main",
  "nav",
  "section",
  "td",
  "th",
]);

/** Whether a body was written with the block editor, whose markup carries its own paragraphs. */
export const hasBlockMarkup = (html: string): boolean => html.includes("<!-- wp:");

/** `html` with the paragraphs and line breaks a classic WordPress body means (see above). */
export function addParagraphs(html: string): string {
  const source = html.replace(/\r\n?/g, "\n");
  const open: string[] = [];
  let out = "";
  let last = 0;
  for (const match of source.matchAll(TOKEN)) {
    const container = open.at(-1) ?? "";
    out += paragraphsOf(source.slice(last, match.index), container) + match[0];
    last = match.index + match[0].length;
    const name = match[3]?.toLowerCase();
    if (!name) continue;
    if (match[2] === "/") {
      const at = open.lastIndexOf(name);
      if (at >= 0) open.length = at;
    } else if (!VOID.has(name) && !match[0].endsWith("/>")) open.push(name);
  }
  return out + paragraphsOf(source.slice(last), open.at(-1) ?? "");
}

function paragraphsOf(run: string, container: string): string {
  if (!run.trim()) return run;
  const always = PARAGRAPHED.has(container);
  if (!always && !FLOW.has(container)) return run;
  const pieces = run.split(/\n[ \t]*\n/).filter((piece) => piece.trim());
  if (!always && pieces.length < 2) return run;
  return `\n${pieces.map((piece) => `<p>${withLineBreaks(piece.trim())}</p>`).join("\n")}\n`;
}

/** Single line breaks of a paragraph's text as <br>; a line break inside a tag stays one. */
function withLineBreaks(piece: string): string {
  return piece
    .split(/(<[^>]*>)/)
    .map((part) => (part.startsWith("<") ? part : part.replace(/[ \t]*\n[ \t]*/g, "<br />\n")))
    .join("");
}
