// One HTTP attempt of a webhook delivery. The target is checked and resolved first
// (target-safety.ts) and the connection goes to that checked address, never to a second lookup of the
// name, so a name that turned private since (DNS rebinding) cannot be reached. Redirects are not
// followed (node's http client never does): a 3xx is a failed attempt like any other non-2xx. The whole
// attempt — connect, send, the receiver's answer — has one deadline, and only the first
// RESPONSE_BODY_LIMIT_BYTES of the answer are read: a receiver cannot hold a sender or fill its memory.
import http from "node:http";
import https from "node:https";
import { RESPONSE_BODY_LIMIT_BYTES } from "../domain/webhook-deliveries.ts";
import {
  pinnedLookup,
  type ResolvedAddress,
  type Resolver,
  resolveSafeAddress,
  type TargetPolicy,
  UnsafeTargetError,
} from "./target-safety.ts";

export interface SendRequest {
  url: string;
  body: string;
  /** The signed headers (signing.ts); content-type and user-agent are added here. */
  headers: Record<string, string>;
  timeoutMs: number;
  policy: TargetPolicy;
  /** Ends the attempt early (shutdown); its result then says so. */
  signal?: AbortSignal;
  resolve?: Resolver;
}

export interface SendResult {
  /** The receiver's status; null when no answer came. */
  statusCode: number | null;
  durationMs: number;
  /** Why no usable answer came (timeout, network, refused target); null when one did. */
  error: string | null;
  /** The first RESPONSE_BODY_LIMIT_BYTES of the answer, as UTF-8. */
  responseBody: string | null;
  /** The attempt was ended by `signal`, not by the receiver: not the receiver's failure. */
  aborted: boolean;
}

const USER_AGENT = "content-gateway-webhooks/1";

// Keep-alive per process: a receiver that gets a burst of events is not asked for a new connection (and
// TLS handshake) each time. Sockets are keyed by host and port; every address they were opened to was
// checked when they were.
//
// No cap on the sockets per host: the dispatcher's claim already bounds what is in flight (per
// endpoint, per workspace, per instance), and a cap here would be a second, hidden one shared by every
// endpoint at that host, whichever workspace owns it. Beyond it an attempt waits in the agent's queue,
// leased and counted as in flight, behind whatever holds the sockets: with 16 per host, one workspace's
// endpoints that never answer (paths of one receiving service) made another workspace's deliveries to
// that host wait until those attempts timed out, 7-9 s (issue 53, test/api/webhook-hanging-neighbours.test.ts).
const agents = {
  "http:": new http.Agent({ keepAlive: true, maxSockets: Number.POSITIVE_INFINITY }),
  "https:": new https.Agent({ keepAlive: true, maxSockets: Number.POSITIVE_INFINITY }),
};

export async function sendWebhook(request: SendRequest): Promise<SendResult> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  let address: ResolvedAddress;
  try {
    address = await resolveSafeAddress(request.url, request.policy, request.resolve);
  } catch (error) {
    const reason =
      error instanceof UnsafeTargetError ? error.message : `Could not resolve the host: ${messageOf(error)}`;
    return { statusCode: null, durationMs: elapsed(), error: reason, responseBody: null, aborted: false };
  }
  return new Promise((resolve) => {
    const target = new URL(request.url);
    let settled = false;
    const finish = (result: Omit<SendResult, "durationMs" | "aborted">, aborted = false) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      request.signal?.removeEventListener("abort", onAbort);
      resolve({ ...result, durationMs: elapsed(), aborted });
    };
    const client = target.protocol === "https:" ? https : http;
    const req = client.request(target, {
      method: "POST",
      agent: agents[target.protocol as keyof typeof agents],
      lookup: pinnedLookup(address),
      headers: {
        ...request.headers,
        "content-type": "application/json",
        "content-length": String(Buffer.byteLength(request.body)),
        "user-agent": USER_AGENT,
      },
    });
    const timer = setTimeout(() => {
      finish({ statusCode: null, error: `Timed out after ${request.timeoutMs} ms`, responseBody: null });
      req.destroy();
    }, request.timeoutMs);
    const onAbort = () => {
      finish({ statusCode: null, error: "Stopped: the service shut down", responseBody: null }, true);
      req.destroy();
    };
    if (request.signal?.aborted) return onAbort();
    request.signal?.addEventListener("abort", onAbort, { once: true });

    req.on("error", (error) => finish({ statusCode: null, error: messageOf(error), responseBody: null }));
    req.on("response", (res) => {
      const statusCode = res.statusCode ?? null;
      const chunks: Buffer[] = [];
      let kept = 0;
      const done = () =>
        finish({
          statusCode,
          error: null,
          responseBody: Buffer.concat(chunks).toString("utf8"),
        });
      res.on("data", (chunk: Buffer) => {
        if (kept >= RESPONSE_BODY_LIMIT_BYTES) return;
        const part = chunk.subarray(0, RESPONSE_BODY_LIMIT_BYTES - kept);
        chunks.push(part);
        kept += part.length;
        // Enough for the log: stop reading and drop the connection rather than drain a huge answer.
        if (kept >= RESPONSE_BODY_LIMIT_BYTES) {
          done();
          res.destroy();
        }
      });
      res.on("end", done);
      res.on("error", done);
      res.on("close", done);
    });
    req.end(request.body);
  });
}

function messageOf(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const code = (error as { code?: unknown }).code;
  return typeof code === "string" && !error.message.includes(code)
    ? `${code}: ${error.message}`
    : error.message;
}
