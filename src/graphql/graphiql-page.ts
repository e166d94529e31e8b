// The GraphiQL page of GET /graphql (a browser asking for HTML), served entirely by this service: the
// @graphql-yoga/graphiql bundle, its stylesheet and Monaco's workers come from /assets/graphiql/
// (src/http/explorer-pages.ts), never from a CDN — the page works with no network beyond the service,
// under a Content-Security-Policy with no inline script (the options travel as a JSON data block that
// public/graphiql-start.js reads).
import type { GraphiQLOptions } from "graphql-yoga";

/** Where the page finds its files: the graphiql package's dist folder and public/graphiql-start.js. */
export const GRAPHIQL_ASSETS_PATH = "/assets/graphiql";

/** The headers editor's initial content: how every request must carry a key. */
const EXAMPLE_HEADERS = JSON.stringify({ Authorization: "Bearer <your public or private key>" }, null, 2);

export function renderGraphiQLPage(options: GraphiQLOptions): string {
  const pageOptions = { headers: EXAMPLE_HEADERS, ...options };
  // `<` escaped: the JSON cannot close the script element it sits in.
  const json = JSON.stringify(pageOptions).replaceAll("<", "\\u003c");
  const title = escapeHtml(options.title ?? "GraphiQL");
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>${title}</title>
<link rel="stylesheet" href="${GRAPHIQL_ASSETS_PATH}/graphiql.css">
</head>
<body class="no-focus-outline">
<div id="root">Loading ${title}…</div>
<script type="application/json" id="graphiql-options">${json}</script>
<script src="${GRAPHIQL_ASSETS_PATH}/graphiql-start.js"></script>
<script src="${GRAPHIQL_ASSETS_PATH}/yoga-graphiql.umd.js"></script>
</body>
</html>
`;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
