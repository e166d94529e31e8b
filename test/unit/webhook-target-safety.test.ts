import { describe, expect, it } from "vitest";
import {
  isPublicAddress,
  type Resolver,
  resolveSafeAddress,
  UnsafeTargetError,
  unsafeTargetReason,
} from "../../src/webhooks/target-safety.ts";

const strict = { allowPrivate: false };
const lenient = { allowPrivate: true };

/** A resolver that answers fixed addresses, as a DNS server under someone else's control could. */
function answering(...addresses: string[]): Resolver {
  return async () => addresses.map((address) => ({ address, family: address.includes(":") ? 6 : 4 }));
}

const refusedLiterals = [
  "http://127.0.0.1/hook",
  "http://127.8.9.10:8080/hook",
  "http://10.1.2.3/",
  "http://172.16.0.1/",
  "http://172.31.255.255/",
  "http://192.168.1.1/",
  "http://169.254.169.254/latest/meta-data/",
  "http://169.254.1.1/",
  "http://100.64.0.1/",
  "http://100.127.255.254/",
  "http://0.0.0.0/",
  "http://255.255.255.255/",
  "http://224.0.0.1/",
  // Other spellings of 127.0.0.1 that the URL parser normalizes.
  "http://2130706433/",
  "http://0x7f.1/",
  "http://127.1/",
  "http://[::1]/",
  "http://[::]/",
  "http://[fc00::1]/",
  "http://[fd12:3456:789a::1]/",
  "http://[fe80::1]/",
  "http://[febf::1]/",
  // IPv4-mapped, IPv4-compatible and NAT64 forms of private addresses.
  "http://[::ffff:127.0.0.1]/",
  "http://[::ffff:7f00:1]/",
  "http://[::ffff:169.254.169.254]/",
  "http://[::ffff:10.0.0.1]/",
  "http://[::127.0.0.1]/",
  "http://[64:ff9b::a00:1]/",
  "https://localhost/hook",
  "http://LOCALHOST:3000/",
  "http://api.localhost/",
  "http://localhost./",
];

describe("webhook target URLs, checked on create and update", () => {
  it.each(refusedLiterals)("refuses %s", (url) => {
    expect(unsafeTargetReason(url, strict)).toMatch(/must not point at a loopback, private/);
  });

  it.each([
    "https://hooks.example.com/marble",
    "http://example.org:8080/x?y=1",
    "https://93.184.215.14/hook",
    "https://8.8.8.8/",
    "https://100.128.0.1/", // just past CGNAT
    "https://172.32.0.1/", // just past 172.16/12
    "https://[2606:4700:4700::1111]/",
    "https://[::ffff:8.8.8.8]/",
  ])("accepts %s", (url) => {
    expect(unsafeTargetReason(url, strict)).toBeNull();
  });

  it.each([
    ["ftp://example.com/", "must use http or https"],
    ["file:///etc/passwd", "must use http or https"],
    ["javascript:alert(1)", "must use http or https"],
    ["gopher://127.0.0.1:6379/", "must use http or https"],
    ["not a url", "must be an absolute http or https URL"],
    ["/relative/path", "must be an absolute http or https URL"],
  ])("refuses %s whatever the flag says", (url, reason) => {
    expect(unsafeTargetReason(url, strict)).toBe(reason);
    expect(unsafeTargetReason(url, lenient)).toBe(reason);
  });

  it("accepts private and loopback targets when WEBHOOK_ALLOW_PRIVATE_TARGETS is set", () => {
    for (const url of refusedLiterals) expect(unsafeTargetReason(url, lenient)).toBeNull();
  });
});

describe("addresses", () => {
  it("are public only when globally routable unicast", () => {
    expect(isPublicAddress("8.8.8.8")).toBe(true);
    expect(isPublicAddress("2606:4700:4700::1111")).toBe(true);
    expect(isPublicAddress("192.168.0.10")).toBe(false);
    expect(isPublicAddress("::ffff:192.168.0.10")).toBe(false);
    expect(isPublicAddress("fe80::abcd")).toBe(false);
    expect(isPublicAddress("not-an-address")).toBe(false);
  });
});

describe("the address a delivery connects to", () => {
  it("is the literal address itself when the URL names one", async () => {
    await expect(resolveSafeAddress("https://8.8.8.8/hook", strict)).resolves.toEqual({
      address: "8.8.8.8",
      family: 4,
    });
    await expect(resolveSafeAddress("https://[2606:4700:4700::1111]/", strict)).resolves.toEqual({
      address: "2606:4700:4700::1111",
      family: 6,
    });
  });

  it("refuses localhost by name, and what the system resolver answers for it is loopback too", async () => {
    await expect(resolveSafeAddress("http://localhost:9/", strict)).rejects.toThrow(UnsafeTargetError);
    // Through the real resolver (/etc/hosts): allowed only under the flag, and then a loopback address.
    const { address } = await resolveSafeAddress("http://localhost:9/", lenient);
    expect(isPublicAddress(address)).toBe(false);
  });

  it("refuses a name that resolves to a private or metadata address (DNS rebinding)", async () => {
    const url = "https://rebinding.example.com/hook";
    // At creation the name looks harmless; at delivery it answers the metadata address.
    expect(unsafeTargetReason(url, strict)).toBeNull();
    await expect(resolveSafeAddress(url, strict, answering("169.254.169.254"))).rejects.toThrow(
      /resolves to 169\.254\.169\.254/,
    );
    await expect(resolveSafeAddress(url, strict, answering("::ffff:10.0.0.7"))).rejects.toThrow(
      UnsafeTargetError,
    );
  });

  it("refuses a name when any one of its addresses is private", async () => {
    await expect(
      resolveSafeAddress("https://mixed.example.com/", strict, answering("93.184.215.14", "127.0.0.1")),
    ).rejects.toThrow(/resolves to 127\.0\.0\.1/);
  });

  it("returns the first resolved address when every one is public, so the sender dials that one", async () => {
    await expect(
      resolveSafeAddress("https://ok.example.com/", strict, answering("93.184.215.14", "2606:4700::1")),
    ).resolves.toEqual({ address: "93.184.215.14", family: 4 });
  });

  it("allows private answers under the flag, and refuses a name with no address", async () => {
    await expect(
      resolveSafeAddress("http://receiver.internal/", lenient, answering("10.0.0.5")),
    ).resolves.toEqual({ address: "10.0.0.5", family: 4 });
    await expect(resolveSafeAddress("http://void.example.com/", strict, answering())).rejects.toThrow(
      /resolved to no address/,
    );
  });
});
