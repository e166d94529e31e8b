// A markdown file's front matter, read as data and nothing else: YAML between `---` fences (Jekyll,
// Hugo, Astro, Next.js) or TOML between `+++` fences (Hugo). gray-matter, used before, also honoured
// `---js` / `---javascript` and evaluated that block as JavaScript: a file of an imported folder ran
// code in the importing process (the server's, on the embedded store). Any other language after the
// opening fence is refused, as is YAML that names a tag beyond plain data (`!!js/function`, `!foo`).
// YAML aliases are bounded (the `yaml` package's maxAliasCount): 507 bytes of nested aliases expanded
// to 1.4 GB; TOML nesting is bounded by smol-toml's own depth limit.

import { parse as parseToml } from "smol-toml";
import { type DocumentOptions, type ParseOptions, parseDocument, type SchemaOptions } from "yaml";

export interface MarkdownParts {
  data: Record<string, unknown>;
  /** The markdown after the front matter (the whole file when it has none). */
  content: string;
}

/** Front matter a file has but that cannot be read as data: the file is refused with this reason. */
export class FrontMatterError extends Error {
  override name = "FrontMatterError";
}

/** Aliases a YAML document may expand: far more than front matter uses, far less than a bomb needs. */
const MAX_YAML_ALIASES = 100;

const YAML_OPTIONS: ParseOptions & DocumentOptions & SchemaOptions = {
  // YAML 1.2's core schema (strings, numbers, booleans, null, lists, maps) plus timestamps, so an
  // unquoted `date: 2024-02-10T09:30:00Z` stays a date as it was with gray-matter. No other tag.
  schema: "core",
  customTags: ["timestamp"],
};

/** An opening fence: `---` (YAML, or the language named after it) or `+++` (TOML). */
const OPENING = /^(---|\+\+\+)[ \t]*([A-Za-z]*)[ \t]*\r?\n/;

export function splitFrontMatter(text: string): MarkdownParts {
  const source = text.startsWith("\uFEFF") ? text.slice(1) : text;
  const opening = OPENING.exec(source);
  if (!opening) return { data: {}, content: source };
  const fence = opening[1] as "---" | "+++";
  const language = (opening[2] ?? "").toLowerCase() || (fence === "+++" ? "toml" : "yaml");
  if (language !== "yaml" && language !== "yml" && language !== "toml")
    throw new FrontMatterError(
      `its front matter is marked "${opening[2]}": only YAML (---) and TOML (+++) front matter is read`,
    );
  const rest = source.slice(opening[0].length);
  const closing = new RegExp(`^${fence === "---" ? "(?:---|\\.\\.\\.)" : "\\+\\+\\+"}[ \\t]*$`, "m").exec(
    rest,
  );
  if (!closing) throw new FrontMatterError(`its front matter has no closing ${fence}`);
  const block = rest.slice(0, closing.index);
  const content = rest.slice(closing.index + closing[0].length).replace(/^\r?\n/, "");
  const data = language === "toml" ? readToml(block) : readYaml(block);
  return { data, content };
}

function readYaml(block: string): Record<string, unknown> {
  const document = parseDocument(block, YAML_OPTIONS);
  const [error] = document.errors;
  if (error) throw new FrontMatterError(`its YAML front matter is malformed: ${firstLine(error.message)}`);
  const tag = document.warnings.find((warning) => warning.code === "TAG_RESOLVE_FAILED");
  if (tag) throw new FrontMatterError(`its YAML front matter is refused: ${firstLine(tag.message)}`);
  let value: unknown;
  try {
    value = document.toJS({ maxAliasCount: MAX_YAML_ALIASES });
  } catch (error) {
    throw new FrontMatterError(`its YAML front matter is refused: ${(error as Error).message}`);
  }
  return asMapping(value, "YAML");
}

function readToml(block: string): Record<string, unknown> {
  try {
    return asMapping(parseToml(block), "TOML");
  } catch (error) {
    if (error instanceof FrontMatterError) throw error;
    throw new FrontMatterError(`its TOML front matter is malformed: ${firstLine((error as Error).message)}`);
  }
}

function asMapping(value: unknown, language: string): Record<string, unknown> {
  if (value === null || value === undefined) return {};
  if (typeof value !== "object" || Array.isArray(value))
    throw new FrontMatterError(`its ${language} front matter is not a mapping of keys to values`);
  return value as Record<string, unknown>;
}

const firstLine = (message: string) => message.split("\n")[0] ?? message;
