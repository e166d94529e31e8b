// Issue 60, item 12: an import that failed records exited 0, so a script took a partial import for a
// whole one. The summary still goes to stdout; the exit code says whether any record failed.
import { describe, expect, it } from "vitest";
import { type CliCommand, EXIT, exitCodeForResult } from "../../src/cli/command.ts";

const importCommand: CliCommand = {
  command: "import",
  workspace: "blog",
  source: "site.tar.gz",
  from: "archive",
  dryRun: false,
  webhooks: true,
};

describe("the import command's exit code", () => {
  it("is 1 when any record failed, 0 when none did (conflicts are reported, not failures)", () => {
    expect(exitCodeForResult(importCommand, { totals: { created: 3, conflict: 0, failed: 1 } })).toBe(
      EXIT.failed,
    );
    expect(exitCodeForResult(importCommand, { totals: { created: 3, conflict: 2, failed: 0 } })).toBe(
      EXIT.ok,
    );
  });

  it("is 0 for the other commands, whatever they answer", () => {
    expect(exitCodeForResult({ command: "workspace list" }, { totals: { failed: 1 } })).toBe(EXIT.ok);
  });
});
