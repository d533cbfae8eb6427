import { collectDefaultMetrics, Counter, Histogram, Registry } from 'prom-client';

/**
 * The Prometheus metrics (DESIGN §10). The API and the worker are separate processes, and each
 * serves only the families it counts itself on its own metrics port (metrics-server.ts): the API
 * `processRegistry` + `apiRegistry`, the worker `processRegistry` + `workerRegistry` (+ the
 * Temporal SDK's own, temporal-metrics.ts). Our own families are prefixed `rvs_`; the process
 * metrics keep prom-client's standard names (`process_*`, `nodejs_*`), which dashboards and
 * alerts written for any Node.js service expect.
 */
export const processRegistry = new Registry();
collectDefaultMetrics({ register: processRegistry });
/**
 * Gauges named like counters (`_total`), which rate() and the naming conventions get wrong; each
 * is the sum over the `type` label of its unsuffixed twin (`nodejs_active_handles` …), which stays.
 */
export const DROPPED_DEFAULT_METRICS = ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total'];
for (const name of DROPPED_DEFAULT_METRICS) processRegistry.removeSingleMetric(name);

/** Families only the API counts. */
export const apiRegistry = new Registry();
/** Families only the worker counts. */
export const workerRegistry = new Registry();

/** What the API's /metrics serves (call after every module that registers into apiRegistry is loaded). */
export const apiMetricsRegistry = (): Registry => Registry.merge([processRegistry, apiRegistry]);
/** What the worker's /metrics serves, besides the Temporal SDK's families. */
export const workerMetricsRegistry = (): Registry => Registry.merge([processRegistry, workerRegistry]);

/** Request latency: from a 1 ms cache hit to a slow query; long polls have their own histogram. */
const HTTP_BUCKETS_S = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
/** A long poll lasts up to its `wait` (at most 60 s) and ends early when the run finishes. */
const LONG_POLL_BUCKETS_S = [0.1, 0.5, 1, 2.5, 5, 10, 20, 30, 45, 60, 75];
/** Probe latency: loopback nodes answer in well under a millisecond, slow ones time out at 60 s. */
const PROBE_BUCKETS_S = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 60];

// ---- API ----
export const httpRequests = new Counter({
  name: 'rvs_http_requests_total',
  help: 'HTTP requests answered by the API, by route pattern, method and status code',
  labelNames: ['route', 'method', 'status'] as const,
  registers: [apiRegistry],
});
export const httpRequestDuration = new Histogram({
  name: 'rvs_http_request_duration_seconds',
  help: 'Time from receiving an HTTP request to sending its response, by route pattern and method; long polls (a wait query parameter) are in rvs_http_long_poll_duration_seconds instead',
  labelNames: ['route', 'method'] as const,
  buckets: HTTP_BUCKETS_S,
  registers: [apiRegistry],
});
/**
 * Requests that asked to be held until a run finishes (`?wait=` > 0): their duration is mostly
 * the wait the caller asked for, and in rvs_http_request_duration_seconds it would drown the
 * latency of every other request of the route.
 */
export const httpLongPollDuration = new Histogram({
  name: 'rvs_http_long_poll_duration_seconds',
  help: 'Time from receiving a long-poll request (wait query parameter above 0) to sending its response, by route pattern and method',
  labelNames: ['route', 'method'] as const,
  buckets: LONG_POLL_BUCKETS_S,
  registers: [apiRegistry],
});

// ---- worker ----
export const probeCalls = new Counter({
  name: 'rvs_probe_calls_total',
  help: 'Calls made to probed endpoints and committed as samples, by target role and outcome',
  labelNames: ['role', 'outcome'] as const,
  registers: [workerRegistry],
});
export const probeCallDuration = new Histogram({
  name: 'rvs_probe_call_duration_seconds',
  help: 'Latency of calls made to probed endpoints, by target role',
  labelNames: ['role'] as const,
  buckets: PROBE_BUCKETS_S,
  registers: [workerRegistry],
});
export const samplesWritten = new Counter({
  name: 'rvs_samples_written_total',
  help: 'Samples committed to PostgreSQL',
  registers: [workerRegistry],
});
export const activityAttempts = new Counter({
  name: 'rvs_activity_attempts_total',
  help: 'Temporal activity attempts started by this worker, by activity type',
  labelNames: ['activity'] as const,
  registers: [workerRegistry],
});
/**
 * How an activity attempt that threw ended: `failed` (it failed by itself: Temporal retries it or
 * the run fails), `timed_out` (Temporal gave up on it: a missed heartbeat or start-to-close),
 * `cancelled` (its workflow cancelled it: a user's cancel request, or a run that finished without
 * it) or `worker_shutdown` (this worker is stopping; another one retries it). Alert on `failed`.
 */
export type ActivityFailureOutcome = 'failed' | 'timed_out' | 'cancelled' | 'worker_shutdown';
export const activityFailures = new Counter({
  name: 'rvs_activity_failures_total',
  help: 'Temporal activity attempts that ended with an error, by activity type and outcome (failed, timed_out, cancelled, worker_shutdown)',
  labelNames: ['activity', 'outcome'] as const,
  registers: [workerRegistry],
});
export const runsFinished = new Counter({
  name: 'rvs_runs_finished_total',
  help: 'Runs finalized by this worker, by status and verdict',
  labelNames: ['status', 'verdict'] as const,
  registers: [workerRegistry],
});
/**
 * Webhook deliveries by outcome: `delivered`, `failed` (given up), `retried` (an attempt that
 * failed and will be retried), `refused` (the outbound guard refused the target). Incremented by
 * the webhook delivery activities.
 */
export const webhookDeliveries = new Counter({
  name: 'rvs_webhook_deliveries_total',
  help: 'Webhook delivery attempts and final outcomes, by outcome',
  labelNames: ['outcome'] as const,
  registers: [workerRegistry],
});
/** Fires of suite schedules: `started` (a run was triggered) or `skipped` (paused, overlap, quota, suite gone). */
export const scheduleFires = new Counter({
  name: 'rvs_schedule_fires_total',
  help: 'Fires of suite schedules, by outcome',
  labelNames: ['outcome'] as const,
  registers: [workerRegistry],
});

/** Counts one committed batch of samples (the probe's rows: role, outcome, latency in µs). */
export function recordSamples(rows: readonly { role: string; outcome: string; latency_us: number }[]): void {
  samplesWritten.inc(rows.length);
  // Label lookups once per (role, outcome) rather than per row: a batch is a thousand rows.
  const calls = new Map<string, { role: string; outcome: string; n: number }>();
  const latency = new Map<string, ReturnType<typeof probeCallDuration.labels>>();
  for (const row of rows) {
    const key = `${row.role}\0${row.outcome}`;
    const entry = calls.get(key);
    if (entry) entry.n += 1;
    else calls.set(key, { role: row.role, outcome: row.outcome, n: 1 });
    let histogram = latency.get(row.role);
    if (!histogram) latency.set(row.role, (histogram = probeCallDuration.labels({ role: row.role })));
    histogram.observe(row.latency_us / 1e6);
  }
  for (const { role, outcome, n } of calls.values()) probeCalls.inc({ role, outcome }, n);
}
