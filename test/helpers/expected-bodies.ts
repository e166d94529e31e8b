// Error bodies of the REST contract, as the suites expect them word for word.
import { expect } from "vitest";

/** The validation message for a slug that breaks the service's slug rule. */
export const SLUG_RULE =
  "Must be 1-200 lowercase letters, digits, and single hyphens or underscores between them";

/** 403 for any write with a public key: it names the write scope the key lacks (docs/api-keys.md). */
export const FORBIDDEN = {
  error: "Forbidden",
  message: "Writes need a private API key; this key is public and can only read",
  requiredScope: expect.stringMatching(/^(posts|taxonomy|media|fields):write$/),
};

/** 404 for a record the workspace does not have. */
export function notFoundBody(resource: string, identifier: string) {
  return {
    error: `${resource} not found`,
    message: `${resource} "${identifier}" does not exist in this workspace`,
  };
}
