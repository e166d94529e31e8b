// Text a source stores as HTML though it is read as text: WordPress titles, term names and author names
// are saved escaped (`&amp;`, `&#039;`, `&quot;`) and may hold markup (`Title <em>With</em> Markup`).
// Our titles and names are plain text, so the tags go and the character references become characters.

/** The named references WordPress's escaping and editors produce; any other stays as written. */
const NAMED: Record<string, string> = {
  amp: "&",
  lt: "<",
  gt: ">",
  quot: '"',
  apos: "'",
  nbsp: "\u00a0",
  hellip: "…",
  ndash: "–",
  mdash: "—",
  lsquo: "‘",
  rsquo: "’",
  sbquo: "‚",
  ldquo: "“",
  rdquo: "”",
  bdquo: "„",
  laquo: "«",
  raquo: "»",
  copy: "©",
  reg: "®",
  trade: "™",
  deg: "°",
  times: "×",
  middot: "·",
  bull: "•",
  euro: "€",
  pound: "£",
};

const REFERENCE = /&(?:#(\d{1,7})|#[xX]([0-9a-fA-F]{1,6})|([A-Za-z]{2,8}));/g;

/** `value` with its character references (`&#039;`, `&#x2019;`, `&amp;`) as the characters they name. */
export function decodeEntities(value: string): string {
  return value.replace(REFERENCE, (reference, decimal?: string, hex?: string, name?: string) => {
    if (name) return NAMED[name] ?? reference;
    const code = decimal ? Number.parseInt(decimal, 10) : Number.parseInt(hex ?? "", 16);
    // A code point that is not a character (a surrogate, beyond U+10FFFF, NUL) stays as written.
    if (code === 0 || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) return reference;
    return String.fromCodePoint(code);
  });
}

/** HTML stored where text is meant: tags removed, references decoded, spaces collapsed. */
export function plainText(html: string): string {
  return decodeEntities(html.replace(/<[^>]*>/g, ""))
    .replace(/\s+/g, " ")
    .trim();
}
