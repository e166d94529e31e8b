// GraphQL over HTTP: a client that accepts `application/graphql-response+json` gets it, and with it
// the HTTP status that says what happened (4xx for a document that does not parse or validate), even
// when it lists `application/json` too. Yoga picks the last acceptable type of equal standing, so a
// client sending `Accept: application/json, application/graphql-response+json` or `*/*` would get the
// legacy `application/json` answer with 200. Since the specification's watershed (2025-01-01) a
// request without an Accept header is treated as accepting `application/graphql-response+json`.
// Clients that accept only `application/json` keep the legacy behaviour (200 with `errors`).
import { type Plugin, processRegularResult } from "graphql-yoga";

const GRAPHQL_RESPONSE = "application/graphql-response+json";
const LEGACY_JSON = "application/json";

export function useGraphQLResponseMediaType(): Plugin {
  return {
    onResultProcess({ request, resultProcessor, setResultProcessor }) {
      if (resultProcessor !== processRegularResult) return;
      if (prefersGraphQLResponse(request.headers.get("accept")))
        setResultProcessor(processRegularResult, GRAPHQL_RESPONSE);
    },
  };
}

function prefersGraphQLResponse(acceptHeader: string | null | undefined): boolean {
  return regularResultMediaType(acceptHeader ?? undefined) === GRAPHQL_RESPONSE;
}

/**
 * The media type of a regular (single) result for this Accept header, when it is one of the two JSON
 * types without doubt; null when Yoga's own negotiation would have to decide.
 */
export function regularResultMediaType(acceptHeader: string | undefined): string | null {
  const weights = acceptWeights(acceptHeader?.trim() || "*/*");
  const preferred = weightOf(weights, GRAPHQL_RESPONSE);
  const legacy = weightOf(weights, LEGACY_JSON);
  if (preferred > 0 && preferred >= legacy) return GRAPHQL_RESPONSE;
  return preferred === 0 && legacy > 0 ? LEGACY_JSON : null;
}

/** `a/b;q=0.5, c/d` → { a/b: 0.5, c/d: 1 } (parameters other than q are ignored). */
function acceptWeights(accept: string): Map<string, number> {
  const weights = new Map<string, number>();
  for (const part of accept.split(",")) {
    const [type = "", ...params] = part.split(";").map((piece) => piece.trim().toLowerCase());
    const q = params.find((param) => param.startsWith("q="));
    const weight = q ? Number(q.slice(2)) : 1;
    if (type) weights.set(type, Number.isFinite(weight) ? weight : 0);
  }
  return weights;
}

// The weight of a media type: its own entry, else the application wildcard, else the full wildcard, else 0.
function weightOf(weights: Map<string, number>, mediaType: string): number {
  return weights.get(mediaType) ?? weights.get("application/*") ?? weights.get("*/*") ?? 0;
}
