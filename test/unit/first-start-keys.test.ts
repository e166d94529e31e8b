// The first start's keys reach whoever started the service and nobody else: printed on a terminal;
// when stdout is not one (a container's or process manager's log stream, kept and shipped to
// aggregators), written to an owner-only file under DATA_DIR that the log names — never into the log.
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { FIRST_KEYS_FILE, type FirstKeys, revealFirstKeys } from "../../src/first-start.ts";
import type { Logger } from "../../src/logger.ts";

const keys: FirstKeys = {
  workspace: { id: "ws_1", name: "default" },
  publicKey: "pk_public_first_key",
  privateKey: "sk_private_first_key",
};

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function setUp() {
  const dataDir = mkdtempSync(path.join(tmpdir(), "first-keys-"));
  dirs.push(dataDir);
  const logged: string[] = [];
  const log = (msg: string, data?: Record<string, unknown>) => logged.push(JSON.stringify({ msg, ...data }));
  const logger: Logger = { debug: log, info: log, warn: log, error: log };
  const printed: string[] = [];
  const terminal = { write: (text: string) => printed.push(text) } as unknown as NodeJS.WriteStream;
  return { dataDir, logged, logger, printed, terminal, file: path.join(dataDir, FIRST_KEYS_FILE) };
}

describe("the first start's keys", () => {
  it("are printed on a terminal, and nowhere else", () => {
    const { dataDir, logged, logger, printed, terminal, file } = setUp();
    revealFirstKeys(keys, { terminal, dataDir, port: 3000, logger });
    expect(printed.join("")).toContain("private key (read + write): sk_private_first_key");
    expect(printed.join("")).toContain("http://localhost:3000/v1/posts");
    expect(logged).toEqual([]);
    expect(() => statSync(file)).toThrow();
  });

  it("go to an owner-only file the log names when stdout is not a terminal, never into the log", () => {
    const { dataDir, logged, logger, file } = setUp();
    revealFirstKeys(keys, { terminal: null, dataDir, port: 3000, logger });
    expect(readFileSync(file, "utf8")).toContain("private key (read + write): sk_private_first_key");
    expect(readFileSync(file, "utf8")).toContain("public key (read):          pk_public_first_key");
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(logged).toHaveLength(1);
    expect(JSON.parse(logged[0] as string)).toMatchObject({ file, workspace: "ws_1" });
    expect(logged.join("")).not.toMatch(/sk_|pk_/);
  });

  it("replace a file left by an earlier first start, still owner-only", () => {
    const { dataDir, logger, file } = setUp();
    writeFileSync(file, "old keys\n", { mode: 0o644 });
    revealFirstKeys(keys, { terminal: null, dataDir, port: 3000, logger });
    expect(readFileSync(file, "utf8")).not.toContain("old keys");
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });
});
