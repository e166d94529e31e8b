// Whether a GraphQL document asks for nothing but introspection: then it may run without a key
// (GRAPHQL_INTROSPECTION=public) — the schema is no secret (schema.graphql ships with the code), and
// tooling (codegen, graphql-inspector, audits) should not need a key to read it. The document's other
// bounds (tokens, depth, the introspection price) apply as to any other.
import { type DocumentNode, Kind, parse, type SelectionSetNode } from "graphql";

const INTROSPECTION_FIELDS = new Set(["__schema", "__type", "__typename"]);
/** Far more than an introspection query has (GraphiQL's full one: about 600); parsing stops past it. */
const MAX_TOKENS = 5_000;

/** True when `text` parses and every operation in it is a query whose root fields are all introspection. */
export function isIntrospectionOnly(text: unknown): boolean {
  if (typeof text !== "string") return false;
  let document: DocumentNode;
  try {
    document = parse(text, { maxTokens: MAX_TOKENS, noLocation: true });
  } catch {
    return false;
  }
  const fragments = new Map(
    document.definitions.flatMap((definition) =>
      definition.kind === Kind.FRAGMENT_DEFINITION ? [[definition.name.value, definition] as const] : [],
    ),
  );
  const rootOnlyIntrospects = (selectionSet: SelectionSetNode, seen: Set<string>): boolean =>
    selectionSet.selections.every((selection) => {
      if (selection.kind === Kind.FIELD) return INTROSPECTION_FIELDS.has(selection.name.value);
      if (selection.kind === Kind.INLINE_FRAGMENT) return rootOnlyIntrospects(selection.selectionSet, seen);
      const fragment = fragments.get(selection.name.value);
      if (!fragment || seen.has(fragment.name.value)) return false;
      return rootOnlyIntrospects(fragment.selectionSet, new Set([...seen, fragment.name.value]));
    });
  const operations = document.definitions.filter(
    (definition) => definition.kind === Kind.OPERATION_DEFINITION,
  );
  return (
    operations.length > 0 &&
    operations.every(
      (operation) =>
        operation.operation === "query" && rootOnlyIntrospects(operation.selectionSet, new Set()),
    )
  );
}
