// The records a GraphQL answer holds, collected as it runs (issue 38): an answer of a record-shaped
// document (answer-shape.ts) depends on them, so that an edit of another post leaves it fresh. Every
// field that returns a post, category, tag or author hands its records' ids to the request's
// collector; a record's data reaches an answer only through such a field, whether or not the document
// selects its `id`. Requests without a collector (REST's in-process executions, mutations, answers the
// cache does not store) pay one property read per such field.

import { defaultFieldResolver, type GraphQLSchema, getNamedType, isObjectType } from "graphql";
import { MAX_RECORD_DEPENDENCIES } from "../../cache/answer-dependencies.ts";
import { earlierExpiry } from "../../cache/answer-expiry.ts";

/** Types whose records are change log resources: their events name these ids. */
const RECORD_TYPES = new Set(["Post", "Category", "Tag", "Author"]);

const COLLECTOR = Symbol("answer records");

interface Collector {
  ids: Set<string>;
  /** More ids than the bound, or a value whose ids could not be read. */
  overflowed: boolean;
  /** The earliest unpublishAt of the posts returned (ms): public to nobody from then on. */
  expiresAt: number | null;
}

/** Starts collecting the records the execution with this context returns. */
export function collectAnswerRecords(context: object): void {
  (context as { [COLLECTOR]?: Collector })[COLLECTOR] = {
    ids: new Set(),
    overflowed: false,
    expiresAt: null,
  };
}

/**
 * The earliest `unpublishAt` of the posts the execution returned (ms), null when none has one: its
 * answer may not be served from then on (the post is public to nobody, post-visibility.ts), whether
 * or not the document selects the field.
 */
export function answerExpiry(context: object): number | null {
  return (context as { [COLLECTOR]?: Collector })[COLLECTOR]?.expiresAt ?? null;
}

/** The ids collected for this context; null when there were too many (or none were being collected). */
export function answerRecords(context: object): string[] | null {
  const collector = (context as { [COLLECTOR]?: Collector })[COLLECTOR];
  return collector && !collector.overflowed ? [...collector.ids] : null;
}

/** Wraps every field that returns records of the change log's resources (once, at schema build). */
export function recordAnswerRecords(schema: GraphQLSchema): void {
  for (const type of Object.values(schema.getTypeMap())) {
    if (!isObjectType(type) || type.name.startsWith("__")) continue;
    for (const field of Object.values(type.getFields())) {
      if (!RECORD_TYPES.has(getNamedType(field.type).name)) continue;
      const resolve = field.resolve ?? defaultFieldResolver;
      field.resolve = (parent, args, context, info) => {
        const value = resolve(parent, args, context, info);
        const collector = (context as { [COLLECTOR]?: Collector } | null)?.[COLLECTOR];
        if (!collector) return value;
        if (value instanceof Promise)
          return value.then((resolved) => {
            collect(resolved, collector);
            return resolved;
          });
        collect(value, collector);
        return value;
      };
    }
  }
}

function collect(value: unknown, collector: Collector): void {
  if (value === null || value === undefined) return;
  if (Array.isArray(value)) {
    for (const item of value) collect(item, collector);
    return;
  }
  collector.expiresAt = earlierExpiry(collector.expiresAt, (value as { unpublishAt?: unknown }).unpublishAt);
  const id = (value as { id?: unknown }).id;
  if (typeof id !== "string") {
    collector.overflowed = true;
    return;
  }
  collector.ids.add(id);
  if (collector.ids.size > MAX_RECORD_DEPENDENCIES) collector.overflowed = true;
}
