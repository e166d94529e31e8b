// Where the preview signing secret comes from (src/first-start.ts resolvePreviewSecret): PREVIEW_SECRET;
// else, with the embedded database, DATA_DIR/preview-secret, made once (owner-only) and kept across
// restarts; else (PostgreSQL without PREVIEW_SECRET) none: previews are off.
import { mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../../src/config.ts";
import { PREVIEW_SECRET_FILE, resolvePreviewSecret } from "../../src/first-start.ts";
import { silentLogger } from "../../src/logger.ts";

const dirs: string[] = [];
function dataDir(): string {
  const dir = mkdtempSync(path.join(tmpdir(), "preview-secret-"));
  dirs.push(dir);
  return dir;
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe("the preview signing secret", () => {
  it("is PREVIEW_SECRET when set, in either mode", () => {
    const secret = "p".repeat(32);
    for (const env of [{}, { DATABASE_URL: "postgresql://u@db:5432/content" }])
      expect(
        resolvePreviewSecret(
          loadConfig({ ...env, PREVIEW_SECRET: secret, DATA_DIR: dataDir() }),
          silentLogger,
        ),
      ).toBe(secret);
  });

  it("is made on the embedded mode's first start, kept owner-only in DATA_DIR and reused", () => {
    const config = loadConfig({ DATA_DIR: path.join(dataDir(), "not-yet") });
    const first = resolvePreviewSecret(config, silentLogger);
    expect(first).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const file = path.join(config.dataDir, PREVIEW_SECRET_FILE);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(resolvePreviewSecret(config, silentLogger)).toBe(first);
  });

  it("is refused when the stored one is unusable, rather than replaced", () => {
    const config = loadConfig({ DATA_DIR: dataDir() });
    writeFileSync(path.join(config.dataDir, PREVIEW_SECRET_FILE), "short\n");
    expect(() => resolvePreviewSecret(config, silentLogger)).toThrow(ConfigError);
  });

  it("is none with DATABASE_URL and no PREVIEW_SECRET: instances could not share a made-up one", () => {
    const config = loadConfig({ DATABASE_URL: "postgresql://u@db:5432/content", DATA_DIR: dataDir() });
    expect(resolvePreviewSecret(config, silentLogger)).toBeUndefined();
  });
});
