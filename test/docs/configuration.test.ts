// docs/configuration.md lists every setting src/config.ts reads, and only those, with the defaults the
// code applies: the README points newcomers there, so the page must never drift from the code.
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { z } from "zod";
import { EnvSchema } from "../../src/config.ts";
import { DEFAULT_RETRY_SCHEDULE_MS } from "../../src/webhooks/retry-schedule.ts";

const page = readFileSync(path.resolve(import.meta.dirname, "../../docs/configuration.md"), "utf8");

/** Each table row's variable and its Default cell, from rows like "| `PORT` | `3000` | … |". */
const documented = new Map(
  [...page.matchAll(/^\|\s*`([A-Z][A-Z0-9_]*)`\s*\|([^|]*)\|/gm)].map((row) => [
    row[1] as string,
    (row[2] as string).trim(),
  ]),
);

/** Settings whose default the component that uses them applies, not config.ts. */
const DEFAULTS_APPLIED_ELSEWHERE: Record<string, unknown> = {
  WEBHOOK_RETRY_SCHEDULE: DEFAULT_RETRY_SCHEDULE_MS,
};

type Setting = (typeof EnvSchema.shape)[keyof typeof EnvSchema.shape];

/** What the code makes of a value, or of the setting left unset (`undefined`). */
const applied = (schema: Setting, value: string | undefined) => (schema as z.ZodType).safeParse(value);

describe("docs/configuration.md", () => {
  it("lists every setting the service reads, and no other", () => {
    expect([...documented.keys()].sort()).toEqual(Object.keys(EnvSchema.shape).sort());
  });

  it.each(Object.entries(EnvSchema.shape))("shows %s's default as the code applies it", (name, schema) => {
    const cell = documented.get(name) ?? "";
    const shown = /^`([^`]*)`$/.exec(cell)?.[1];
    const unset = applied(schema, undefined);
    expect(unset.success).toBe(true);
    if (name in DEFAULTS_APPLIED_ELSEWHERE) {
      expect(applied(schema, shown).data).toEqual(DEFAULTS_APPLIED_ELSEWHERE[name]);
      return;
    }
    if (unset.data === undefined) {
      // No default in the schema: unset ("–"), or a sentence on how the code derives one.
      expect(shown === undefined || cell !== `\`${shown}\``).toBe(true);
      return;
    }
    if (shown?.includes("…")) {
      // A long list shown shortened ("16,32,…,3840"): its first and last values must be the default's.
      const [first = "", last = ""] = shown.split("…");
      expect(String(unset.data).startsWith(first) && String(unset.data).endsWith(last)).toBe(true);
    } else expect(applied(schema, shown).data).toEqual(unset.data);
  });
});
