// What both property-test files start from: workspace A (seeded, the target of the cases) and
// workspace B (seeded, never reachable: its state before the run is kept to prove nothing changed it),
// and the identifiers the cases draw from.

import {
  idsOf,
  RESOURCES,
  type Resource,
  type SeededWorkspace,
  seededWorkspace,
  snapshotWorkspace,
} from "./fuzz-workspaces.ts";
import type { FuzzTargets } from "./rest-cases.ts";
import type { TestApp } from "./test-app.ts";

export interface FuzzSetup {
  a: SeededWorkspace;
  b: SeededWorkspace;
  /** B as its private key reads it before any case ran. */
  bBefore: Record<string, unknown[]>;
  targets: FuzzTargets;
}

export async function fuzzSetup(app: TestApp): Promise<FuzzSetup> {
  const a = await seededWorkspace(app, "Workspace A", "a-");
  const b = await seededWorkspace(app, "Workspace B", "b-");
  const bBefore = await snapshotWorkspace(app, b.privateKey);
  const bIds = Object.fromEntries(
    RESOURCES.map((r) => [r, b.pool.list(r).filter((id) => idsOf(bBefore).has(id))]),
  );
  // B's API keys: A's key must never reach them (404), whatever it asks.
  // Listed through the API: the built server process has no in-process database to read.
  const bKeys = await app.request("GET", "/v1/keys", { key: b.privateKey });
  bIds.keys = (bKeys.body.keys as { id: string }[]).map((key) => key.id);
  return { a, b, bBefore, targets: { a, b, bIds: bIds as Record<Resource, string[]>, cursors: [] } };
}
