import { collectDefaultMetrics, Counter, Histogram, Registry } from 'prom-client';

/**
 * The process's Prometheus metrics (DESIGN §10), names prefixed `rvs_`. The API and the worker
 * are separate processes, so each serves what it counted itself on its own metrics port
 * (metrics-server.ts); the process metrics (CPU, RSS, heap, event-loop lag) come with both.
 */
export const registry = new Registry();
collectDefaultMetrics({ register: registry, prefix: 'rvs_' });

const registers = [registry];

/** Request latency: from a 1 ms cache hit to a 30 s long-poll of a verdict. */
const HTTP_BUCKETS_S = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
/** Probe latency: loopback nodes answer in well under a millisecond, slow ones time out at 60 s. */
const PROBE_BUCKETS_S = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 60];

// ---- API ----
export const httpRequests = new Counter({
  name: 'rvs_http_requests_total',
  help: 'HTTP requests answered by the API, by route pattern, method and status code',
  labelNames: ['route', 'method', 'status'] as const,
  registers,
});
export const httpRequestDuration = new Histogram({
  name: 'rvs_http_request_duration_seconds',
  help: 'Time from receiving an HTTP request to sending its response, by route pattern and method',
  labelNames: ['route', 'method'] as const,
  buckets: HTTP_BUCKETS_S,
  registers,
});

// ---- worker ----
export const probeCalls = new Counter({
  name: 'rvs_probe_calls_total',
  help: 'Calls made to probed endpoints and committed as samples, by target role and outcome',
  labelNames: ['role', 'outcome'] as const,
  registers,
});
export const probeCallDuration = new Histogram({
  name: 'rvs_probe_call_duration_seconds',
  help: 'Latency of calls made to probed endpoints, by target role',
  labelNames: ['role'] as const,
  buckets: PROBE_BUCKETS_S,
  registers,
});
export const samplesWritten = new Counter({
  name: 'rvs_samples_written_total',
  help: 'Samples committed to PostgreSQL',
  registers,
});
export const activityAttempts = new Counter({
  name: 'rvs_activity_attempts_total',
  help: 'Temporal activity attempts started by this worker, by activity type',
  labelNames: ['activity'] as const,
  registers,
});
export const activityFailures = new Counter({
  name: 'rvs_activity_failures_total',
  help: 'Temporal activity attempts that ended with an error (cancellations included), by activity type',
  labelNames: ['activity'] as const,
  registers,
});
export const runsFinished = new Counter({
  name: 'rvs_runs_finished_total',
  help: 'Runs finalized by this worker, by status and verdict',
  labelNames: ['status', 'verdict'] as const,
  registers,
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
  registers,
});
/** Fires of suite schedules: `started` (a run was triggered) or `skipped` (paused, overlap, quota, suite gone). */
export const scheduleFires = new Counter({
  name: 'rvs_schedule_fires_total',
  help: 'Fires of suite schedules, by outcome',
  labelNames: ['outcome'] as const,
  registers,
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
