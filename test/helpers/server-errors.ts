// The suite-wide invariant that no request answers 5xx unless its test asked for one: every test app
// reports its 5xx answers (and in-process GraphQL results with INTERNAL_SERVER_ERROR) here, and the
// setup file (fail-on-server-errors.ts) fails the test during which one happened. A new 500 cannot hide
// behind a test that only checks something else.

export interface ServerErrorRecord {
  status: number;
  request: string;
}

const recorded: ServerErrorRecord[] = [];
let allowedInThisTest = false;

export function recordServerError(record: ServerErrorRecord): void {
  recorded.push(record);
}

/** Called by a test that provokes a 5xx on purpose (a database gone, storage failing, …). */
export function expectServerErrors(): void {
  allowedInThisTest = true;
}

/** The 5xx answers since the last call, unless the test allowed them; resets the allowance. */
export function takeUnexpectedServerErrors(): ServerErrorRecord[] {
  const taken = recorded.splice(0, recorded.length);
  const allowed = allowedInThisTest;
  allowedInThisTest = false;
  return allowed ? [] : taken;
}
