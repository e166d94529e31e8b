// Facts about a parsed GraphQL document that never change, worked out once per document: Yoga's parse
// cache hands back the same DocumentNode for the same text, and the REST routes parse theirs once at
// start, so a repeated query is walked once, not on every request.
import type { DocumentNode } from "graphql";

export function keptPerDocument<T>(compute: (document: DocumentNode) => T): (document: DocumentNode) => T {
  const kept = new WeakMap<DocumentNode, { value: T }>();
  return (document) => {
    let entry = kept.get(document);
    if (!entry) {
      entry = { value: compute(document) };
      kept.set(document, entry);
    }
    return entry.value;
  };
}
