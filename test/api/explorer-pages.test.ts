// The browser pages over plain HTTP (the real-browser run is test/browser/explorer-pages.test.ts): every
// file a page names is served by this service with cache headers, no page names another host, each
// carries the strict Content-Security-Policy, and GraphiQL's headers editor starts with the key example.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../helpers/test-app.ts";

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => app?.close());

const HTML = { accept: "text/html,application/xhtml+xml" };

async function page(path: string): Promise<{ response: Response; html: string }> {
  const response = await fetch(`${app.url}${path}`, { headers: HTML });
  expect(response.status).toBe(200);
  expect(response.headers.get("content-type")).toMatch(/^text\/html/);
  return { response, html: await response.text() };
}

/** The src/href values of a page's <script> and <link> elements. */
function referencedFiles(html: string): string[] {
  return [...html.matchAll(/<(?:script|link)\b[^>]*\b(?:src|href)="([^"]+)"/g)].map((m) => m[1] as string);
}

function expectStrictCsp(response: Response): void {
  const csp = response.headers.get("content-security-policy") ?? "";
  expect(csp).toContain("default-src 'none'");
  expect(csp).toContain("script-src 'self'");
  expect(csp).not.toMatch(/https?:|unsafe-eval|\*/);
  expect(csp).not.toMatch(/script-src[^;]*unsafe-inline/);
}

async function expectServedAsset(path: string, type: RegExp): Promise<void> {
  const response = await fetch(`${app.url}${path}`);
  expect(response.status, path).toBe(200);
  expect(response.headers.get("content-type"), path).toMatch(type);
  expect(response.headers.get("cache-control"), path).toMatch(/max-age=[1-9]\d*/);
  expect((await response.arrayBuffer()).byteLength, path).toBeGreaterThan(0);
}

describe("GraphiQL at /graphql", () => {
  it("names only files of this service, each served with cache headers, under the strict CSP", async () => {
    const { response, html } = await page("/graphql");
    expectStrictCsp(response);
    const files = referencedFiles(html);
    expect(files).toEqual(
      expect.arrayContaining([
        "/assets/graphiql/graphiql.css",
        "/assets/graphiql/yoga-graphiql.umd.js",
        "/assets/graphiql/graphiql-start.js",
      ]),
    );
    expect(html).not.toMatch(/https?:\/\//);
    for (const file of files) {
      await expectServedAsset(file, file.endsWith(".css") ? /^text\/css/ : /javascript/);
    }
  });

  it("serves Monaco's workers from this service", async () => {
    for (const worker of ["editor.worker.bundle.js", "json.worker.bundle.js", "graphql.worker..bundle.js"]) {
      await expectServedAsset(`/assets/graphiql/monacoeditorwork/${worker}`, /javascript/);
    }
  });

  it("starts the headers editor with the key example", async () => {
    const { html } = await page("/graphql");
    const options = html.match(/<script type="application\/json" id="graphiql-options">(.*?)<\/script>/s);
    const parsed = JSON.parse(options?.[1] ?? "{}") as { headers?: string };
    expect(JSON.parse(parsed.headers ?? "{}")).toEqual({
      Authorization: expect.stringMatching(/^Bearer <your public/),
    });
  });

  it("answers 404 for a file the package does not have", async () => {
    const response = await fetch(`${app.url}/assets/graphiql/no-such-file.js`);
    expect(response.status).toBe(404);
  });
});

describe("the REST reference at /docs", () => {
  it("names only files of this service, each served with cache headers, under the strict CSP", async () => {
    const { response, html } = await page("/docs");
    expectStrictCsp(response);
    const files = referencedFiles(html);
    expect(files).toEqual(["/assets/scalar/standalone.js", "/assets/docs-start.js"]);
    expect(html).not.toMatch(/https?:\/\//);
    for (const file of files) await expectServedAsset(file, /javascript/);
  });

  it("points Scalar at the service's own OpenAPI document with no fonts from elsewhere", async () => {
    const start = await (await fetch(`${app.url}/assets/docs-start.js`)).text();
    expect(start).toContain('url: "/v1/openapi.json"');
    expect(start).toContain("withDefaultFonts: false");
  });
});

describe("the home page /", () => {
  it("links GraphiQL and /docs for a browser", async () => {
    const { response, html } = await page("/");
    expectStrictCsp(response);
    expect(referencedFiles(html)).toEqual([]);
    expect(html).toContain('href="/graphql"');
    expect(html).toContain('href="/docs"');
  });

  it("answers a JSON client with the same links", async () => {
    const response = await fetch(`${app.url}/`, { headers: { accept: "application/json" } });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({
      links: { docs: "/docs", graphql: "/graphql", openapi: "/v1/openapi.json", rest: "/v1" },
    });
  });
});
