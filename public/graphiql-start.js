// Starts the GraphiQL page (src/graphql/graphiql-page.ts) under a strict Content-Security-Policy: no
// inline script, Monaco's workers loaded from this service, the options read from a JSON data block.
(() => {
  const base = "/assets/graphiql/monacoeditorwork/";
  const workers = {
    editorWorkerService: `${base}editor.worker.bundle.js`,
    json: `${base}json.worker.bundle.js`,
    graphql: `${base}graphql.worker..bundle.js`,
  };
  self.MonacoEnvironment = {
    globalAPI: false,
    getWorkerUrl: (_moduleId, label) => workers[label] ?? workers.editorWorkerService,
  };
  window.addEventListener("DOMContentLoaded", () => {
    const options = JSON.parse(document.getElementById("graphiql-options").textContent);
    window.YogaGraphiQL.renderYogaGraphiQL(document.getElementById("root"), options);
  });
})();
