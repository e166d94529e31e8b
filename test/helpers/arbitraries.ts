// fast-check generators for the property-based tests (issue 20): what a careless or hostile client sends.
// One alphabet serves every door — body fields, GraphQL variables, path segments and query values —
// so a class of input (a NUL byte, a lone surrogate, a year-0 date, 2**31) reaches every parser.
//
// `fromJsonSchema` turns a route's zod schema (through `z.toJSONSchema`) into mostly valid bodies, and
// `mutatedFromJsonSchema` into the same bodies with one thing wrong at any depth.
import fc from "fast-check";

/** `arbitrary`'s values once in `1 + absentWeight` cases, `undefined` (left out of JSON and URLs) otherwise. */
export function rarely<T>(arbitrary: fc.Arbitrary<T>, absentWeight: number): fc.Arbitrary<T | undefined> {
  return fc.oneof({ weight: absentWeight, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary });
}

/** Numbers at the edges of every integer type a request can reach (GraphQL Int, JS safe integers, doubles). */
export const BOUNDARY_NUMBERS: readonly number[] = [
  -1,
  0,
  1,
  -0.5,
  0.5,
  2 ** 31 - 1,
  2 ** 31,
  -(2 ** 31) - 1,
  2 ** 53,
  -(2 ** 53),
  1e308,
  -1e308,
  5e-324,
];

/** Strings a lax parser might take for numbers. */
const NUMERIC_LOOKING = [
  "NaN",
  "Infinity",
  "-Infinity",
  "1e308",
  "-0",
  "0x1f",
  "1_000",
  " 7",
  "07",
  "2147483648",
  "9007199254740993",
  "1.5",
  "-",
];

/** Control and invisible characters, NUL first: PostgreSQL refuses it in text. */
const CONTROL_CHARACTERS = [
  "\u0000",
  "\u0001",
  "\b",
  "\t",
  "\n",
  "\r",
  "\u001b",
  "\u001f",
  "\u007f",
  "\u0085",
  "\u00a0",
  "\u200b",
  "\u200e",
  "\u202e",
  "\u2028",
  "\u2029",
  "\ufeff",
  "\ufffe",
  "\uffff",
];

/** Emoji (with joiners), combining marks, right-to-left text, and lone surrogates (sent as JSON escapes). */
const UNICODE_PIECES = [
  "😀",
  "👩‍👩‍👧‍👦",
  "🏳️‍🌈",
  "e\u0301",
  "ß",
  "İ",
  "ﬁ",
  "中文",
  "العربية",
  "עברית",
  "\u202eevil",
  "Z̤͔ͧ̑̓",
  "\ud800",
  "\udfff",
  "\udbff\udfff",
];

const INJECTION_LIKE = [
  "<script>alert(1)</script>",
  "<img src=x onerror=alert(1)>",
  "' OR '1'='1",
  '"; DROP TABLE "Post"; --',
  "../../etc/passwd",
  "%00",
  "%",
  "%2F",
  "$" + "{jndi:ldap://x}",
  "{{7*7}}",
  "__proto__",
  "constructor",
  "null",
  "undefined",
  "true",
  "[]",
  "{}",
  "*",
  "\\",
];

function hugeStrings(length: number): string[] {
  const half = Math.floor(length / 2);
  return [
    "a".repeat(length),
    "😀".repeat(half),
    "é".repeat(length),
    `${"x".repeat(half)}\u0000${"y".repeat(half)}`,
    "\ud800".repeat(Math.floor(length / 5)),
    "<b>".repeat(Math.floor(length / 3)),
  ];
}

/** 100k characters in bodies; URLs stay below Node's 16 KiB request-head limit (a 431 from Node itself). */
const HUGE_IN_BODIES = hugeStrings(100_000);
const HUGE_IN_URLS = hugeStrings(1_000);

/** One character of the hostile alphabet: mostly ordinary, often control or exotic. */
const hostileCharacter = fc.oneof(
  { weight: 4, arbitrary: fc.string({ unit: "grapheme-ascii", minLength: 1, maxLength: 1 }) },
  { weight: 2, arbitrary: fc.constantFrom(...CONTROL_CHARACTERS) },
  { weight: 2, arbitrary: fc.constantFrom(...UNICODE_PIECES) },
  { weight: 1, arbitrary: fc.string({ unit: "binary", minLength: 1, maxLength: 1 }) },
);

/** Short text a person might type. */
export const plainText = fc
  .string({ unit: "grapheme-ascii", minLength: 1, maxLength: 24 })
  .filter((text) => text.trim() !== "");

/** A slug the service's slug rule accepts. */
export const validSlug = fc.stringMatching(/^[a-z0-9]{1,12}(-[a-z0-9]{1,8}){0,2}$/);

/** Any string from the hostile alphabet. `place` bounds the huge ones so a URL stays a URL. */
export function hostileString(place: "body" | "url" = "body"): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 3, arbitrary: plainText },
    { weight: 2, arbitrary: validSlug },
    { weight: 4, arbitrary: fc.string({ unit: hostileCharacter, maxLength: 16 }) },
    { weight: 2, arbitrary: fc.constantFrom("", " ", ...NUMERIC_LOOKING, ...INJECTION_LIKE) },
    { weight: 1, arbitrary: fc.constantFrom(...(place === "body" ? HUGE_IN_BODIES : HUGE_IN_URLS)) },
  );
}

/** A post body: HTML or markdown with text in it, around the hostile alphabet. */
export const bodyText = fc.oneof(
  { weight: 3, arbitrary: fc.tuple(plainText, hostileString()).map(([a, b]) => `<p>Text ${a}</p>${b}`) },
  { weight: 1, arbitrary: fc.tuple(plainText, hostileString()).map(([a, b]) => `# ${a}\n\n*${b}*`) },
  { weight: 1, arbitrary: hostileString() },
);

/**
 * ISO date-times around every edge: year 0 and year 1 (with an offset that moves it to year 0), the
 * Unix epoch, 9999, leap days (real and not), offsets up to ±14:00, and JavaScript's extended years.
 */
export const dateTimeString: fc.Arbitrary<string> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc
      .date({
        min: new Date("1900-01-01T00:00:00Z"),
        max: new Date("2100-01-01T00:00:00Z"),
        noInvalidDate: true,
      })
      .map((d) => d.toISOString()),
  },
  { weight: 1, arbitrary: fc.date({ noInvalidDate: true }).map((d) => d.toISOString()) },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      "0000-01-01T00:00:00Z",
      "0000-01-01T00:00:00.000Z",
      "0001-01-01T00:00:00+01:00",
      "0001-01-01T00:00:00Z",
      "1970-01-01T00:00:00Z",
      "9999-12-31T23:59:59.999Z",
      "9999-12-31T23:59:59-14:00",
      "2024-02-29T12:00:00+14:00",
      "2023-02-29T12:00:00Z",
      "2024-01-01T24:00:00Z",
      "2024-01-01T00:00:00+23:59",
      "2024-01-01",
      "2024-01-01T00:00:00",
      "+275760-09-13T00:00:00.000Z",
      "-000001-01-01T00:00:00Z",
    ),
  },
);

/** URLs, mostly absolute http(s) ones, at times a scheme or shape a URL field must refuse. */
export const urlString = fc.oneof(
  { weight: 7, arbitrary: fc.webUrl() },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      "javascript:alert(1)",
      "http://",
      "http://a b",
      "https://example.com/\u0000",
      "data:text/html,<script>alert(1)</script>",
      "ftp://example.com/x",
      `https://example.com/${"a".repeat(100_000)}`,
    ),
  },
);

/** A value of any JSON type, hostile where it can be: what arrives where a client was meant to send something else. */
export const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 3, arbitrary: hostileString() },
  { weight: 3, arbitrary: fc.constantFrom(...BOUNDARY_NUMBERS) },
  { weight: 1, arbitrary: fc.double({ noNaN: true, noDefaultInfinity: true }) },
  { weight: 1, arbitrary: fc.constantFrom(true, false, null) },
  { weight: 1, arbitrary: fc.array(fc.oneof(plainText, fc.integer(), fc.constant(null)), { maxLength: 4 }) },
  { weight: 1, arbitrary: fc.dictionary(hostileString(), plainText, { maxKeys: 3 }) },
  { weight: 1, arbitrary: fc.constantFrom(nested(2_000, "array"), nested(2_000, "object")) },
);

/** `[[[…]]]` or `{"a":{"a":…}}` `depth` levels deep. */
function nested(depth: number, kind: "array" | "object"): unknown {
  let value: unknown = 1;
  for (let i = 0; i < depth; i++) value = kind === "array" ? [value] : { a: value };
  return value;
}

/** The part of JSON Schema `z.toJSONSchema` emits for the routes' bodies. */
export interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: JsonSchema | boolean;
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  enum?: unknown[];
  format?: string;
  minLength?: number;
  minimum?: number;
  maximum?: number;
}

/**
 * Values a property of this name takes instead of the schema's generic ones in valid-looking bodies:
 * real identifiers (so writes reach existing records), custom field values keyed by existing field
 * keys. The mutated bodies still put anything anywhere.
 */
export type PropertyHints = Record<string, fc.Arbitrary<unknown>>;

/** Mostly valid values of a schema, built from the hostile alphabet where the schema allows any string. */
export function fromJsonSchema(schema: JsonSchema, hints: PropertyHints = {}): fc.Arbitrary<unknown> {
  if (schema.anyOf) return fc.oneof(...schema.anyOf.map((s) => fromJsonSchema(s, hints)));
  if (schema.enum) return fc.constantFrom(...schema.enum);
  if (Array.isArray(schema.type))
    return fc.oneof(...schema.type.map((type) => fromJsonSchema({ ...schema, type }, hints)));
  switch (schema.type) {
    case "null":
      return fc.constant(null);
    case "boolean":
      return fc.boolean();
    case "integer":
      return fc.oneof(
        fc.integer({
          min: Math.max(schema.minimum ?? -1000, -1000),
          max: Math.min(schema.maximum ?? 1000, 1000),
        }),
        fc.constantFrom(...BOUNDARY_NUMBERS.filter(Number.isInteger)),
      );
    case "number":
      return fc.oneof(
        fc.double({ noNaN: true, noDefaultInfinity: true }),
        fc.constantFrom(...BOUNDARY_NUMBERS),
      );
    case "string":
      return stringOfFormat(schema);
    case "array":
      return fc.array(fromJsonSchema(schema.items ?? {}, hints), { maxLength: 4 });
    case "object":
      return objectOf(schema, hints);
    default:
      return hostileValue;
  }
}

/** Valid-looking values with exactly one thing wrong: a wrong type, a missing or extra property, an edge value. */
export function mutatedFromJsonSchema(schema: JsonSchema, hints: PropertyHints = {}): fc.Arbitrary<unknown> {
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  if (type === "object" && schema.properties) {
    const valid = objectOf(schema, hints);
    const names = Object.keys(schema.properties);
    const required = schema.required ?? [];
    return fc.oneof(
      // One property wrong, at any depth (most often: the rest is about the body's outline).
      {
        weight: 4,
        arbitrary: fc.tuple(valid, fc.constantFrom(...names)).chain(([body, name]) =>
          mutatedFromJsonSchema(schema.properties?.[name] ?? {}, hints).map((value) => ({
            ...(body as object),
            [name]: value,
          })),
        ),
      },
      ...(required.length
        ? [
            fc.tuple(valid, fc.constantFrom(...required)).map(([body, name]) => {
              const { [name]: _missing, ...rest } = body as Record<string, unknown>;
              return rest;
            }),
          ]
        : []),
      fc
        .tuple(valid, hostileString(), hostileValue)
        .map(([body, name, value]) => ({ ...(body as object), [name]: value })),
      hostileValue,
    );
  }
  if (type === "array" && schema.items) {
    return fc.oneof(
      fc
        .tuple(
          fc.array(fromJsonSchema(schema.items, hints), { maxLength: 3 }),
          mutatedFromJsonSchema(schema.items, hints),
        )
        .map(([items, bad]) => [...items, bad]),
      hostileValue,
    );
  }
  if (type === "string" && schema.enum) {
    const values = schema.enum.map(String);
    return fc.oneof(fc.constantFrom(...values.map((v) => v.toUpperCase()), ` ${values[0]}`), hostileValue);
  }
  if (type === "integer" || type === "number")
    return fc.oneof(fc.constantFrom(...BOUNDARY_NUMBERS, ...NUMERIC_LOOKING), hostileValue);
  return hostileValue;
}

function objectOf(schema: JsonSchema, hints: PropertyHints): fc.Arbitrary<Record<string, unknown>> {
  if (!schema.properties) {
    const values = typeof schema.additionalProperties === "object" ? schema.additionalProperties : {};
    return fc.dictionary(hostileString(), fromJsonSchema(values), { maxKeys: 3 });
  }
  const model: Record<string, fc.Arbitrary<unknown>> = {};
  for (const [name, property] of Object.entries(schema.properties)) {
    model[name] = hints[name] ?? fromJsonSchema(property, hints);
  }
  return fc.record(model, { requiredKeys: schema.required ?? [] });
}

function stringOfFormat(schema: JsonSchema): fc.Arbitrary<string> {
  switch (schema.format) {
    case "date-time":
      return dateTimeString;
    case "uri":
      return urlString;
    case "email":
      return fc.oneof(fc.emailAddress(), hostileString());
    default:
      return fc.oneof({ weight: 3, arbitrary: plainText }, { weight: 2, arbitrary: hostileString() });
  }
}

/**
 * A string as it travels in a URL path segment or query value: percent-encoded as UTF-8, lone
 * surrogates as the WTF-8 bytes a sloppy client sends (`encodeURIComponent` would throw on them).
 */
export function percentEncode(text: string): string {
  let out = "";
  for (const char of text) {
    const code = char.codePointAt(0) ?? 0;
    if (code >= 0xd800 && code <= 0xdfff) {
      out += [0xe0 | (code >> 12), 0x80 | ((code >> 6) & 0x3f), 0x80 | (code & 0x3f)]
        .map((byte) => `%${byte.toString(16).toUpperCase()}`)
        .join("");
    } else {
      out += encodeURIComponent(char);
    }
  }
  return out;
}

/** Already-encoded URL text no string encodes to: broken escapes, overlong and invalid UTF-8. */
export const rawUrlText = fc.constantFrom(
  "%",
  "%zz",
  "%FF",
  "%C0%80",
  "%00",
  "%ED%A0%80",
  "%2e%2e",
  "a%2Fb",
  "%25",
);

/** A path segment or query value: the hostile alphabet percent-encoded, or raw broken encodings. */
export const urlText: fc.Arbitrary<string> = fc.oneof(
  { weight: 6, arbitrary: hostileString("url").map(percentEncode) },
  { weight: 1, arbitrary: rawUrlText },
);
