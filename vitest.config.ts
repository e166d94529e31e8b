import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // Each test file brings its own database (in-memory PGlite or a PostgreSQL schema), so files run
    // in parallel; two workers match the two cores of the CI machine.
    pool: "forks",
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
