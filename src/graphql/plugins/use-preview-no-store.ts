// Answers read through a preview token (`post(preview:)`) may be kept by no cache: they show
// unpublished content, and a token stops working (expiry, revocation) without any content change that
// a validator or the response cache (use-content-response-cache.ts, which skips such reads) could see.
// The REST door does the same for `?preview=` (src/rest/router.ts).
// Nor may a mutation's answer be kept: it may hold a secret (a webhook endpoint's signing secret, a
// preview token), and REST's writes say the same.
import { BREAK, type DocumentNode, getOperationAST, visit } from "graphql";
import type { Plugin } from "graphql-yoga";
import { keptPerDocument } from "../execution/per-document.ts";

/**
 * Whether an operation passes a `preview` argument anywhere (a token, a variable or even null). Kept
 * per document: walked on every request, it was 1.5–2% of a GraphQL list's CPU.
 */
export const readsPreview = keptPerDocument(findPreviewArgument);

function findPreviewArgument(document: DocumentNode): boolean {
  let found = false;
  visit(document, {
    Argument(node) {
      if (node.name.value !== "preview") return undefined;
      found = true;
      return BREAK;
    },
  });
  return found;
}

export function usePreviewNoStore(): Plugin {
  const noStoreRequests = new WeakSet<Request>();
  return {
    onExecute({ args }) {
      // HTTP requests only: REST's in-process executions carry no `request` and set their own headers.
      const request = (args.contextValue as { request?: Request }).request;
      if (!request) return;
      const mutation = getOperationAST(args.document, args.operationName)?.operation === "mutation";
      if (mutation || readsPreview(args.document)) noStoreRequests.add(request);
    },
    onResponse({ request, response }) {
      if (!noStoreRequests.has(request)) return;
      response.headers.set("Cache-Control", "private, no-store");
      response.headers.delete("ETag");
    },
  };
}
