import { randomBytes, randomUUID } from 'node:crypto';
import type { ChildProcess } from 'node:child_process';
import parsePrometheusTextFormat, { type PrometheusFamily, type PrometheusSample } from 'parse-prometheus-text-format';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { loadConfig } from '../../src/config';
import { createSql, type Sql } from '../../src/db/client';
import { countRunsByStatusAndVerdict } from '../../src/db/run-counts';
import { createLogger } from '../../src/logger';
import { startMetricsServer, type MetricsServer } from '../../src/metrics/metrics-server';
import { apiMetricsRegistry, workerMetricsRegistry } from '../../src/metrics/registry';
import { createRunCountsCollector, RUN_COUNTS_MAX_AGE_MS } from '../../src/metrics/runs-gauge';
import { startApi, type RunningApi } from '../../src/server';
import { fireSchedule } from '../../src/services/schedules';
import { createSuite, get, post, waitForRun } from '../helpers/api';
import { freePort } from '../helpers/free-port';
import { answers, startFakeNode, type FakeNode } from '../helpers/json-rpc-node';
import { startStack, type Stack } from '../helpers/stack';
import { startStallableProxy, type StallableProxy } from '../helpers/stallable-proxy';
import { killHard, startWorkerProcess, until } from '../helpers/worker-process';
import { metricNamesOf, shippedExpressions } from '../helpers/monitoring-assets';

interface Scrape {
  text: string;
  families: Map<string, PrometheusFamily>;
}

/** Scrapes a /metrics endpoint and parses it with an independent Prometheus text-format parser. */
async function scrape(port: number): Promise<Scrape> {
  const response = await fetch(`http://127.0.0.1:${port}/metrics`);
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  const text = await response.text();
  return { text, families: new Map(parsePrometheusTextFormat(text).map((f) => [f.name, f])) };
}

/**
 * One series of a labelled histogram. The parser folds every label set of a histogram into one
 * (it keeps labels only for unlabelled histograms), so the series' lines are picked out, their
 * labels other than `le` dropped, and that is parsed on its own.
 */
function histogram({ text }: Scrape, name: string, labels: Record<string, string>): PrometheusSample | undefined {
  const pairs = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  const lines = text.split('\n').filter((line) => {
    if (line === `# TYPE ${name} histogram` || line.startsWith(`# HELP ${name} `)) return true;
    if (!/^[a-z_]+[{ ]/.test(line) || !line.startsWith(name)) return false;
    const series = line.slice(0, line.indexOf('{') === -1 ? line.indexOf(' ') : line.indexOf('{'));
    return [`${name}_bucket`, `${name}_sum`, `${name}_count`].includes(series) && pairs.every((p) => line.includes(p));
  });
  const stripped = lines.map((line) =>
    line.startsWith('#') ? line : line.replace(/\{([^}]*)\}/, (_all, inner: string) => {
      const kept = inner.split(',').filter((p) => p.startsWith('le='));
      return kept.length > 0 ? `{${kept.join(',')}}` : '';
    }),
  );
  return parsePrometheusTextFormat(`${stripped.join('\n')}\n`)[0]?.metrics[0];
}

function sample({ families }: Scrape, name: string, labels: Record<string, string>): PrometheusSample | undefined {
  return families.get(name)?.metrics.find((m) => Object.entries(labels).every(([k, v]) => m.labels?.[k] === v));
}
const valueOf = (s: PrometheusSample | undefined) => Number(s?.value ?? Number.NaN);

/** Families only the worker counts; never on the API's port. */
const WORKER_FAMILIES = [
  'rvs_probe_calls_total',
  'rvs_probe_call_duration_seconds',
  'rvs_samples_written_total',
  'rvs_activity_attempts_total',
  'rvs_activity_failures_total',
  'rvs_runs_finished_total',
  'rvs_webhook_deliveries_total',
  'rvs_schedule_fires_total',
  'rvs_campaign_pacer_limit',
  'rvs_campaign_pacer_in_flight',
  'rvs_campaign_pacer_campaigns',
  'rvs_campaign_pacer_interactive',
  'rvs_tenant_probe_cap_waits_total',
];
/** Families only the API counts; never on the worker's port. */
const API_FAMILIES = ['rvs_http_requests_total', 'rvs_http_request_duration_seconds', 'rvs_http_long_poll_duration_seconds', 'rvs_runs'];

/**
 * The conventions every scrape keeps: prom-client's process metrics under their standard names
 * (`process_*`, `nodejs_*`, not prefixed), our own prefixed `rvs_`, and no gauge named like a
 * counter (`_total`).
 */
function expectConventions(result: Scrape, allowedPrefixes: string[]): void {
  for (const name of ['process_cpu_seconds_total', 'process_resident_memory_bytes', 'process_start_time_seconds', 'nodejs_eventloop_lag_seconds', 'nodejs_heap_size_used_bytes']) {
    expect(result.families.has(name), name).toBe(true);
  }
  expect(result.families.get('process_cpu_seconds_total')!.type).toBe('COUNTER');
  for (const [name, family] of result.families) {
    expect(allowedPrefixes.some((prefix) => name.startsWith(prefix)), name).toBe(true);
    expect(name.startsWith('rvs_process_') || name.startsWith('rvs_nodejs_'), name).toBe(false);
    if (family.type === 'GAUGE') expect(name.endsWith('_total'), `gauge ${name}`).toBe(false);
  }
  // Every family once: two expositions glued together must not repeat one.
  const typeLines = result.text.split('\n').filter((line) => line.startsWith('# TYPE '));
  expect(new Set(typeLines.map((line) => line.split(' ')[2])).size).toBe(typeLines.length);
}

describe('Prometheus /metrics of the API (its own port)', () => {
  let stack: Stack;
  let node: FakeNode;
  let server: MetricsServer;
  // The worker's families counted in this process (the stack runs its worker in-process).
  let workerServer: MetricsServer;
  // rvs_runs is reused for RUN_COUNTS_MAX_AGE_MS; the test moves this clock instead of sleeping.
  let clock = 0;

  beforeAll(async () => {
    stack = await startStack();
    node = await startFakeNode(answers.ok('0x10'));
    server = await startMetricsServer({ registry: apiMetricsRegistry(), host: '127.0.0.1', port: 0, collect: createRunCountsCollector(stack.sql, { now: () => clock }) });
    workerServer = await startMetricsServer({ registry: workerMetricsRegistry(), host: '127.0.0.1', port: 0 });
  });
  afterAll(async () => {
    await server?.close();
    await workerServer?.close();
    await node?.close();
    await stack?.close();
  });

  it('counts requests by route pattern and status with a latency histogram, runs by status and verdict, schedule fires', async () => {
    const { auth } = await stack.newTenant();
    const { suiteId } = await createSuite(stack.app, auth, { candidates: [node.url], config: { workload: { requests_per_target: 5, concurrency: 1, warmup_requests: 0 } } });
    const before = await scrape(server.port);
    const okBefore = valueOf(sample(before, 'rvs_http_requests_total', { route: '/v1/suites/:suiteId', method: 'GET', status: '200' })) || 0;
    for (let i = 0; i < 3; i++) expect((await get(stack.app, `/v1/suites/${suiteId}`, auth)).status).toBe(200);
    expect((await get(stack.app, '/v1/suites/00000000-0000-4000-8000-000000000000', auth)).status).toBe(404);
    const run = await post<{ id: string }>(stack.app, `/v1/suites/${suiteId}/runs`, auth);
    const finished = await waitForRun(stack.app, auth, run.body.id);
    const deps = { config: stack.config, sql: stack.sql, box: stack.box, temporal: stack.client, jwt: null };
    await fireSchedule(deps, { suiteId: '00000000-0000-4000-8000-000000000001', fireId: `test-fire-${randomUUID()}` });

    clock += RUN_COUNTS_MAX_AGE_MS;
    const families = await scrape(server.port);
    // Route patterns, never raw URLs: ids do not multiply the series.
    expect(valueOf(sample(families, 'rvs_http_requests_total', { route: '/v1/suites/:suiteId', method: 'GET', status: '200' }))).toBe(okBefore + 3);
    expect(valueOf(sample(families, 'rvs_http_requests_total', { route: '/v1/suites/:suiteId', method: 'GET', status: '404' }))).toBeGreaterThanOrEqual(1);
    expect(families.families.get('rvs_http_requests_total')!.metrics.some((m) => m.labels?.route?.includes(suiteId))).toBe(false);
    expect(families.families.get('rvs_http_request_duration_seconds')!.type).toBe('HISTOGRAM');
    const suiteLatency = histogram(families, 'rvs_http_request_duration_seconds', { route: '/v1/suites/:suiteId', method: 'GET' })!;
    expect(Number(suiteLatency.count)).toBeGreaterThanOrEqual(4);
    expect(Number(suiteLatency.buckets!['+Inf'])).toBe(Number(suiteLatency.count));

    expect(families.families.get('rvs_runs')!.type).toBe('GAUGE');
    const verdict = (await get<{ verdict: string }>(stack.app, `/v1/runs/${run.body.id}/verdict`, auth)).body.verdict;
    expect(valueOf(sample(families, 'rvs_runs', { status: finished.status as string, verdict }))).toBeGreaterThanOrEqual(1);
    // Schedule fires are the worker's (the fire's activity runs there).
    expect(valueOf(sample(await scrape(workerServer.port), 'rvs_schedule_fires_total', { outcome: 'skipped' }))).toBeGreaterThanOrEqual(1);
    // Only the API's own families: no worker counter sitting at 0 on the API's port.
    for (const name of WORKER_FAMILIES) expect(families.families.has(name), name).toBe(false);
    expectConventions(families, ['rvs_', 'process_', 'nodejs_']);
  });

  it('long polls (?wait= above 0) go to a histogram of their own, not to the request latency', async () => {
    const { auth } = await stack.newTenant();
    const { suiteId } = await createSuite(stack.app, auth, { candidates: [node.url], config: { workload: { requests_per_target: 5, concurrency: 1, warmup_requests: 0 } } });
    const run = await post<{ id: string }>(stack.app, `/v1/suites/${suiteId}/runs`, auth);
    await waitForRun(stack.app, auth, run.body.id);
    const labels = { route: '/v1/runs/:runId/verdict', method: 'GET' };
    const count = (result: Scrape, name: string) => Number(histogram(result, name, labels)?.count ?? 0);
    const before = await scrape(server.port);
    for (const query of ['', '?wait=0', '?wait=5', '?wait=30']) {
      expect((await get(stack.app, `/v1/runs/${run.body.id}/verdict${query}`, auth)).status, query).toBe(200);
    }
    const after = await scrape(server.port);
    expect(after.families.get('rvs_http_long_poll_duration_seconds')!.type).toBe('HISTOGRAM');
    expect(count(after, 'rvs_http_request_duration_seconds') - count(before, 'rvs_http_request_duration_seconds')).toBe(2);
    expect(count(after, 'rvs_http_long_poll_duration_seconds') - count(before, 'rvs_http_long_poll_duration_seconds')).toBe(2);
    // Counted as requests all the same.
    expect(
      valueOf(sample(after, 'rvs_http_requests_total', { ...labels, status: '200' })) - (valueOf(sample(before, 'rvs_http_requests_total', { ...labels, status: '200' })) || 0),
    ).toBe(4);
  });

  it('answers 404 for anything but GET /metrics', async () => {
    expect((await fetch(`http://127.0.0.1:${server.port}/`)).status).toBe(404);
    expect((await fetch(`http://127.0.0.1:${server.port}/metrics`, { method: 'POST' })).status).toBe(404);
  });
});

describe('rvs_runs: one query for many scrapes', () => {
  let sql: Sql;
  let clock = 0;
  let queries = 0;
  // The real aggregate, counted; `gate`, when set, holds every query until it resolves.
  let gate: Promise<void> | null = null;
  const countedQuery: typeof countRunsByStatusAndVerdict = async (db) => {
    queries += 1;
    if (gate) await gate;
    return countRunsByStatusAndVerdict(db);
  };

  beforeAll(() => {
    sql = createSql(inject('databaseUrl'), { max: 2 });
  });
  afterAll(async () => {
    await sql?.end();
  });

  it('concurrent scrapes of the metrics port share one query, and its counts for 15 s', async () => {
    queries = 0;
    const server = await startMetricsServer({ registry: apiMetricsRegistry(), host: '127.0.0.1', port: 0, collect: createRunCountsCollector(sql, { query: countedQuery, now: () => clock }) });
    try {
      const scrapes = await Promise.all(Array.from({ length: 20 }, () => scrape(server.port)));
      for (const result of scrapes) expect(result.families.get('rvs_runs')!.type).toBe('GAUGE');
      expect(queries).toBe(1);
    } finally {
      await server.close();
    }
  });

  it('collects that overlap the query in flight wait for it instead of starting their own', async () => {
    queries = 0;
    let release!: () => void;
    gate = new Promise<void>((resolve) => (release = resolve));
    try {
      const collect = createRunCountsCollector(sql, { query: countedQuery, now: () => clock });
      const pending = Array.from({ length: 10 }, () => collect());
      expect(queries).toBe(1);
      release();
      await Promise.all(pending);
      expect(queries).toBe(1);
    } finally {
      gate = null;
    }
  });

  it('reuses counts younger than 15 s (from when their query started) and queries again after', async () => {
    queries = 0;
    clock = 1_000_000;
    const collect = createRunCountsCollector(sql, { query: countedQuery, now: () => clock });
    await collect();
    clock += RUN_COUNTS_MAX_AGE_MS - 1;
    await collect();
    expect(queries).toBe(1);
    clock += 1;
    await collect();
    expect(queries).toBe(2);
  });

  it('does not cache a failed query: its scrapes fail, the next one queries again', async () => {
    let calls = 0;
    const failingOnce: typeof countRunsByStatusAndVerdict = async (db) => {
      calls += 1;
      if (calls === 1) throw new Error('database unavailable');
      return countRunsByStatusAndVerdict(db);
    };
    const collect = createRunCountsCollector(sql, { query: failingOnce, now: () => clock });
    await expect(Promise.all([collect(), collect()])).rejects.toThrow('database unavailable');
    expect(calls).toBe(1);
    await collect();
    expect(calls).toBe(2);
  });
});

describe('metrics servers listen on loopback by default, not on HOST', () => {
  // A database of this file's own: the API migrates it and its reconciler sweeps it.
  const databaseName = `metrics_host_${randomBytes(4).toString('hex')}`;
  let admin: Sql;
  let api: RunningApi | undefined;

  beforeAll(async () => {
    admin = createSql(inject('databaseUrl'), { max: 1 });
    await admin.unsafe(`create database ${databaseName}`);
  });
  afterAll(async () => {
    await api?.close();
    await admin?.unsafe(`drop database if exists ${databaseName} with (force)`);
    await admin?.end();
  });

  it('the API started with the default metrics settings serves /metrics on 127.0.0.1 only', async () => {
    const databaseUrl = new URL(inject('databaseUrl'));
    databaseUrl.pathname = `/${databaseName}`;
    // HOST is ::1 (loopback, so the test opens nothing): a metrics server that followed HOST would
    // show up there instead of on 127.0.0.1.
    const config = loadConfig({
      DATABASE_URL: databaseUrl.toString(),
      TEMPORAL_ADDRESS: inject('temporalAddress'),
      HOST: '::1',
      PORT: '0',
      RVS_API_METRICS_PORT: String(await freePort()),
      RVS_SECRET_KEY: randomBytes(32).toString('hex'),
      LOG_LEVEL: 'silent',
    });
    api = await startApi({ ...config, databaseUrl: config.databaseUrl!, temporal: { ...config.temporal, address: config.temporal.address! } }, createLogger('silent', 'test'));
    expect(api.app.server.address()).toMatchObject({ address: '::1' });
    expect(api.metrics).toMatchObject({ host: '127.0.0.1', port: config.apiMetricsPort });
    const families = await scrape(api.metrics!.port);
    expect(families.families.get('rvs_runs')!.type).toBe('GAUGE');
  });
});

describe('Prometheus /metrics of the worker process', () => {
  let stack: Stack;
  let node: FakeNode;
  let worker: ChildProcess;
  let port: number;
  let proxy: StallableProxy;

  beforeAll(async () => {
    const secretKey = randomBytes(32).toString('hex');
    stack = await startStack({ worker: false, env: { RVS_SECRET_KEY: secretKey } });
    node = await startFakeNode(answers.ok('0x10'));
    port = await freePort();
    // HOST is ::1 and RVS_METRICS_HOST unset: the worker's metrics must still be on 127.0.0.1
    // (a worker whose metrics followed HOST is never reached here, and this times out).
    // Through a proxy, so that a test can break its polls.
    proxy = await startStallableProxy(inject('temporalAddress'));
    worker = startWorkerProcess({ taskQueue: stack.taskQueue, secretKey, env: { RVS_WORKER_METRICS_PORT: String(port), HOST: '::1', TEMPORAL_ADDRESS: proxy.address } });
    await until(async () => (await fetch(`http://127.0.0.1:${port}/metrics`).then((r) => r.status).catch(() => 0)) === 200, 90_000, 'the worker metrics port');
  });
  afterAll(async () => {
    if (worker) await killHard(worker);
    await proxy?.close();
    await node?.close();
    await stack?.close();
  });

  it('counts probe calls by outcome with their latency, samples written, activity attempts and finished runs', async () => {
    const { auth } = await stack.newTenant();
    const { suiteId } = await createSuite(stack.app, auth, { candidates: [node.url], config: { workload: { requests_per_target: 40, concurrency: 2, warmup_requests: 0 } } });
    const run = await post<{ id: string }>(stack.app, `/v1/suites/${suiteId}/runs`, auth);
    const finished = await waitForRun(stack.app, auth, run.body.id);
    expect(finished.status).toBe('success');
    const verdict = (await get<{ verdict: string }>(stack.app, `/v1/runs/${run.body.id}/verdict`, auth)).body.verdict;

    const families = await scrape(port);
    // This worker process ran only this run: its counters are exactly the run's.
    expect(valueOf(sample(families, 'rvs_probe_calls_total', { role: 'primary', outcome: 'ok' }))).toBe(40);
    expect(valueOf(sample(families, 'rvs_samples_written_total', {}))).toBe(40);
    expect(families.families.get('rvs_probe_call_duration_seconds')!.type).toBe('HISTOGRAM');
    const primary = histogram(families, 'rvs_probe_call_duration_seconds', { role: 'primary' })!;
    expect(Number(primary.buckets!['+Inf'])).toBe(40);
    expect(Number(primary.count)).toBe(40);
    expect(Number(primary.sum)).toBeGreaterThan(0);
    for (const activity of ['claimRun', 'planRun', 'probeChunk', 'finalizeRun']) {
      expect(valueOf(sample(families, 'rvs_activity_attempts_total', { activity })), activity).toBeGreaterThanOrEqual(1);
    }
    expect(valueOf(sample(families, 'rvs_runs_finished_total', { status: 'success', verdict }))).toBe(1);
    // The worker's campaign pacing, read from its pacer: no campaign ran, nothing in flight, unthrottled; no tenant at its cap.
    expect(valueOf(sample(families, 'rvs_campaign_pacer_limit', {}))).toBe(100_000);
    expect(valueOf(sample(families, 'rvs_campaign_pacer_in_flight', {}))).toBe(0);
    expect(valueOf(sample(families, 'rvs_tenant_probe_cap_waits_total', {}))).toBe(0);
    expect(families.families.get('rvs_activity_failures_total')!.type).toBe('COUNTER');
    expect(families.families.get('rvs_webhook_deliveries_total')!.type).toBe('COUNTER');
    // No failure of any kind in a run that went well.
    expect(families.families.get('rvs_activity_failures_total')?.metrics ?? []).toEqual([]);
    expectConventions(families, ['rvs_', 'process_', 'nodejs_', 'temporal_']);
    // The API's families are the API process's, not the worker's.
    for (const name of API_FAMILIES) expect(families.families.has(name), name).toBe(false);

    // The Temporal SDK's own worker metrics, from its runtime's Prometheus exporter, in the same
    // scrape: task slots, schedule-to-start latency (seconds), polls and their failures.
    expect(families.families.get('temporal_worker_task_slots_available')?.type).toBe('GAUGE');
    // Workflow tasks have fixed slots; the activity slots follow the event loop (a custom slot
    // supplier, src/runtime/event-loop-slots.ts), for which the SDK reports no slots available.
    expect(sample(families, 'temporal_worker_task_slots_available', { worker_type: 'WorkflowWorker', task_queue: stack.taskQueue })).toBeDefined();
    expect(families.families.get('temporal_workflow_task_schedule_to_start_latency_seconds')?.type).toBe('HISTOGRAM');
    expect(families.families.get('temporal_activity_schedule_to_start_latency_seconds')?.type).toBe('HISTOGRAM');
    expect(families.families.get('temporal_long_request_total')?.type).toBe('COUNTER');
    expect(families.families.get('temporal_num_pollers')?.type).toBe('GAUGE');
  });

  it("a user's cancel counts as outcome cancelled, not as a failure", async () => {
    const { auth } = await stack.newTenant();
    const slow = await startFakeNode(answers.delay(200));
    try {
      const { suiteId } = await createSuite(stack.app, auth, { candidates: [slow.url], config: { workload: { requests_per_target: 2_000, concurrency: 1, warmup_requests: 0 } } });
      const run = await post<{ id: string }>(stack.app, `/v1/suites/${suiteId}/runs`, auth);
      await until(() => slow.requests.length >= 3, 60_000, 'probing under way');
      expect((await post(stack.app, `/v1/runs/${run.body.id}/cancel`, auth)).status).toBe(202);
      expect((await waitForRun(stack.app, auth, run.body.id)).status).toBe('cancelled');

      const families = await scrape(port);
      expect(valueOf(sample(families, 'rvs_activity_failures_total', { activity: 'probeChunk', outcome: 'cancelled' }))).toBeGreaterThanOrEqual(1);
      const failed = families.families.get('rvs_activity_failures_total')!.metrics.filter((m) => m.labels?.outcome !== 'cancelled');
      expect(failed).toEqual([]);
    } finally {
      await slow.close();
    }
  });

  it("poll failures show up as the SDK's temporal_long_request_failure_total", async () => {
    // Cut every connection of the worker to Temporal: its long polls in flight fail, then it reconnects.
    proxy.dropAll();
    await until(async () => (await scrape(port)).families.get('temporal_long_request_failure_total')?.type === 'COUNTER', 30_000, 'a counted poll failure');
    const families = await scrape(port);
    const failures = families.families.get('temporal_long_request_failure_total')!.metrics;
    expect(failures.some((m) => String(m.labels?.operation).startsWith('Poll'))).toBe(true);
  });

  // After the tests above, so the run, the cancel and the poll failures have made every family
  // appear (the SDK's failure counters exist from their first failure on).
  it('every metric the shipped Grafana dashboard and Prometheus rules query is in a scrape of the worker or the API', async () => {
    const api = await startMetricsServer({ registry: apiMetricsRegistry(), host: '127.0.0.1', port: 0, collect: createRunCountsCollector(stack.sql) });
    try {
      const exported = new Set([...(await scrape(port)).families.keys(), ...(await scrape(api.port)).families.keys()]);
      // `up` is Prometheus's own; names with a colon are recording rules (checked in test/unit/monitoring-assets.test.ts).
      const used = new Set(shippedExpressions().flatMap(metricNamesOf).filter((n) => n !== 'up' && !n.includes(':')));
      expect(used.size).toBeGreaterThan(15);
      expect([...used].filter((name) => !exported.has(name))).toEqual([]);
    } finally {
      await api.close();
    }
  });
});
