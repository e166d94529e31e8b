// The complexity limits (builder.ts) for documents that run again and again with few distinct costs:
// the REST routes' operations. The Pothos complexity plugin walks the document with the request's
// variables on every execution; a route's document is fixed, and its cost depends only on its Int
// variables (page sizes: `limit`, `first`) and Boolean ones (`@include`/`@skip`), so the measures are
// computed once per such combination and kept. The check and the error are the plugin's own
// (same measures, same order, same QUERY_TOO_COMPLEX error); the execution is then marked so the plugin
// does not walk the document again.
import { type ComplexityResult, complexityFromQuery } from "@pothos/plugin-complexity";
import {
  type DocumentNode,
  type GraphQLError,
  type GraphQLSchema,
  getNamedType,
  getOperationAST,
  typeFromAST,
} from "graphql";
import { queryTooComplexError } from "../errors.ts";

/** Distinct costs kept per document: a route has a few page sizes in use; past this, no more are kept. */
const MAX_KEPT_PER_DOCUMENT = 256;

interface DocumentCosts {
  /** The variables whose values can change the cost: Int and Boolean ones. */
  costVariables: string[];
  measures: Map<string, ComplexityResult>;
}

const costsByDocument = new WeakMap<DocumentNode, DocumentCosts>();
const checkedContexts = new WeakSet<object>();

/**
 * Checks `document` with `variables` against `limits`: the error the complexity plugin would raise, or
 * null. On a pass `context` is marked as checked; variables the document refuses mark nothing.
 */
export function checkKnownComplexity(
  schema: GraphQLSchema,
  document: DocumentNode,
  variables: Record<string, unknown>,
  limits: ComplexityResult,
  context: object,
): GraphQLError | null {
  const costs = costsOf(schema, document);
  const key = costs.costVariables.map((name) => String(variables[name])).join("\u0000");
  let measures = costs.measures.get(key);
  if (!measures) {
    try {
      measures = complexityFromQuery(document, { schema, variables, ctx: context });
    } catch {
      // Variables the document refuses: left to the execution, which reports them (and runs the plugin).
      return null;
    }
    if (costs.measures.size < MAX_KEPT_PER_DOCUMENT) costs.measures.set(key, measures);
  }
  if (limits.depth < measures.depth) return queryTooComplexError("depth", measures.depth, limits.depth);
  if (limits.breadth < measures.breadth)
    return queryTooComplexError("breadth", measures.breadth, limits.breadth);
  if (limits.complexity < measures.complexity)
    return queryTooComplexError("complexity", measures.complexity, limits.complexity);
  checkedContexts.add(context);
  return null;
}

/** Whether this execution's document was checked already (the plugin's `limit` then skips it). */
export function complexityChecked(context: object): boolean {
  return checkedContexts.has(context);
}

function costsOf(schema: GraphQLSchema, document: DocumentNode): DocumentCosts {
  let costs = costsByDocument.get(document);
  if (!costs) {
    const definitions = getOperationAST(document)?.variableDefinitions ?? [];
    const costVariables = definitions
      .filter((definition) => {
        const type = typeFromAST(schema, definition.type);
        const name = type && getNamedType(type).name;
        return name === "Int" || name === "Boolean";
      })
      .map((definition) => definition.variable.name.value);
    costs = { costVariables, measures: new Map() };
    costsByDocument.set(document, costs);
  }
  return costs;
}
