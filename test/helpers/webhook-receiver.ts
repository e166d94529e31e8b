// A real HTTP receiver for webhook tests: records every request (headers, exact body, when it came) and
// answers what the test tells it to, on a loopback port.
import { createServer, type IncomingHttpHeaders, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface Received {
  /** The request's path (with its query), as sent. */
  path: string;
  headers: IncomingHttpHeaders;
  /** Header values as one string each, as verifiers take them. */
  headerMap: Record<string, string>;
  body: string;
  json: {
    id: string;
    type: string;
    event: string;
    createdAt: string;
    workspaceId: string;
    data: Record<string, unknown>;
  };
  receivedAt: number;
}

/** Answers one request; the default answers 200. */
export type Responder = (received: Received, res: ServerResponse) => void;

export interface WebhookReceiver {
  url: string;
  received: Received[];
  respond(responder: Responder): void;
  /** Resolves once `predicate` holds for the requests received, or fails after `timeoutMs`. */
  waitFor(predicate: (received: Received[]) => boolean, timeoutMs?: number): Promise<Received[]>;
  close(): Promise<void>;
}

export async function startWebhookReceiver(path = "/hook"): Promise<WebhookReceiver> {
  const received: Received[] = [];
  let responder: Responder = (_received, res) => res.end("ok");
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      const headerMap = Object.fromEntries(
        Object.entries(req.headers).map(([name, value]) => [
          name,
          Array.isArray(value) ? value.join(", ") : String(value),
        ]),
      );
      const entry: Received = {
        path: req.url ?? "",
        headers: req.headers,
        headerMap,
        body,
        json: JSON.parse(body),
        receivedAt: performance.now(),
      };
      received.push(entry);
      responder(entry, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}${path}`;
  return {
    url,
    received,
    respond(next) {
      responder = next;
    },
    async waitFor(predicate, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      while (!predicate(received)) {
        if (Date.now() > deadline)
          throw new Error(
            `webhook receiver: condition not met in ${timeoutMs} ms; got ${received.map((r) => r.json.type).join(", ")}`,
          );
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      return received;
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
