// Preloaded into PostGraphile by `bench:statement-cpu` (node --import): appends every statement its `pg`
// client sends, with its parameters, to $CAPTURE_STATEMENTS_FILE as one json line each, so that the
// bench can run PostGraphile's own statements the way it runs ours. Plain JavaScript: it runs on the
// peer's Node without tsx.
import { appendFileSync } from "node:fs";
import { createRequire } from "node:module";

const require = createRequire(new URL("../bench/postgraphile-server.mjs", import.meta.url));
const pg = require("pg");
const file = process.env.CAPTURE_STATEMENTS_FILE;
const send = pg.Client.prototype.query;
pg.Client.prototype.query = function capturedQuery(config, values, callback) {
  const text = typeof config === "string" ? config : config?.text;
  if (file && text) {
    const params = typeof config === "string" ? values : (config.values ?? values);
    appendFileSync(file, `${JSON.stringify({ text, values: params ?? [] })}\n`);
  }
  return send.call(this, config, values, callback);
};
