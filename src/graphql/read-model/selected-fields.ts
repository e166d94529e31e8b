// Walking a field's selection: which fields a request asks for, through fragments.
import type { FieldNode, FragmentDefinitionNode, GraphQLResolveInfo, SelectionSetNode } from "graphql";
import { Kind } from "graphql";

/** Every field of a selection set, through fragments (validated documents have no fragment cycles). */
export function eachField(
  selectionSet: SelectionSetNode | undefined,
  fragments: Record<string, FragmentDefinitionNode>,
  visit: (field: FieldNode) => void,
): void {
  if (!selectionSet) return;
  for (const selection of selectionSet.selections) {
    if (selection.kind === Kind.FIELD) visit(selection);
    else if (selection.kind === Kind.INLINE_FRAGMENT) eachField(selection.selectionSet, fragments, visit);
    else eachField(fragments[selection.name.value]?.selectionSet, fragments, visit);
  }
}

/**
 * Whether the field being resolved selects its child `name` anywhere (fragments included; under
 * `@skip`/`@include` counts as selected, since the answer must hold it when the condition is met).
 */
export function selectsChild(info: GraphQLResolveInfo, name: string): boolean {
  let found = false;
  for (const field of info.fieldNodes)
    eachField(field.selectionSet, info.fragments, (child) => {
      if (child.name.value === name) found = true;
    });
  return found;
}

/** The Post fields that tell of a read's locale and the post's translations (default-locale-facts.ts). */
const LOCALE_FACT_FIELDS = new Set(["locale", "availableLocales", "alternates"]);

/**
 * Whether the posts the field being resolved returns (under `path`: a page's `items`, a connection's
 * `edges.node`; none for a post itself) select any of the locale facts.
 */
export function selectsLocaleFacts(info: GraphQLResolveInfo, path: readonly string[] = []): boolean {
  let level: readonly FieldNode[] = info.fieldNodes;
  for (const name of path) {
    const next: FieldNode[] = [];
    for (const field of level)
      eachField(field.selectionSet, info.fragments, (child) => {
        if (child.name.value === name) next.push(child);
      });
    level = next;
  }
  let found = false;
  for (const field of level)
    eachField(field.selectionSet, info.fragments, (child) => {
      if (LOCALE_FACT_FIELDS.has(child.name.value)) found = true;
    });
  return found;
}
