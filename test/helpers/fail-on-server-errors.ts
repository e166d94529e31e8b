// Vitest setup file (vitest.config.ts): after every test, and after each file's hooks, fail if a test
// app answered 5xx without the test calling expectServerErrors(). See server-errors.ts.
import { afterAll, afterEach } from "vitest";
import { drainServerErrorSources, takeUnexpectedServerErrors } from "./server-errors.ts";

function assertNoServerErrors(when: string): void {
  const errors = takeUnexpectedServerErrors();
  if (errors.length === 0) return;
  const list = errors.map((error) => `  ${error.status} ${error.request}`).join("\n");
  throw new Error(
    `${errors.length} request(s) answered 5xx ${when} (call expectServerErrors() if the test wants that):\n${list}`,
  );
}

// A server process reports through its log, a moment after its answers: drain it before looking.
afterEach(async () => {
  await drainServerErrorSources();
  assertNoServerErrors("during this test");
});
afterAll(async () => {
  await drainServerErrorSources();
  assertNoServerErrors("in this file's setup or teardown");
});
