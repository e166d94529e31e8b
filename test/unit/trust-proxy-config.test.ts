// TRUST_PROXY decides whose X-Forwarded-For is believed, and so which address the keyless and admin
// rate limits count. A value that trusts every hop (`true`, a range holding every address) would believe
// the leftmost entry, which the client writes: refused at start, saying why and what to set instead.
import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../../src/config.ts";

const base = { DATA_DIR: "/tmp/trust-proxy-config-test" };
const trustProxyOf = (value?: string) =>
  loadConfig(value === undefined ? base : { ...base, TRUST_PROXY: value }).trustProxy;

describe("TRUST_PROXY", () => {
  it("trusts nobody unless set: the socket address is the client's", () => {
    expect(trustProxyOf()).toBe(false);
  });

  it("takes a hop count or the proxies' addresses, in Express's syntax", () => {
    expect(trustProxyOf("1")).toBe(1);
    expect(trustProxyOf("loopback")).toBe("loopback");
    expect(trustProxyOf("loopback, 10.0.0.0/8, 192.168.1.7, fd00::/8, 172.16.0.0/255.240.0.0")).toBe(
      "loopback,10.0.0.0/8,192.168.1.7,fd00::/8,172.16.0.0/255.240.0.0",
    );
  });

  it.each(["true", "TRUE", "0.0.0.0/0", "loopback, ::/0"])(
    "refuses %s, which would believe a client-written X-Forwarded-For, saying why and what to use",
    (value) => {
      expect(() => trustProxyOf(value)).toThrow(ConfigError);
      expect(() => trustProxyOf(value)).toThrow(/TRUST_PROXY: must not trust every proxy/);
      expect(() => trustProxyOf(value)).toThrow(/the client writes itself/);
      expect(() => trustProxyOf(value)).toThrow(/TRUST_PROXY=1 behind one load balancer/);
    },
  );

  it("refuses what is neither a hop count nor an address, naming the entry", () => {
    expect(() => trustProxyOf("yes")).toThrow(/TRUST_PROXY: "yes" is not a hop count/);
    expect(() => trustProxyOf("loopback, proxy.internal")).toThrow(/"proxy.internal" is not/);
  });
});
