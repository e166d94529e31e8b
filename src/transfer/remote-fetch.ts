// What an import reads over the network: the media files a source names by URL (Ghost and markdown
// covers, WordPress attachments, a /v1 source's library and covers) and the pages of a /v1 source.
// A URL in an import file is chosen by whoever wrote the file, so each fetch is a request the service
// makes on a stranger's behalf, and its answer becomes public media:
//
// - Where: the webhook target rules (src/webhooks/target-safety.ts) on the first URL and again on every
//   redirect (at most MAX_REDIRECTS): http(s) only, each hop's name resolved and every address checked,
//   the connection made to the checked address (pinnedLookup), so no loopback, private, link-local or
//   metadata address is reached, in any spelling (decimal, octal, IPv4-mapped), nor by DNS rebinding.
//   WEBHOOK_ALLOW_PRIVATE_TARGETS lifts the address rules for imports as it does for webhooks.
// - How long and how much: a connect deadline per hop (the name's lookup included), one deadline for
//   the whole fetch (redirects, headers, body), and a byte cap counted as the body arrives: at the cap
//   the connection is dropped and the rest never read. A target that never answers, drips, or streams
//   without end costs at most the deadline and the cap, and an abandoned import stops its fetch at once.
// - What is said: every failure is the same "could not be fetched" (a refused connection, a timeout, a
//   status, a size alike), so an import's summary never tells what sits at an address. Only a refusal
//   of the target itself, decided before any connection, says so.
import http from "node:http";
import https from "node:https";
import type { Socket } from "node:net";
import { RemoteFetchError } from "../domain/errors.ts";
import { formatBytes } from "../media/upload-errors.ts";
import {
  pinnedLookup,
  type ResolvedAddress,
  type Resolver,
  resolveSafeAddress,
  UnsafeTargetError,
} from "../webhooks/target-safety.ts";

/** How an import may reach other hosts (config.imports.fetch), for every fetch it makes. */
export interface RemoteAccess {
  /** Loopback, private and link-local targets allowed (WEBHOOK_ALLOW_PRIVATE_TARGETS). */
  allowPrivateTargets: boolean;
  /** Milliseconds from the start of each hop (name lookup included) to its connection. */
  connectTimeoutMs: number;
  /** Milliseconds for the whole fetch: every redirect, the answer's headers and its body. */
  timeoutMs: number;
  /** Ends every fetch in flight: the import was abandoned. */
  signal?: AbortSignal;
  /** How names resolve: the system's resolver unless a test gives a stubbed answer. */
  resolve?: Resolver;
  /**
   * Opens the connection to a checked address (plain http). Unset: node connects to that address itself;
   * a test routes it to its own server on 127.0.0.1, for a name its stubbed resolver answered.
   */
  connect?: (address: ResolvedAddress, port: number) => Socket;
}

export interface FetchRequest {
  url: string;
  /** Bytes of body read at most: one more and the fetch fails. */
  maxBytes: number;
  headers?: Record<string, string>;
}

export interface FetchedAnswer {
  status: number;
  /** The body of a 2xx answer; empty for any other status, which is never read. */
  body: Buffer;
}

const MAX_REDIRECTS = 5;
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
const USER_AGENT = "content-gateway-import/1";

/**
 * GETs `request.url` within `access`'s rules and deadlines and the request's byte cap: the final
 * answer's status and (when 2xx) body. Throws RemoteFetchError for a refused target or no usable answer,
 * and the signal's reason when the import was abandoned.
 */
export async function fetchWithinLimits(access: RemoteAccess, request: FetchRequest): Promise<FetchedAnswer> {
  const deadline = AbortSignal.timeout(access.timeoutMs);
  const signal = access.signal ? AbortSignal.any([deadline, access.signal]) : deadline;
  let url = request.url;
  let headers = request.headers ?? {};
  try {
    for (let hop = 0; hop <= MAX_REDIRECTS; hop += 1) {
      const answer = await fetchOnce(access, { url, headers, maxBytes: request.maxBytes }, signal);
      if (!("location" in answer)) return answer;
      const next = new URL(answer.location, url);
      // Credentials were given for one origin, not for wherever it redirects.
      if (next.origin !== new URL(url).origin) headers = withoutCredentials(headers);
      url = next.href;
    }
    throw new Error(`more than ${MAX_REDIRECTS} redirects`);
  } catch (error) {
    if (access.signal?.aborted) throw access.signal.reason;
    if (error instanceof UnsafeTargetError)
      throw new RemoteFetchError(
        `${request.url} is not fetched: an import fetches http(s) URLs at public addresses only` +
          " (WEBHOOK_ALLOW_PRIVATE_TARGETS=true allows private ones)",
      );
    throw couldNotFetch(access, request);
  }
}

/** The body of `request.url`'s 2xx answer; any other answer is "could not be fetched" like a failure. */
export async function fetchBody(access: RemoteAccess, request: FetchRequest): Promise<Buffer> {
  const answer = await fetchWithinLimits(access, request);
  if (answer.status < 200 || answer.status > 299) throw couldNotFetch(access, request);
  return answer.body;
}

function couldNotFetch(access: RemoteAccess, request: FetchRequest): RemoteFetchError {
  return new RemoteFetchError(
    `${request.url} could not be fetched (no usable answer within ${access.timeoutMs / 1000} s` +
      ` and ${formatBytes(request.maxBytes)})`,
  );
}

/** One request: its answer, or where it redirects. */
async function fetchOnce(
  access: RemoteAccess,
  { url, headers, maxBytes }: Required<FetchRequest>,
  signal: AbortSignal,
): Promise<FetchedAnswer | { location: string }> {
  const hop = new AbortController();
  const onAbort = () => hop.abort(signal.reason);
  signal.addEventListener("abort", onAbort, { once: true });
  const connectTimer = setTimeout(
    () => hop.abort(new Error(`no connection within ${access.connectTimeoutMs} ms`)),
    access.connectTimeoutMs,
  );
  try {
    if (signal.aborted) throw signal.reason;
    const address = await untilAborted(
      resolveSafeAddress(url, { allowPrivate: access.allowPrivateTargets }, access.resolve),
      hop.signal,
    );
    return await request(access, { url, headers, maxBytes }, address, hop.signal, () =>
      clearTimeout(connectTimer),
    );
  } finally {
    clearTimeout(connectTimer);
    signal.removeEventListener("abort", onAbort);
  }
}

function request(
  access: RemoteAccess,
  { url, headers, maxBytes }: Required<FetchRequest>,
  address: ResolvedAddress,
  signal: AbortSignal,
  connected: () => void,
): Promise<FetchedAnswer | { location: string }> {
  const target = new URL(url);
  const secure = target.protocol === "https:";
  const port = Number(target.port) || (secure ? 443 : 80);
  const connect = access.connect;
  return new Promise((resolve, reject) => {
    const req = (secure ? https : http).request(target, {
      method: "GET",
      signal,
      headers: { ...headers, "user-agent": USER_AGENT, "accept-encoding": "identity" },
      // A connection per request (no agent, no pool): a pooled socket would skip the connect deadline
      // and outlive the import. node uses createConnection only when no agent is given.
      ...(connect
        ? { createConnection: () => connect(address, port) }
        : { agent: false, lookup: pinnedLookup(address) }),
    });
    req.once("socket", (socket: Socket) => {
      if (!socket.connecting) return connected();
      socket.once(secure ? "secureConnect" : "connect", connected);
    });
    req.once("error", reject);
    req.once("response", (res) => {
      const status = res.statusCode ?? 0;
      const location = res.headers.location;
      if (REDIRECT_STATUSES.has(status) && location) {
        res.destroy();
        return resolve({ location });
      }
      if (status < 200 || status > 299) {
        res.destroy();
        return resolve({ status, body: Buffer.alloc(0) });
      }
      const tooLarge = () => {
        res.destroy();
        reject(new Error(`more than ${maxBytes} bytes`));
      };
      if (Number(res.headers["content-length"]) > maxBytes) return tooLarge();
      const chunks: Buffer[] = [];
      let size = 0;
      res.on("data", (chunk: Buffer) => {
        size += chunk.byteLength;
        // Counted as it arrives: the connection is dropped at the cap, the rest never read.
        if (size > maxBytes) return tooLarge();
        chunks.push(chunk);
      });
      res.once("end", () => resolve({ status, body: Buffer.concat(chunks, size) }));
      res.once("error", reject);
      // After "end" this changes nothing; before it, the answer was cut off.
      res.once("close", () => reject(new Error("the answer ended early")));
    });
    req.end();
  });
}

/** `promise`, or the signal's reason as soon as it aborts (a name lookup cannot itself be stopped). */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    if (signal.aborted) onAbort();
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

function withoutCredentials(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(headers).filter(([name]) => !["authorization", "cookie"].includes(name.toLowerCase())),
  );
}
