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
/** Sources whose reports arrive late (a server process's log): each is drained before a check. */
const pending = new Set<() => Promise<void>>();

export function recordServerError(record: ServerErrorRecord): void {
  recorded.push(record);
}

/**
 * A source of reports that lag behind the answers (the log of a server process, read through a pipe):
 * `drain` resolves once everything the source will report about requests already answered is recorded.
 * Returns the function that unregisters it.
 */
export function registerServerErrorSource(drain: () => Promise<void>): () => void {
  pending.add(drain);
  return () => pending.delete(drain);
}

/** Waits until every registered source has reported what it had. */
export async function drainServerErrorSources(): Promise<void> {
  await Promise.all([...pending].map((drain) => drain()));
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
