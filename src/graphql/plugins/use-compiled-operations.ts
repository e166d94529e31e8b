// Executes queries with graphql-jit: a document is compiled once into plain JavaScript, which skips the
// per-field work of the generic executor (argument coercion, path and info objects, promise
// bookkeeping), a large share of a list's CPU. Every other envelop hook (bounds, size limit, error
// mapping, metrics) runs around it unchanged.
//
// Which documents: a /graphql query once its document has run before (Yoga's parse cache hands back the
// same document for the same text): compiling costs more than running a query once, so one-off
// documents are not worth it. (The REST routes' reads are compiled at start and run outside envelop:
// in-process-queries.ts, which shares this file's steps.) Mutations and subscriptions keep the reference
// executor — input objects must reach resolvers exactly as graphql-js coerces them (an absent field stays
// absent; partial updates rely on it). So what clients see stays graphql-js's:
// - variables are coerced by graphql-js first; a request whose variables it refuses runs the reference
//   executor, which answers with graphql-js's own errors;
// - graphql-jit's field errors carry no AST nodes (so no `locations`): they are given the nodes of the
//   field at their path before the error mapping (use-error-mapping.ts) sees them.
import type { Plugin } from "@envelop/core";
import { useGraphQlJit } from "@envelop/graphql-jit";
import {
  type DocumentNode,
  type ExecutionResult,
  type FieldNode,
  GraphQLError,
  type GraphQLSchema,
  getOperationAST,
  Kind,
  OperationTypeNode,
  type SelectionSetNode,
} from "graphql";
import { getVariableValues } from "graphql/execution/values.js";
import { markCompiledContext } from "../execution/compiled-paths.ts";

/** /graphql query documents executed once already: compiled from their second execution. */
const seenOnce = new WeakSet<DocumentNode>();

let compiledCount = 0;

/** How many executions ran compiled in this process (tests show which path a request took). */
export function compiledExecutions(): number {
  return compiledCount;
}

interface ExecuteArgs {
  schema: GraphQLSchema;
  document: DocumentNode;
  operationName?: string | null;
  variableValues?: Record<string, unknown> | null;
  contextValue?: unknown;
}

function runsCompiled(args: ExecuteArgs): boolean {
  const operation = getOperationAST(args.document, args.operationName);
  if (operation?.operation !== OperationTypeNode.QUERY) return false;
  if (!seenOnce.has(args.document)) {
    seenOnce.add(args.document);
    return false;
  }
  const variables = operation.variableDefinitions ?? [];
  const coerced = getVariableValues(args.schema, variables, args.variableValues ?? {}, { maxErrors: 1 });
  if (coerced.errors !== undefined) return false;
  markCompiledContext(args.contextValue);
  countCompiledExecution();
  return true;
}

/** One more execution ran compiled (REST's run outside this plugin: in-process-queries.ts). */
export function countCompiledExecution(): void {
  compiledCount++;
}

export function useCompiledOperations(): Plugin {
  const jit = useGraphQlJit({}, { enableIf: (args) => runsCompiled(args as ExecuteArgs) });
  return {
    onExecute(payload) {
      jit.onExecute?.(payload);
      const { document, operationName } = payload.args;
      return {
        onExecuteDone: ({ result, setResult }) => {
          if (!("errors" in result)) return;
          const located = withFieldNodes(result, document, operationName);
          if (located !== result) setResult(located);
        },
      };
    },
  };
}

/** The result with its field errors given the nodes of the field at their path (graphql-jit's have none). */
export function withFieldNodes(
  result: ExecutionResult,
  document: DocumentNode,
  operationName: string | null | undefined,
): ExecutionResult {
  if (!result.errors?.some((error) => !error.nodes?.length && error.path)) return result;
  return {
    ...result,
    errors: result.errors.map((error) =>
      error.nodes?.length || !error.path
        ? error
        : new GraphQLError(error.message, {
            nodes: fieldNodesAt(document, operationName, error.path),
            path: error.path,
            originalError: error.originalError,
            extensions: error.extensions,
          }),
    ),
  };
}

/** The field nodes a response path names (list indices skipped), through fragments; [] if none. */
function fieldNodesAt(
  document: DocumentNode,
  operationName: string | null | undefined,
  path: readonly (string | number)[],
): FieldNode[] {
  const operation = getOperationAST(document, operationName);
  if (!operation) return [];
  let selections: SelectionSetNode[] = [operation.selectionSet];
  let found: FieldNode[] = [];
  for (const key of path) {
    if (typeof key === "number") continue;
    found = selections.flatMap((set) => fieldsNamed(document, set, key));
    selections = found.flatMap((field) => (field.selectionSet ? [field.selectionSet] : []));
  }
  return found;
}

function fieldsNamed(document: DocumentNode, set: SelectionSetNode, responseKey: string): FieldNode[] {
  return set.selections.flatMap((selection) => {
    if (selection.kind === Kind.FIELD)
      return (selection.alias?.value ?? selection.name.value) === responseKey ? [selection] : [];
    if (selection.kind === Kind.INLINE_FRAGMENT)
      return fieldsNamed(document, selection.selectionSet, responseKey);
    const fragment = document.definitions.find(
      (definition) =>
        definition.kind === Kind.FRAGMENT_DEFINITION && definition.name.value === selection.name.value,
    );
    return fragment?.kind === Kind.FRAGMENT_DEFINITION
      ? fieldsNamed(document, fragment.selectionSet, responseKey)
      : [];
  });
}
