// Starts the REST reference at /docs (src/http/explorer-pages.ts): Scalar's standalone bundle, served
// by this service, over its own OpenAPI document; no fonts or proxies from the internet.
window.addEventListener("DOMContentLoaded", () => {
  window.Scalar.createApiReference("#reference", {
    url: "/v1/openapi.json",
    withDefaultFonts: false,
    // Scalar's "Ask AI" agent (on by default on localhost) calls Scalar's servers: not here.
    agent: { disabled: true },
    hideClientButton: false,
    metaData: { title: "Content service REST API" },
  });
});
