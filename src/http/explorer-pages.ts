// The pages a person opens in a browser, all served by this service with no outside requests: `/`
// (what is here), `/docs` (the REST reference: Scalar over /v1/openapi.json), the GraphiQL page of
// GET /graphql (rendered by src/graphql/graphiql-page.ts), and their files under /assets/. Each page
// carries a Content-Security-Policy that allows nothing from elsewhere and no inline script; styles
// may be inline (GraphiQL, Monaco and Scalar set them at run time).
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import express, { type RequestHandler, type Router } from "express";
import { GRAPHIQL_ASSETS_PATH } from "../graphql/graphiql-page.ts";

export const PAGE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "worker-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ");

const require = createRequire(import.meta.url);
const PUBLIC_DIR = fileURLToPath(new URL("../../public", import.meta.url));
/** A package's folder: up from its entry file to its package.json (its exports need not list that file). */
function packageDir(name: string): string {
  let dir = path.dirname(require.resolve(name));
  while (!existsSync(path.join(dir, "package.json")) || readPackageName(dir) !== name) {
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error(`No package.json of ${name} above its entry`);
    dir = parent;
  }
  return dir;
}

function readPackageName(dir: string): string | undefined {
  return (JSON.parse(readFileSync(path.join(dir, "package.json"), "utf8")) as { name?: string }).name;
}

const GRAPHIQL_DIST = path.join(packageDir("@graphql-yoga/graphiql"), "dist");
const SCALAR_BROWSER = path.join(packageDir("@scalar/api-reference"), "dist", "browser");

/** Library files change only with a new install: a day in browser caches, revalidated after. */
const ASSET_CACHE = { maxAge: "1d", index: false, fallthrough: false } as const;

export function explorerPages(): Router {
  const router = express.Router();
  router.use(GRAPHIQL_ASSETS_PATH, express.static(GRAPHIQL_DIST, { ...ASSET_CACHE, fallthrough: true }));
  router.get(`${GRAPHIQL_ASSETS_PATH}/graphiql-start.js`, sendPublic("graphiql-start.js"));
  router.use("/assets/scalar", express.static(SCALAR_BROWSER, ASSET_CACHE));
  router.get("/assets/docs-start.js", sendPublic("docs-start.js"));
  router.get("/docs", withPageCsp, (_req, res) => {
    res.type("html").send(DOCS_PAGE);
  });
  router.get("/", (req, res) => {
    if (!req.accepts("html")) {
      res.json({
        name: "Content service",
        links: { rest: "/v1", openapi: "/v1/openapi.json", docs: "/docs", graphql: "/graphql" },
      });
      return;
    }
    withPageCsp(req, res, () => res.type("html").send(HOME_PAGE));
  });
  return router;
}

/** The CSP of the pages, also put on GraphiQL's (answered later by Yoga, which keeps headers already set). */
export const withPageCsp: RequestHandler = (_req, res, next) => {
  res.setHeader("Content-Security-Policy", PAGE_CSP);
  res.setHeader("X-Content-Type-Options", "nosniff");
  next();
};

function sendPublic(file: string): RequestHandler {
  return (_req, res) => {
    res.sendFile(path.join(PUBLIC_DIR, file), { maxAge: "1h" });
  };
}

const DOCS_PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Content service REST API</title>
</head>
<body>
<div id="reference"></div>
<script src="/assets/scalar/standalone.js"></script>
<script src="/assets/docs-start.js"></script>
</body>
</html>
`;

const HOME_PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Content service</title>
</head>
<body>
<h1>Content service</h1>
<p>A headless content API: GraphQL at <code>/graphql</code>, REST under <code>/v1</code>. Every request
carries an API key: <code>Authorization: Bearer pk_…</code> (public, read) or <code>sk_…</code> (private).</p>
<ul>
<li><a href="/graphql">GraphiQL</a>: explore and run GraphQL</li>
<li><a href="/docs">REST reference</a> (from <a href="/v1/openapi.json">the OpenAPI document</a>)</li>
</ul>
</body>
</html>
`;
