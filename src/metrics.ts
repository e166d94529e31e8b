// The service's Prometheus metrics (prom-client), one registry per app, served at GET /metrics
// (src/http/metrics-route.ts). What each layer measures reaches here through plain callbacks
// (`observe…`), so no layer below the HTTP one depends on prom-client:
// - HTTP: request duration by method, route template (never a raw URL) and status; 429 refusals by
//   route; SQL statements per request (every statement the drivers run, counted against the request
//   whose async context issued it);
// - GraphQL: operation durations by operation name and type;
// - response caches (REST and GraphQL): lookups by result, bytes held;
// - webhooks: deliveries due now and how long the oldest due one has waited (read at scrape time);
// - image variants: how many are stored and the bytes they take; transforms running and waiting for a
//   slot on this instance (read at scrape time);
// - the process: Node's default metrics (event loop lag, heap, GC), when asked for.
import { AsyncLocalStorage } from "node:async_hooks";
import client from "prom-client";

/** How many different GraphQL operation names get their own series; later ones count as `other`. */
const MAX_OPERATION_NAMES = 200;
/**
 * How often the event-loop delay is sampled, in ms. prom-client's default, 10 ms, woke an idle process
 * 100 times a second (9 CPU ms per second; up to 0.03 ms per request at the benchmark's 300 a second).
 * A stall long enough to matter still delays a sample and shows in the delay's maximum.
 */
const EVENT_LOOP_SAMPLE_MS = 100;
const OPERATION_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;

export interface WebhookQueueState {
  /** Deliveries whose time has come and that nobody holds. */
  due: number;
  /** Seconds the oldest of them has been due; 0 when none is. */
  oldestDueSeconds: number;
}

export interface ServiceMetrics {
  registry: client.Registry;
  /**
   * One request: `run` its handling (the statements issued in that async context count against it),
   * then `done` when its response has ended.
   */
  beginRequest(): {
    run<T>(handle: () => T): T;
    done(labels: { method: string; route: string; status: number }, seconds: number): void;
  };
  /** One SQL statement run by a driver (the database layer's query observer). */
  countStatement(): void;
  observeOperation(name: string | null, type: string, seconds: number): void;
  observeCacheLookup(door: "rest" | "graphql", hit: boolean): void;
  /** A cache's size, read at scrape time. */
  watchCacheBytes(door: "rest" | "graphql", bytes: () => number): void;
  /** The webhook queue's state, read at scrape time (one SQL statement). */
  watchWebhookQueue(read: () => Promise<WebhookQueueState>): void;
  /** The stored image variants, read at scrape time (one SQL statement). */
  watchMediaVariants(read: () => Promise<MediaVariantTotals>): void;
  /** This instance's image transforms, running and waiting for a slot, read at scrape time. */
  watchTransforms(load: () => { active: number; waiting: number }): void;
  /** One uncached read routed to `target` (`primary` or a replica's name: src/db/replica-router.ts). */
  countRead(target: string): void;
  /** A read that could have gone to a replica went to the primary: replicas behind, unavailable, or failing. */
  countFallback(reason: "behind" | "unavailable" | "error"): void;
  /** Each replica's replay lag, read at scrape time (null: not answering). */
  watchReplicaLag(read: () => { name: string; lagMs: number | null }[]): void;
}

export interface MediaVariantTotals {
  count: number;
  bytes: number;
}

export function createMetrics(options: { processMetrics?: boolean } = {}): ServiceMetrics {
  const registry = new client.Registry();
  if (options.processMetrics)
    client.collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: EVENT_LOOP_SAMPLE_MS });
  const registers = [registry];

  const requestDuration = new client.Histogram({
    name: "http_request_duration_seconds",
    help: "Time from a request's arrival to its response's end, by route template and status.",
    labelNames: ["method", "route", "status"] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers,
  });
  const statementsPerRequest = new client.Histogram({
    name: "http_request_sql_statements",
    help: "SQL statements the database drivers ran for one request.",
    labelNames: ["route"] as const,
    buckets: [0, 1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 64],
    registers,
  });
  const rateLimited = new client.Counter({
    name: "http_rate_limited_total",
    help: "Requests refused with 429 by the rate limits.",
    labelNames: ["route"] as const,
    registers,
  });
  const operationDuration = new client.Histogram({
    name: "graphql_operation_duration_seconds",
    help: "Execution time of GraphQL operations (HTTP and the REST routes' in-process ones).",
    labelNames: ["operation", "type"] as const,
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers,
  });
  const cacheLookups = new client.Counter({
    name: "response_cache_lookups_total",
    help: "Response cache lookups by door (rest, graphql) and result (hit, miss).",
    labelNames: ["door", "result"] as const,
    registers,
  });
  const cacheSizes = new Map<string, () => number>();
  new client.Gauge({
    name: "response_cache_bytes",
    help: "Bytes of answers the response cache holds, by door.",
    labelNames: ["door"] as const,
    registers,
    collect() {
      for (const [door, bytes] of cacheSizes) this.set({ door }, bytes());
    },
  });
  let webhookQueue: (() => Promise<WebhookQueueState>) | null = null;
  // Both gauges come from one statement: a scrape collects them concurrently, and they share its read.
  let queueRead: Promise<WebhookQueueState | null> | null = null;
  const readQueue = () => {
    queueRead ??= (webhookQueue ? webhookQueue() : Promise.resolve(null)).finally(() => {
      queueRead = null;
    });
    return queueRead;
  };
  new client.Gauge({
    name: "webhook_deliveries_due",
    help: "Webhook deliveries due now that no instance holds, and events not fanned out yet (the dispatchers' backlog).",
    registers,
    async collect() {
      const state = await readQueue();
      if (state) this.set(state.due);
    },
  });
  new client.Gauge({
    name: "webhook_delivery_lag_seconds",
    help: "How long the oldest due webhook delivery has waited.",
    registers,
    async collect() {
      const state = await readQueue();
      if (state) this.set(state.oldestDueSeconds);
    },
  });

  let mediaVariants: (() => Promise<MediaVariantTotals>) | null = null;
  let variantsRead: Promise<MediaVariantTotals | null> | null = null;
  const readVariants = () => {
    variantsRead ??= (mediaVariants ? mediaVariants() : Promise.resolve(null)).finally(() => {
      variantsRead = null;
    });
    return variantsRead;
  };
  new client.Gauge({
    name: "media_variants",
    help: "Transformed images (variants) stored, every instance's together.",
    registers,
    async collect() {
      const totals = await readVariants();
      if (totals) this.set(totals.count);
    },
  });
  new client.Gauge({
    name: "media_variant_bytes",
    help: "Bytes the stored transformed images (variants) take in the media store.",
    registers,
    async collect() {
      const totals = await readVariants();
      if (totals) this.set(totals.bytes);
    },
  });

  let transformLoad: (() => { active: number; waiting: number }) | null = null;
  new client.Gauge({
    name: "media_transforms",
    help: "Image transforms on this instance, running (state=active) and waiting for a slot (state=waiting).",
    labelNames: ["state"] as const,
    registers,
    collect() {
      if (!transformLoad) return;
      const { active, waiting } = transformLoad();
      this.set({ state: "active" }, active);
      this.set({ state: "waiting" }, waiting);
    },
  });

  const readsByTarget = new client.Counter({
    name: "db_reads_total",
    help: "Uncached reads (REST reads, GraphQL queries) by where they ran: primary or a replica's host:port/database.",
    labelNames: ["target"] as const,
    registers,
  });
  const fallbacks = new client.Counter({
    name: "db_replica_fallbacks_total",
    help: "Reads sent to the primary instead of a replica, by reason (behind: not replayed what the read must show; unavailable; error: a statement failed on the replica and ran again on the primary).",
    labelNames: ["reason"] as const,
    registers,
  });
  let replicaLag: (() => { name: string; lagMs: number | null }[]) | null = null;
  new client.Gauge({
    name: "db_replica_lag_seconds",
    help: "How far each replica's replay is behind the primary, as this instance last measured it.",
    labelNames: ["replica"] as const,
    registers,
    collect() {
      for (const { name, lagMs } of replicaLag?.() ?? [])
        if (lagMs !== null) this.set({ replica: name }, lagMs / 1000);
    },
  });

  const statements = new AsyncLocalStorage<{ count: number }>();
  const operationNames = new Set<string>();

  return {
    registry,
    beginRequest() {
      const request = { count: 0 };
      return {
        run: (handle) => statements.run(request, handle),
        done({ method, route, status }, seconds) {
          requestDuration.observe({ method, route, status: String(status) }, seconds);
          statementsPerRequest.observe({ route }, request.count);
          if (status === 429) rateLimited.inc({ route });
        },
      };
    },
    countStatement() {
      const request = statements.getStore();
      if (request) request.count++;
    },
    observeOperation(name, type, seconds) {
      let operation = name && OPERATION_NAME.test(name) ? name : "anonymous";
      if (!operationNames.has(operation)) {
        if (operationNames.size >= MAX_OPERATION_NAMES) operation = "other";
        else operationNames.add(operation);
      }
      operationDuration.observe({ operation, type }, seconds);
    },
    observeCacheLookup(door, hit) {
      cacheLookups.inc({ door, result: hit ? "hit" : "miss" });
    },
    watchCacheBytes(door, bytes) {
      cacheSizes.set(door, bytes);
    },
    watchWebhookQueue(read) {
      webhookQueue = read;
    },
    watchMediaVariants(read) {
      mediaVariants = read;
    },
    watchTransforms(load) {
      transformLoad = load;
    },
    countRead(target) {
      readsByTarget.inc({ target });
    },
    countFallback(reason) {
      fallbacks.inc({ reason });
    },
    watchReplicaLag(read) {
      replicaLag = read;
    },
  };
}
