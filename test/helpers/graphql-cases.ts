// Generated GraphQL requests for one root field of the schema: its arguments walked from the schema
// into JSON Schema (so the REST generators serve both doors), given as variables — mostly valid, one
// mistake away from valid, or an envelope that is not what GraphQL-over-HTTP expects — with a selection
// of every field the result type offers, sent with each kind of key.
import fc from "fast-check";
import {
  type GraphQLField,
  type GraphQLInputType,
  type GraphQLNamedType,
  type GraphQLOutputType,
  getNamedType,
  isEnumType,
  isInputObjectType,
  isLeafType,
  isListType,
  isNonNullType,
  isObjectType,
  isRequiredArgument,
  isRequiredInputField,
} from "graphql";
import {
  bodyText,
  fromJsonSchema,
  hostileString,
  hostileValue,
  type JsonSchema,
  mutatedFromJsonSchema,
  type PropertyHints,
  rarely,
  urlString,
  validSlug,
} from "./arbitraries.ts";
import {
  customFieldValues,
  fieldOptions,
  localeCode,
  RESOURCES,
  type Resource,
  webhookEvents,
} from "./fuzz-workspaces.ts";
import { callerKey, type FuzzTargets, type KeyKind } from "./rest-cases.ts";

export interface GraphQLCase {
  operation: "query" | "mutation";
  field: string;
  key: KeyKind;
  authorization?: string;
  /** The JSON body of the POST. */
  body: { query: string; variables?: unknown; operationName?: unknown };
  /** Whether an identifier or reference names a record of the other workspace. */
  namesOtherWorkspace: boolean;
}

const INT_RANGE = { minimum: -(2 ** 31), maximum: 2 ** 31 - 1 };

/** Root fields worth fuzzing: those with arguments, except the multipart upload (covered by the media suites). */
export function fuzzableFields(
  type: { getFields(): Record<string, GraphQLField<unknown, unknown>> } | null | undefined,
): GraphQLField<unknown, unknown>[] {
  return Object.values(type?.getFields() ?? {}).filter(
    (field) => field.args.length > 0 && !field.args.some((arg) => getNamedType(arg.type).name === "Upload"),
  );
}

export function graphqlCase(
  operation: "query" | "mutation",
  field: GraphQLField<unknown, unknown>,
  targets: FuzzTargets,
): fc.Arbitrary<GraphQLCase> {
  const argsSchema: JsonSchema = {
    type: "object",
    properties: Object.fromEntries(field.args.map((arg) => [arg.name, inputSchema(arg.type)])),
    required: field.args.filter(isRequiredArgument).map((arg) => arg.name),
  };
  const hints = argumentHints(operation, resourceOf(field.name), targets);
  const declarations = field.args.map((arg) => `$${arg.name}: ${String(arg.type)}`).join(", ");
  const passing = field.args.map((arg) => `${arg.name}: $${arg.name}`).join(", ");
  const query = `${operation} Fuzz(${declarations}) { ${field.name}(${passing}) ${selection(field.type, 3)} }`;
  const variables = fc.oneof(
    { weight: 5, arbitrary: fromJsonSchema(argsSchema, hints) },
    { weight: 4, arbitrary: mutatedFromJsonSchema(argsSchema, hints) },
  );
  const envelope: fc.Arbitrary<GraphQLCase["body"]> = fc.oneof(
    { weight: 12, arbitrary: variables.map((v) => ({ query, variables: v })) },
    {
      weight: 1,
      arbitrary: fc.oneof(
        fc.constant({ query }),
        hostileValue.map((v) => ({ query, variables: v })),
        variables.map((v) => ({ query, variables: v, operationName: "Other" })),
        hostileValue.map((v) => ({ query, variables: {}, operationName: v })),
      ),
    },
  );
  return fc
    .record({ key: callerKey(operation === "mutation", targets.a), body: envelope })
    .map(({ key, body }) => ({
      operation,
      field: field.name,
      key: key.kind,
      ...(key.authorization === undefined ? {} : { authorization: key.authorization }),
      body,
      namesOtherWorkspace: namesB(targets, operation, body.variables),
    }));
}

/**
 * A GraphQL input type as JSON Schema, Int as 32 bits. Nullable input fields mostly mean "optional"
 * (null is often refused: an update cannot null a title), so valid values leave null out; the mutated
 * values put it anywhere.
 */
function inputSchema(type: GraphQLInputType): JsonSchema {
  return nullableSchema(isNonNullType(type) ? type.ofType : type);
}

function nullableSchema(type: GraphQLInputType): JsonSchema {
  if (isListType(type)) return { type: "array", items: inputSchema(type.ofType) };
  if (isEnumType(type)) return { type: "string", enum: type.getValues().map((v) => v.name) };
  if (isInputObjectType(type)) {
    const fields = Object.values(type.getFields());
    return {
      type: "object",
      properties: Object.fromEntries(fields.map((f) => [f.name, inputSchema(f.type)])),
      required: fields.filter(isRequiredInputField).map((f) => f.name),
    };
  }
  switch (type.name) {
    case "Int":
      return { type: "integer", ...INT_RANGE };
    case "Float":
      return { type: "number" };
    case "Boolean":
      return { type: "boolean" };
    case "DateTime":
      return { type: "string", format: "date-time" };
    case "JSON":
      return {};
    default:
      return { type: "string" };
  }
}

/** Every field of the result a client could select without required arguments, `depth` levels deep. */
function selection(type: GraphQLOutputType, depth: number): string {
  const named: GraphQLNamedType = getNamedType(type);
  if (isLeafType(named) || !isObjectType(named)) return "";
  const parts = Object.values(named.getFields())
    .filter((f) => !f.args.some(isRequiredArgument))
    .flatMap((f) => {
      if (isLeafType(getNamedType(f.type))) return [f.name];
      // Nested pages (a category's posts) multiply the cost; the root field's own page is enough.
      if (depth <= 1 || f.args.length > 0) return [];
      return [`${f.name} ${selection(f.type, depth - 1)}`];
    });
  return `{ __typename ${parts.join(" ")} }`;
}

/** `createPost`, `posts`, `postsConnection`, `mediaList` → `posts` … the resource its identifiers are of. */
function resourceOf(fieldName: string): Resource {
  // The change log names no records of its own: any resource's hints serve (`after` gets post cursors).
  if (fieldName === "events" || fieldName === "changes") return "posts";
  if (/ApiKey/i.test(fieldName)) return "keys";
  const base = fieldName
    .replace(/^(create|update|delete|rotate|retry|replay|send|restore|revoke)/, "")
    .toLowerCase();
  const found = RESOURCES.find((r) => base.startsWith(r.slice(0, 3)));
  if (!found) throw new Error(`No resource for ${fieldName}`);
  return found;
}

/** Real identifiers of A (writes reach records, slugs conflict), B's ids (never reachable), cursors. */
function argumentHints(
  operation: "query" | "mutation",
  resource: Resource,
  { a, bIds, cursors }: FuzzTargets,
): PropertyHints {
  // Identifiers take an id or a slug (key); references in write inputs an id only.
  const target = (of: Resource, byId: boolean) =>
    fc.oneof(
      { weight: 10, arbitrary: byId ? a.pool.pickId(of) : a.pool.pick(of) },
      { weight: 1, arbitrary: fc.constantFrom(...bIds[of]) },
      { weight: 1, arbitrary: hostileString() },
    );
  const reference = (of: Resource) => target(of, true);
  const fieldKey = fc.constantFrom(...Object.values(a.fieldKeys));
  return {
    identifier: target(resource, false),
    id: reference(resource),
    categoryId: reference("categories"),
    // A write's tag ids; a query's tag slugs to filter by.
    tags: fc.array(operation === "mutation" ? reference("tags") : a.pool.pick("tags"), { maxLength: 3 }),
    authors: fc.array(reference("authors"), { maxLength: 3 }),
    categories: fc.array(a.pool.pick("categories"), { maxLength: 2 }),
    excludeCategories: fc.array(a.pool.pick("categories"), { maxLength: 2 }),
    excludeTags: fc.array(a.pool.pick("tags"), { maxLength: 2 }),
    // Relay refuses `before` with `after` or `first`: backward paging is the rarer case, left out mostly.
    after: cursor(cursors, bIds.posts),
    before: rarely(cursor(cursors, bIds.posts), 4),
    slug: fc.oneof(validSlug, a.pool.pick(resource)),
    coverImage: urlString,
    image: urlString,
    url: urlString,
    events: webhookEvents,
    code: localeCode(a.pool),
    fallback: fc.array(localeCode(a.pool), { maxLength: 6 }),
    email: fc.oneof(
      fc.stringMatching(/^[a-z0-9]{1,10}@[a-z]{1,8}\.(com|org)$/),
      fc.emailAddress(),
      hostileString(),
    ),
    key: fc.oneof(fc.stringMatching(/^[a-z0-9_]{1,20}$/), fieldKey),
    content: bodyText,
    fields: customFieldValues(a.fieldKeys),
    options: fieldOptions,
    // A required field refuses every later post without a value for it: made now and then only.
    required: fc.oneof({ weight: 9, arbitrary: fc.constant(false) }, fc.constant(true)),
    limit: fc.integer({ min: 1, max: 100 }),
    page: fc.integer({ min: 1, max: 5 }),
    first: fc.integer({ min: 0, max: 100 }),
    last: rarely(fc.integer({ min: 0, max: 100 }), 4),
    // A preview token decides a post read before anything else: sent now and then, so most reads go on.
    preview: rarely(hostileString(), 4),
  };
}

/**
 * A cursor one of A's answers handed out (valid only with the arguments it was issued for), one of B's
 * post ids (what cursors were before they were bound to their workspace), or anything.
 */
function cursor(issued: readonly string[], bPostIds: readonly string[]): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 3, arbitrary: fc.nat().map((n) => issued[n % issued.length] ?? "no-cursor-yet") },
    { weight: 1, arbitrary: fc.constantFrom(...bPostIds) },
    { weight: 1, arbitrary: hostileString() },
  );
}

/**
 * Whether an identifier, a cursor or (in a write) a reference of the variables is one of B's ids.
 * Query filters (`tags`, `categories`) are not: filtering by an id of B legitimately finds nothing.
 */
function namesB(targets: FuzzTargets, operation: "query" | "mutation", variables: unknown): boolean {
  if (typeof variables !== "object" || variables === null) return false;
  const bIds = new Set(Object.values(targets.bIds).flat());
  const v = variables as Record<string, unknown>;
  const candidates = [v.identifier, v.id, v.after, v.before];
  if (operation === "mutation" && typeof v.input === "object" && v.input !== null) {
    const input = v.input as Record<string, unknown>;
    candidates.push(input.categoryId, input.tags, input.authors);
  }
  return candidates.flat().some((value) => typeof value === "string" && bIds.has(value));
}
