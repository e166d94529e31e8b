// The logger (pino underneath): one JSON line per event with a readable level, and credentials
// redacted wherever they sit in the logged fields.
import { describe, expect, it } from "vitest";
import { createLogger } from "../../src/logger.ts";

function capture(level: Parameters<typeof createLogger>[0] = "debug") {
  const lines: string[] = [];
  const logger = createLogger(level, { write: (line) => lines.push(line) });
  return { logger, lines, parsed: () => lines.map((line) => JSON.parse(line) as Record<string, unknown>) };
}

describe("logger", () => {
  it("writes one JSON line per event: ISO time, level by name, message and fields", () => {
    const { logger, parsed } = capture();
    logger.warn("disk almost full", { freeBytes: 1024 });
    const [line] = parsed();
    expect(line).toMatchObject({ level: "warn", msg: "disk almost full", freeBytes: 1024 });
    expect(new Date(line?.time as string).toISOString()).toBe(line?.time);
  });

  it("drops events below its level", () => {
    const { logger, lines } = capture("warn");
    logger.info("not shown");
    logger.debug("not shown either");
    logger.error("shown");
    expect(lines).toHaveLength(1);
  });

  it("redacts Authorization and Cookie headers, API keys, secrets and tokens", () => {
    const { logger, lines, parsed } = capture();
    logger.error("failed call", {
      headers: { authorization: "Bearer sk_live_secret", cookie: "session=abc" },
      apiKey: "pk_public_one",
      endpoint: { secret: "whsec_c2VjcmV0", url: "https://example.com/hook" },
      token: "admin-token-value",
    });
    const text = lines.join("\n");
    for (const leaked of [
      "sk_live_secret",
      "session=abc",
      "pk_public_one",
      "whsec_c2VjcmV0",
      "admin-token-value",
    ])
      expect(text).not.toContain(leaked);
    expect(parsed()[0]).toMatchObject({
      headers: { authorization: "[Redacted]", cookie: "[Redacted]" },
      apiKey: "[Redacted]",
      endpoint: { secret: "[Redacted]", url: "https://example.com/hook" },
    });
  });
});
