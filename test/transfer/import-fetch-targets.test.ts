// Media an import fetches by URL (a markdown or Ghost cover, a WordPress attachment, a /v1 source's
// library) is a request the service makes for whoever wrote the import file, and what it fetches
// becomes public media. The webhook target rules apply: no loopback, private, link-local or metadata
// address in any spelling, checked again on every redirect, names judged by every address they resolve
// to (a stubbed DNS answer here, never a real connection); WEBHOOK_ALLOW_PRIVATE_TARGETS=true allows
// private targets, as for webhooks. A failure never tells what the target answered.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Resolver } from "../../src/webhooks/target-safety.ts";
import { freePort } from "../helpers/free-port.ts";
import { startTestApp, type TestApp, type TestWorkspace } from "../helpers/test-app.ts";
import { makeImage } from "../media/helpers/make-files.ts";
import {
  answering,
  importCovers,
  mediaFailures,
  routedTo,
  type TestHost,
  testHost,
} from "./helpers/remote-hosts.ts";

/** What a stubbed resolver answers for a public host; the connection goes to a test host on 127.0.0.1. */
const PUBLIC = "93.184.215.14";
const REFUSED = /is not fetched: an import fetches http\(s\) URLs at public addresses only/;

let strict: TestApp;
let lenient: TestApp;
let png: Buffer;
/** A service on loopback that the import must never reach while private targets are refused. */
let secret: TestHost;

beforeAll(async () => {
  png = await makeImage("png");
  strict = await startTestApp();
  lenient = await startTestApp({ env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: "true" } });
  secret = await testHost((_req, res) => res.writeHead(200, { "content-type": "image/png" }).end(png));
}, 120_000);
afterAll(async () => {
  await Promise.all([strict?.close(), lenient?.close(), secret?.close()]);
});

const mediaOf = async (app: TestApp, ws: TestWorkspace) =>
  (await app.request("GET", "/v1/media", { key: ws.privateKey })).body.media;

describe("an import refuses media at a non-public address", () => {
  it.each([
    ["loopback", (port: number) => `http://127.0.0.1:${port}/secret.png`],
    ["loopback in decimal", (port: number) => `http://2130706433:${port}/secret.png`],
    ["loopback in octal", (port: number) => `http://0177.0.0.1:${port}/secret.png`],
    ["loopback IPv4-mapped", (port: number) => `http://[::ffff:127.0.0.1]:${port}/secret.png`],
    ["localhost", (port: number) => `http://localhost:${port}/secret.png`],
    ["the metadata address", () => "http://169.254.169.254/latest/meta-data/"],
    ["a private address", () => "http://10.0.0.1/cover.png"],
  ])("%s: refused, nothing stored, no connection made", async (_name, urlOf) => {
    const ws = await strict.workspace();
    const url = urlOf(secret.port);
    const summary = await importCovers(strict, ws, [url]);
    expect(summary.byKind.media).toMatchObject({ created: 0, failed: 1 });
    expect(mediaFailures(summary, [url])).toEqual([expect.stringMatching(REFUSED)]);
    expect(secret.connections).toBe(0);
    expect(await mediaOf(strict, ws)).toEqual([]);
  });

  it.each([
    ["a private address", ["10.0.0.7"]],
    ["the metadata address", ["169.254.169.254"]],
    ["loopback", ["127.0.0.1"]],
    ["a unique-local IPv6 address", ["fd00::1"]],
    ["a public and a private address", [PUBLIC, "192.168.1.10"]],
  ])("a name that resolves to %s: refused before any connection", async (_name, addresses) => {
    const ws = await strict.workspace();
    const resolve = answering(...addresses);
    const connect = routedTo(secret);
    const url = "http://media.cdn.test/cover.png";
    const summary = await importCovers(strict, ws, [url], { network: { resolve, connect } });
    expect(resolve.asked).toEqual(["media.cdn.test"]);
    expect(connect.dialed).toEqual([]);
    expect(mediaFailures(summary, [url])).toEqual([expect.stringMatching(REFUSED)]);
    expect(secret.connections).toBe(0);
    expect(await mediaOf(strict, ws)).toEqual([]);
  });
});

describe("an import checks every redirect again", () => {
  /** `cdn.test` is public (a stubbed answer); any other name resolves to a private address. */
  const resolve: Resolver = async (name) => [
    { address: name === "cdn.test" ? PUBLIC : "10.1.2.3", family: 4 },
  ];

  it.each([
    ["loopback", (port: number) => `http://127.0.0.1:${port}/secret.png`],
    ["loopback in decimal", (port: number) => `http://2130706433:${port}/secret.png`],
    ["the metadata address", () => "http://169.254.169.254/latest/meta-data/"],
    ["a name that resolves to a private address", () => "http://internal.test/secret.png"],
    ["a file", () => "file:///etc/passwd"],
  ])("a public host redirecting to %s: refused, the target gets nothing", async (_name, locationOf) => {
    const location = locationOf(secret.port);
    const redirector = await testHost((_req, res) => res.writeHead(302, { location }).end());
    try {
      const ws = await strict.workspace();
      const connect = routedTo(redirector);
      const url = "http://cdn.test/cover.png";
      const summary = await importCovers(strict, ws, [url], { network: { resolve, connect } });
      expect(redirector.requests).toEqual(["/cover.png"]);
      expect(connect.dialed).toEqual([PUBLIC]);
      expect(secret.connections).toBe(0);
      expect(mediaFailures(summary, [url])).toEqual([expect.stringMatching(REFUSED)]);
      expect(await mediaOf(strict, ws)).toEqual([]);
    } finally {
      await redirector.close();
    }
  });

  it("a public host redirecting to another public one: followed", async () => {
    const host = await testHost((req, res) => {
      if (req.url === "/moved") res.writeHead(301, { location: "http://cdn.test/cover.png" }).end();
      else res.writeHead(200, { "content-type": "image/png" }).end(png);
    });
    try {
      const ws = await strict.workspace();
      const connect = routedTo(host);
      const summary = await importCovers(strict, ws, ["http://cdn.test/moved"], {
        network: { resolve, connect },
      });
      expect(summary.byKind.media).toMatchObject({ created: 1, failed: 0 });
      expect(host.requests).toEqual(["/moved", "/cover.png"]);
      expect(connect.dialed).toEqual([PUBLIC, PUBLIC]);
    } finally {
      await host.close();
    }
  });
});

describe("with WEBHOOK_ALLOW_PRIVATE_TARGETS=true", () => {
  it("an import fetches media from loopback, through redirects", async () => {
    const host = await testHost((req, res) => {
      if (req.url === "/moved") res.writeHead(302, { location: "/cover.png" }).end();
      else res.writeHead(200, { "content-type": "image/png" }).end(png);
    });
    try {
      const ws = await lenient.workspace();
      const summary = await importCovers(lenient, ws, [host.url("/moved")]);
      expect(summary.byKind.media).toMatchObject({ created: 1, failed: 0 });
      expect(host.requests).toEqual(["/moved", "/cover.png"]);
      expect(await mediaOf(lenient, ws)).toHaveLength(1);
    } finally {
      await host.close();
    }
  });

  it("every failure has the same reason, whatever the target answered (or did not)", async () => {
    const host = await testHost((req, res) => {
      if (req.url === "/missing") res.writeHead(404).end("no such file");
      else if (req.url === "/forbidden") res.writeHead(403).end("go away");
      else if (req.url === "/error") res.writeHead(500).end("internal secret: db password");
      else if (req.url === "/loop") res.writeHead(302, { location: "/loop" }).end();
      else req.socket.destroy();
    });
    try {
      const ws = await lenient.workspace();
      const closedPort = `http://127.0.0.1:${await freePort()}/cover.png`;
      const urls = [
        closedPort,
        host.url("/missing"),
        host.url("/forbidden"),
        host.url("/error"),
        host.url("/loop"),
        host.url("/reset"),
      ];
      const summary = await importCovers(lenient, ws, urls);
      const reasons = mediaFailures(summary, urls);
      expect(reasons).toHaveLength(urls.length);
      expect(new Set(reasons).size).toBe(1);
      expect(reasons[0]).toMatch(/^<url> could not be fetched/);
      expect(reasons[0]).not.toMatch(/40[34]|500|refused|ECONN|reset|secret|redirect/i);
    } finally {
      await host.close();
    }
  });
});
