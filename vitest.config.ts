import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

export default defineConfig({
  resolve: {
    // graphql 16 ships ESM (`module`) and CJS (`main`) builds. Vite would give our sources the ESM one
    // while Pothos and Yoga load the CJS one through Node: two "graphql" instances that refuse each
    // other's schemas. Point everything at the build Node itself loads.
    alias: [
      {
        find: /^graphql$/,
        replacement: fileURLToPath(new URL("./node_modules/graphql/index.js", import.meta.url)),
      },
    ],
  },
  test: {
    include: ["test/**/*.test.ts"],
    // Any 5xx a test app answers fails the test that caused it, unless that test asked for one.
    setupFiles: ["test/helpers/fail-on-server-errors.ts"],
    // The embedded runs start every test database from one migrated dump.
    globalSetup: ["test/helpers/pglite-template.ts"],
    // Each test file brings its own database (in-memory PGlite or a PostgreSQL schema), so files run
    // in parallel; two workers match the two cores of the CI machine.
    pool: "forks",
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
