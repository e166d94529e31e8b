// Vitest setup file (vitest.config.ts): after every test, and after each file's hooks, fail if a test
// app answered 5xx without the test calling expectServerErrors(). See server-errors.ts.
import { afterAll, afterEach } from "vitest";
import { takeUnexpectedServerErrors } from "./server-errors.ts";

function assertNoServerErrors(when: string): void {
  const errors = takeUnexpectedServerErrors();
  if (errors.length === 0) return;
  const list = errors.map((error) => `  ${error.status} ${error.request}`).join("\n");
  throw new Error(
    `${errors.length} request(s) answered 5xx ${when} (call expectServerErrors() if the test wants that):\n${list}`,
  );
}

afterEach(() => assertNoServerErrors("during this test"));
afterAll(() => assertNoServerErrors("in this file's setup or teardown"));
