// The part of autocannon 9's programmatic API the bench uses (the package ships no types).
declare module "autocannon" {
  import type { EventEmitter } from "node:events";

  export interface AutocannonRequest {
    method?: string;
    path?: string;
    headers?: Record<string, string>;
    body?: string | Buffer;
    /** Returning a falsy value skips the rest of the sequence for this round. */
    setupRequest?: (
      request: AutocannonRequest,
      context: Record<string, unknown>,
    ) => AutocannonRequest | null | undefined;
    onResponse?: (
      status: number,
      body: string,
      context: Record<string, unknown>,
      headers: Record<string, string>,
    ) => void;
  }

  export interface AutocannonOptions {
    url: string;
    connections?: number;
    duration?: number;
    /** Stop after this many responses (each connection sends its share and waits for it) instead of a duration. */
    amount?: number;
    timeout?: number;
    title?: string;
    requests?: AutocannonRequest[];
    warmup?: { connections?: number; duration?: number };
    /** Requests per second across all connections. */
    overallRate?: number;
  }

  export interface Histogram {
    average: number;
    mean: number;
    stddev: number;
    min: number;
    max: number;
    total: number;
    p50: number;
    p90: number;
    p97_5: number;
    p99: number;
  }

  export interface AutocannonResult {
    duration: number;
    errors: number;
    timeouts: number;
    non2xx: number;
    requests: Histogram;
    latency: Histogram;
    throughput: Histogram;
    statusCodeStats: Record<string, { count: number }>;
  }

  type Instance = EventEmitter & PromiseLike<AutocannonResult>;
  function autocannon(options: AutocannonOptions): Instance;
  export default autocannon;
}
