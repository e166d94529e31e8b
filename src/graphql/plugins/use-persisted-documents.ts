// Persisted documents: Automatic Persisted Queries, the protocol of Apollo Client's persisted-query
// link and urql's persistedExchange. A client sends the SHA-256 of its document in
// `extensions.persistedQuery` ({ version: 1, sha256Hash }) and no document; when the service does not
// hold the hash it answers 404 `PersistedQueryNotFound`, and the client sends document and hash once,
// which registers it. From then on a query is a short GET URL
// (`/graphql?extensions=…&variables=…`) that browsers and CDNs cache and revalidate with the ETag of
// use-content-response-cache.ts. Documents sent in full keep working as before.
//
// Lookup and the errors are graphql-yoga's plugin (@graphql-yoga/plugin-persisted-operations); this file
// adds the registration and the store: each instance's memory, bounded by bytes. An instance that has
// not seen a hash answers not found and the client registers it there — the protocol's own recovery —
// so nothing needs sharing between instances, and nothing is lost on restart but one round trip.
import { createHash } from "node:crypto";
import { usePersistedOperations } from "@graphql-yoga/plugin-persisted-operations";
import type { Plugin } from "graphql-yoga";
import { LRUCache } from "lru-cache";
import { badRequestError, persistedQueryNotFoundError } from "../errors.ts";

export interface PersistedDocumentsOptions {
  /** Bytes of documents kept at most (least recently used go first). */
  maxBytes?: number;
}

export function usePersistedDocuments({
  maxBytes = 4 * 1024 * 1024,
}: PersistedDocumentsOptions = {}): Plugin {
  const documents = new LRUCache<string, string>({
    maxSize: maxBytes,
    sizeCalculation: (document, hash) => document.length + hash.length,
  });
  return {
    onPluginInit({ addPlugin }) {
      addPlugin({
        // Registration: a document sent with its hash is kept under that hash, once the hash is its own.
        onParams({ params }) {
          const hash = persistedQueryHash(params.extensions);
          if (!hash || typeof params.query !== "string") return;
          if (sha256Hex(params.query) !== hash.toLowerCase())
            throw badRequestError("extensions.persistedQuery.sha256Hash is not the SHA-256 of the query");
          documents.set(hash.toLowerCase(), params.query);
        },
      });
      addPlugin(
        usePersistedOperations({
          allowArbitraryOperations: true,
          getPersistedOperation: (hash) => documents.get(hash.toLowerCase()) ?? null,
          customErrors: {
            notFound: () => persistedQueryNotFoundError(),
            // Neither a document nor a hash: the error GraphQL over HTTP gives a request without a query.
            keyNotFound: () => badRequestError("Must provide query string."),
          },
        }),
      );
    },
  };
}

function persistedQueryHash(extensions: unknown): string | null {
  const persisted = (
    extensions as { persistedQuery?: { version?: unknown; sha256Hash?: unknown } } | undefined
  )?.persistedQuery;
  return persisted?.version === 1 && typeof persisted.sha256Hash === "string" ? persisted.sha256Hash : null;
}

function sha256Hex(text: string): string {
  return createHash("sha256").update(text, "utf8").digest("hex");
}
