// TEST_SERVER=process: the REST contract files below run against the built server started as `npm start`
// starts it, one server process per file on a store of its own (test/helpers/server-process-app.ts),
// and the soak (test/soak/service.soak.ts) against one too. `npm run test:process` runs the contract
// files, `npm run test:soak` the soak; both build once first (test/process/build-once.ts).
//
// Files not listed need the in-process app, which a process cannot offer (their reason beside them in
// test/process/README.md); a listed file that reaches for it fails with a message saying so.
import { defineConfig } from "vitest/config";
import base from "./vitest.config.ts";

/** The REST contract files that need nothing but HTTP. */
export const PROCESS_CONTRACT_FILES = [
  "admin",
  "authors",
  "categories",
  "changes",
  "cursor-values",
  "default-locale-search",
  "error-echo",
  "event-id-order",
  "event-order",
  "explorer-pages",
  "fields",
  "fuzz-rest",
  "http-errors",
  "locales",
  "localized-fields",
  "log-start-points",
  "markdown-escaping",
  "metrics",
  "openapi",
  "oversized-requests",
  "posts",
  "posts-list",
  "posts-update",
  "post-taxonomy-locale",
  "default-locale-facts",
  "unpublish-visibility",
  "post-translations",
  "post-translation-isolation",
  "post-translation-previews",
  "post-translation-revisions",
  "rate-limits",
  "request-id",
  "response-cache",
  "sdk",
  "shared-cache-lifetime",
  "shared-cache-outage",
  "tags",
  "taxonomy-translations",
  "transfer-api",
  "webhook-fairness",
  "workspaces",
].map((name) => `test/api/${name}.test.ts`);

// Spread rather than mergeConfig, which would add `include` to the base's (every test file).
export default defineConfig({
  ...base,
  test: {
    ...base.test,
    include: [...PROCESS_CONTRACT_FILES, "test/soak/*.soak.ts"],
    // The base's split into parallel and timed files is not this run's: one list, as above.
    projects: undefined,
    env: { TEST_SERVER: "process" },
    globalSetup: ["test/process/build-once.ts"],
    // A file's server process starts (a data folder from the template, or a schema migrated by the
    // CLI) in its beforeAll: seconds, and more on a busy machine.
    hookTimeout: 180_000,
    // Some tests start a second server process of their own (metrics, admin), and every request
    // crosses a process: more than the in-process 30 s on a busy machine.
    testTimeout: 120_000,
  },
});
