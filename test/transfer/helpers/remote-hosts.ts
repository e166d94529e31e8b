// The hosts an import fetches from, played by servers on 127.0.0.1: each counts the requests and the
// connections it gets and the bytes it sends, and each misbehaviour an import must survive (never
// answering, dripping, streaming without end) is a handler. Also a markdown folder whose posts' covers
// are given URLs (the smallest source that makes an import fetch media), and the import of it.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { type AddressInfo, connect, type Socket } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import type { ImportSummary } from "../../../src/transfer/import-summary.ts";
import { importInto, type TransferContext } from "../../../src/transfer/transfer-commands.ts";
import type { ResolvedAddress, Resolver } from "../../../src/webhooks/target-safety.ts";
import type { TestApp, TestWorkspace } from "../../helpers/test-app.ts";

export interface TestHost {
  port: number;
  url(path: string): string;
  /** The request paths it was asked for, in order. */
  requests: string[];
  /** Connections accepted, and those still open. */
  connections: number;
  open: number;
  /** Body bytes its handler wrote. */
  bytesSent: number;
  close(): Promise<void>;
}

export type Handler = (req: IncomingMessage, res: ServerResponse, host: TestHost) => void;

export async function testHost(handler: Handler): Promise<TestHost> {
  const sockets = new Set<Socket>();
  const server = createServer((req, res) => {
    host.requests.push(req.url ?? "");
    handler(req, res, host);
  });
  server.on("connection", (socket) => {
    host.connections += 1;
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  const host: TestHost = {
    port,
    url: (p) => `http://127.0.0.1:${port}${p}`,
    requests: [],
    connections: 0,
    get open() {
      return sockets.size;
    },
    bytesSent: 0,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  return host;
}

/** Accepts the request and never answers. */
export const neverAnswers: Handler = () => {};

/** Promises a megabyte and sends one byte every `intervalMs`. */
export function dripping(intervalMs: number): Handler {
  return (_req, res, host) => {
    res.writeHead(200, { "content-type": "image/png", "content-length": String(1024 * 1024) });
    const timer = setInterval(() => {
      res.write("x");
      host.bytesSent += 1;
    }, intervalMs);
    res.on("close", () => clearInterval(timer));
  };
}

/** Promises a megabyte and sends one byte every 100 ms. */
export const drips: Handler = dripping(100);

/**
 * Streams 64 KiB chunks for as long as the reader takes them, with no length announced, until the host
 * has sent `totalBytes` in all (its bytesSent), then ends the answer.
 */
export function streaming(totalBytes: number): Handler {
  return (_req, res, host) => {
    res.writeHead(200, { "content-type": "image/png" });
    const chunk = Buffer.alloc(64 * 1024, 1);
    const pump = () => {
      while (!res.destroyed) {
        if (host.bytesSent >= totalBytes) {
          res.end();
          return;
        }
        host.bytesSent += chunk.length;
        if (!res.write(chunk)) return;
      }
    };
    res.on("drain", pump);
    pump();
  };
}

/** Streams 64 KiB chunks for as long as the reader takes them, with no length and no end. */
export const streamsWithoutEnd: Handler = streaming(Number.POSITIVE_INFINITY);

/** A resolver that answers fixed addresses, as a DNS server under someone else's control could. */
export function answering(...addresses: string[]): Resolver & { asked: string[] } {
  const asked: string[] = [];
  const resolve = async (hostname: string) => {
    asked.push(hostname);
    return addresses.map((address) => ({ address, family: address.includes(":") ? 6 : 4 }) as const);
  };
  return Object.assign(resolve, { asked });
}

/**
 * A connection that goes to `host` on 127.0.0.1 whatever address was checked, recording it: how a test
 * plays a public host (a name its stubbed resolver answered with a public address) without leaving
 * the machine.
 */
export function routedTo(host: TestHost): ((address: ResolvedAddress) => Socket) & { dialed: string[] } {
  const dialed: string[] = [];
  const open = (address: ResolvedAddress) => {
    dialed.push(address.address);
    return connect({ host: "127.0.0.1", port: host.port });
  };
  return Object.assign(open, { dialed });
}

/** A markdown folder with one post per URL, the URL as its cover. */
export function markdownWithCovers(urls: readonly string[]): { folder: string; remove(): void } {
  const folder = mkdtempSync(path.join(tmpdir(), "covers-"));
  urls.forEach((url, index) => {
    writeFileSync(
      path.join(folder, `post-${index}.md`),
      `---\ntitle: Post ${index}\ndate: 2024-01-01\ncover: "${url}"\n---\nA post with a cover.\n`,
    );
  });
  return { folder, remove: () => rmSync(folder, { recursive: true, force: true }) };
}

/** Imports a markdown folder whose covers are `urls` into `ws`: the import's summary. */
export async function importCovers(
  app: TestApp,
  ws: TestWorkspace,
  urls: readonly string[],
  context: Partial<TransferContext> = {},
): Promise<ImportSummary & { origin: string }> {
  const { folder, remove } = markdownWithCovers(urls);
  try {
    return await importInto(
      { db: app.db, config: app.config, storage: app.mediaStorage, ...context },
      { ...ws, name: "Covers" },
      { from: "markdown", location: folder },
      { dryRun: false, webhooks: false },
    );
  } finally {
    remove();
  }
}

/** The reasons of the media records that failed, the URL in each replaced by <url>. */
export function mediaFailures(summary: ImportSummary, urls: readonly string[]): string[] {
  return summary.failures
    .filter((failure) => failure.kind === "media")
    .map((failure) => urls.reduce((reason, url) => reason.replaceAll(url, "<url>"), failure.reason));
}
