// Executes chosen documents — the REST routes' operations, parsed once at start — with graphql-jit:
// each is compiled once into plain JavaScript, which skips the per-field work of the generic executor
// (argument coercion, path and info objects, promise bookkeeping), a large share of a list's CPU.
// Every other envelop hook (bounds, size limit, error mapping, metrics) runs around it unchanged.
// Documents sent to /graphql keep the reference executor: graphql-jit's errors carry no `locations`,
// and its variable coercion words its errors differently — both part of what GraphQL clients see.
import type { Plugin } from "@envelop/core";
import { useGraphQlJit } from "@envelop/graphql-jit";
import type { DocumentNode } from "graphql";

const compiledDocuments = new WeakSet<DocumentNode>();

/** Marks a document (kept by its caller for the life of the process) to run compiled. */
export function runCompiled(document: DocumentNode): void {
  compiledDocuments.add(document);
}

export function useCompiledOperations(): Plugin {
  return useGraphQlJit({}, { enableIf: (args) => compiledDocuments.has(args.document) });
}
