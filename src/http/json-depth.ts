// How deeply a request's JSON may nest. Parsing is not the danger (V8 parses deep arrays fine); what
// walks the parsed value afterwards is: graphql-js coerces variables recursively, and a body of 50,000
// nested `[` ran it out of stack (a 500). No document of this API nests past a handful of levels, so
// requests nesting deeper than MAX_JSON_DEPTH are refused before anything walks them.

/** Levels of arrays and objects a request's JSON may nest: far more than any input of this API needs. */
export const MAX_JSON_DEPTH = 64;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;

/**
 * Whether JSON text nests arrays and objects deeper than `max`, read in one pass without parsing
 * (brackets inside strings do not count). UTF-8 bytes or a string: the characters it looks for are
 * ASCII, which never occur inside a multi-byte sequence.
 */
export function nestsDeeperThan(text: Buffer | string, max = MAX_JSON_DEPTH): boolean {
  // Nesting deeper than `max` needs more than `max` opening brackets: counted first with the native
  // indexOf, that settles almost every body at once (a 750 KB search text: 3 brackets, microseconds,
  // where the character walk below takes milliseconds).
  if (!opensMoreThan(text, max)) return false;
  const at = typeof text === "string" ? (i: number) => text.charCodeAt(i) : (i: number) => text[i] as number;
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const code = at(i);
    if (inString) {
      if (code === BACKSLASH) i++;
      else if (code === QUOTE) inString = false;
    } else if (code === QUOTE) inString = true;
    else if (code === OPEN_BRACKET || code === OPEN_BRACE) {
      if (++depth > max) return true;
    } else if (code === CLOSE_BRACKET || code === CLOSE_BRACE) depth--;
  }
  return false;
}

/** Whether `text` holds more than `max` opening brackets and braces (strings included: an upper bound). */
function opensMoreThan(text: Buffer | string, max: number): boolean {
  let count = 0;
  for (const bracket of ["[", "{"]) {
    for (let at = text.indexOf(bracket); at !== -1; at = text.indexOf(bracket, at + 1))
      if (++count > max) return true;
  }
  return false;
}

/** The error a body reader raises for such a body; the door's error handler answers it with 400. */
export class JsonTooDeepError extends Error {
  override name = "JsonTooDeepError";
  readonly type = "entity.too.deep";
  readonly status = 400;
  constructor(where = "The request body") {
    super(`${where} nests arrays or objects deeper than ${MAX_JSON_DEPTH} levels`);
  }
}

/** For express.json's `verify`: refuses a body nesting too deeply before it is parsed. */
export function refuseDeepJson(_req: unknown, _res: unknown, body: Buffer): void {
  if (nestsDeeperThan(body)) throw new JsonTooDeepError();
}
