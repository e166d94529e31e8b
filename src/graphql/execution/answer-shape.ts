// What a GraphQL answer can depend on, read from its document before it runs (issue 38): the GraphQL
// side of src/cache/answer-dependencies.ts. A document that asks only for records and what those
// records hold themselves (a post with its category, tags, authors and field values; a category, tag
// or author by identifier) depends on the records it returned (collected as it runs:
// answer-records.ts). A document that also lists posts, without a search, depends on those records and
// on the listings (which posts a list holds, in what order, how many). Anything else — counts,
// searches, taxonomies' and media's lists, revisions, field definitions as such — depends on the whole
// content its key kind sees, as every GraphQL answer did before.
//
// The fields below are an allowlist, type by type: a field not named here makes the answer "content",
// so a field added to the schema later is safe until someone says what it depends on (a test checks
// that every field of these types is named on one side or the other).

import {
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLNamedType,
  type GraphQLSchema,
  getNamedType,
  isObjectType,
  Kind,
  type OperationDefinitionNode,
  type SelectionSetNode,
} from "graphql";
import type { AnswerShape } from "../../cache/answer-dependencies.ts";

/**
 * Per type: the fields whose values come from the record itself (or from the records they return,
 * which are collected too), and the fields that do not (`content`: counts, nested post lists,
 * revisions). Every field of each type is on one side.
 */
export const RECORD_FIELDS: Record<string, { fields: readonly string[]; content: readonly string[] }> = {
  Query: {
    // By identifier: the record found (a missing one is an error, never stored). Post lists: below.
    fields: ["post", "category", "tag", "author"],
    content: [],
  },
  Post: {
    fields: [
      "id",
      "slug",
      "title",
      "status",
      "featured",
      "content",
      "description",
      "attribution",
      "publishedAt",
      "scheduled",
      "createdAt",
      "updatedAt",
      // The row's own column, like publishedAt (the cache also stops serving an answer at it).
      "unpublishAt",
      "coverImage",
      "coverImageSrcSet",
      "category",
      "tags",
      "authors",
      // Values are the post's own; their keys follow the field definitions (always a dependency).
      "fields",
      "fieldEntries",
    ],
    // A post's translations and the workspace's locales (issue 56): read beyond the post's own row.
    content: ["revisions", "locale", "availableLocales", "alternates"],
  },
  // `locale`: the translation served, read beyond the record's own row (issue 56).
  Category: {
    fields: ["id", "name", "slug", "description", "createdAt", "updatedAt"],
    content: ["count", "posts", "locale"],
  },
  Tag: {
    fields: ["id", "name", "slug", "description", "createdAt", "updatedAt"],
    content: ["count", "posts", "locale"],
  },
  Author: {
    fields: ["id", "name", "slug", "bio", "email", "image", "role", "socials", "createdAt", "updatedAt"],
    content: ["count", "locale"],
  },
  Social: { fields: ["platform", "url"], content: [] },
  PostFieldEntry: { fields: ["key", "type", "value", "text", "number", "boolean", "values"], content: [] },
  // A post list's page and its connection: which posts, in what order, how many — the listings.
  PostPage: { fields: ["items", "pagination"], content: [] },
  Pagination: {
    fields: ["currentPage", "limit", "nextPage", "previousPage", "totalItems", "totalPages"],
    content: [],
  },
  QueryPostsConnection: { fields: ["edges", "pageInfo", "totalCount"], content: [] },
  QueryPostsConnectionEdge: { fields: ["cursor", "node"], content: [] },
  PageInfo: { fields: ["endCursor", "hasNextPage", "hasPreviousPage", "startCursor"], content: [] },
};

const RECORD_FIELD_SETS = new Map(
  Object.entries(RECORD_FIELDS).map(([type, { fields }]) => [type, new Set(fields)]),
);
/** Root fields that list posts: listing-shaped unless they search (a title or body edit moves matches). */
const POST_LISTS = new Set(["posts", "postsConnection"]);
const SEARCH_ARGUMENT = "query";
/** Root fields that read one record and take a `locale` (issue 56). */
const LOCALIZED_ROOTS = new Set(["post", "category", "tag", "author"]);

/** Post fields whose records take a `locale` and `fallback` of their own (issue 56). */
const NESTED_LOCALIZED = new Set(["category", "tags", "authors"]);

/** The shape of the operation's answer (the operation is one the cache stores: a query). */
export function answerShape(
  schema: GraphQLSchema,
  document: DocumentNode,
  operation: OperationDefinitionNode,
): AnswerShape {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of document.definitions)
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
  const root = schema.getQueryType();
  if (!root) return "content";
  let listing = false;
  /** False as soon as one field reads beyond its records. */
  const visit = (selectionSet: SelectionSetNode, type: GraphQLNamedType, seen: Set<string>): boolean => {
    for (const selection of selectionSet.selections) {
      if (selection.kind === Kind.FRAGMENT_SPREAD) {
        const name = selection.name.value;
        const fragment = fragments.get(name);
        if (!fragment || seen.has(name)) return false;
        if (
          !visit(
            fragment.selectionSet,
            typeNamed(schema, fragment.typeCondition?.name.value, type),
            new Set(seen).add(name),
          )
        )
          return false;
        continue;
      }
      if (selection.kind === Kind.INLINE_FRAGMENT) {
        if (
          !visit(selection.selectionSet, typeNamed(schema, selection.typeCondition?.name.value, type), seen)
        )
          return false;
        continue;
      }
      const rule = fieldRule(type, selection, root.name);
      if (!rule) return false;
      if (rule === "listing") listing = true;
      if (!selection.selectionSet) continue;
      if (!isObjectType(type)) return false;
      const field = type.getFields()[selection.name.value];
      if (!field || !visit(selection.selectionSet, getNamedType(field.type), seen)) return false;
    }
    return true;
  };
  if (!visit(operation.selectionSet, root, new Set())) return "content";
  return listing ? "listing" : "records";
}

function typeNamed(
  schema: GraphQLSchema,
  name: string | undefined,
  fallback: GraphQLNamedType,
): GraphQLNamedType {
  return (name && schema.getType(name)) || fallback;
}

function hasArgument(field: FieldNode, name: string): boolean {
  return field.arguments?.some((argument) => argument.name.value === name) ?? false;
}

function fieldRule(
  type: GraphQLNamedType,
  field: FieldNode,
  rootName: string,
): "record" | "listing" | undefined {
  const name = field.name.value;
  if (name === "__typename") return "record";
  // A record (or a post list) read in a locale depends on its translations and on the locales' fallback
  // chains, which its own id does not stand for: the whole content its key kind sees.
  if (
    type.name === rootName &&
    (LOCALIZED_ROOTS.has(name) || POST_LISTS.has(name)) &&
    hasArgument(field, "locale")
  )
    return undefined;
  // A post's category, tags or authors in a locale of their own (issue 56): read beyond their rows.
  if (
    type.name === "Post" &&
    NESTED_LOCALIZED.has(name) &&
    (hasArgument(field, "locale") || hasArgument(field, "fallback"))
  )
    return undefined;
  if (type.name === rootName && POST_LISTS.has(name))
    return field.arguments?.some((argument) => argument.name.value === SEARCH_ARGUMENT)
      ? undefined
      : "listing";
  return RECORD_FIELD_SETS.get(type.name)?.has(name) ? "record" : undefined;
}
