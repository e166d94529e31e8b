import { fileURLToPath } from "node:url";
import { configDefaults, defineConfig } from "vitest/config";

// Files that time the service against itself at rest (hostile-tenant.test.ts: the honest workspace's p99
// under attack against its p99 alone): run after all others, one at a time, so that no other file's
// load lands in some of their windows and not in others (it did in CI, twice, whatever the estimator).
const TIMED_FILES = ["test/api/hostile-tenant.test.ts"];

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
    // Any 5xx a test app answers fails the test that caused it, unless that test asked for one.
    setupFiles: ["test/helpers/fail-on-server-errors.ts"],
    // The embedded runs start every test database from one migrated dump.
    globalSetup: ["test/helpers/pglite-template.ts"],
    // Each test file brings its own database (in-memory PGlite or a PostgreSQL schema), so files run
    // in parallel; two workers match the two cores of the CI machine.
    pool: "forks",
    maxWorkers: 2,
    // A worker runs file after file without starting afresh: the app's modules (the schema, Prisma's
    // client) are loaded once per worker, not once per file, which took a third off the suite. Each
    // file still brings its own database and app, and closes them; nothing a file leaves running may
    // hold them (an idle timer that kept a closed app's in-memory database reachable did: 15 GB).
    isolate: false,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    projects: [
      {
        extends: true,
        test: {
          name: "files",
          include: ["test/**/*.test.ts"],
          exclude: [...configDefaults.exclude, ...TIMED_FILES],
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: { name: "timed", include: TIMED_FILES, fileParallelism: false, sequence: { groupOrder: 1 } },
      },
    ],
  },
});
