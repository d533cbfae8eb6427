import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { chromium } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { VANTAGE_HEADER } from '../../activities/endpoint-client';
import { workflowIdForRun } from '../../src/temporal/constants';
import { createSuite, get, post, waitForRun } from '../helpers/api';
import { answers, startFakeNode, type Behaviour, type FakeNode } from '../helpers/json-rpc-node';
import { startStack, type Stack } from '../helpers/stack';
import { isRunning, killHard, startWorkerProcess, until } from '../helpers/worker-process';

/*
 * Two vantage points on one machine: two real worker processes (src/worker.ts), one with
 * RVS_REGION=a and one with RVS_REGION=b, both on the test's main queue and each on its region's
 * probe queue. Region b is "far away" through a delay the test owns: the fake node holds every
 * request that says it comes from b (the x-rvs-vantage header each vantage point sends) 40 ms
 * before answering. So the difference is made at the far side, applies only to b's calls, and the
 * probing, routing and per-region statistics under test are the real ones.
 */

const FAR_MS = 40;
/** A delay the test owns: region b's calls wait FAR_MS at the node, everyone else's are answered at once. */
const fartherFrom = (region: string, ms: number): Behaviour => {
  const near = answers.ok();
  const far = answers.delay(ms);
  return (req, res) => (req.headers?.[VANTAGE_HEADER] === region ? far(req, res) : near(req, res));
};

interface RegionVerdict {
  region: string;
  status: string;
  message: string;
  calls: { total: number; successful: number; failed: number };
  latency: { p50_ms: number; p95_ms: number };
  checks: { name: string; status: string }[];
  unavailable_endpoints?: string[];
}

describe('vantage points: a worker per region, each on its own probe queue', () => {
  let stack: Stack;
  let node: FakeNode;
  const workers: ChildProcess[] = [];
  // Region names unique to this run: the dev server's task queues outlive a test run.
  const suffix = randomBytes(3).toString('hex');
  const a = `a-${suffix}`;
  const b = `b-${suffix}`;
  const startRegion = (region: string) => {
    const worker = startWorkerProcess({ taskQueue: stack.taskQueue, secretKey: stack.config.secretKey!, env: { RVS_REGION: region } });
    workers.push(worker);
    return worker;
  };

  beforeAll(async () => {
    stack = await startStack({ worker: false });
    node = await startFakeNode(fartherFrom(b, FAR_MS));
  });
  afterEach(async () => {
    for (const worker of workers) if (isRunning(worker)) await killHard(worker);
  });
  afterAll(async () => {
    await node.close();
    await stack.close();
  });

  it('probes every target from each region, keeps samples and stats per region, and shows b 40 ms farther', { timeout: 120_000 }, async () => {
    const planned = 200;
    startRegion(a);
    startRegion(b);
    const { auth } = await stack.newTenant();
    const setup = await createSuite(stack.app, auth, {
      candidates: [node.url],
      config: {
        workload: { requests_per_target: planned, concurrency: 2, warmup_requests: 2, timeout_ms: 2_000 },
        thresholds: { latency_p95_max_ms: 1_000 },
        vantage_points: [a, b],
        vantage_start_timeout_s: 30,
      },
    });
    const created = await post<{ id: string }>(stack.app, `/v1/suites/${setup.suiteId}/runs`, auth);
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const run = await waitForRun(stack.app, auth, created.body.id, 90_000);
    expect(run.status, run.failure_reason ?? '').toBe('success');

    // Every seq once per region, each sample tagged with the region that sent it.
    const counts = await stack.sql<{ region: string; n: number; distinct_seq: number }[]>`
      select region, count(*)::int as n, count(distinct seq)::int as distinct_seq
      from run_samples where run_id = ${run.id} group by region order by region`;
    expect(counts).toEqual([
      { region: a, n: planned, distinct_seq: planned },
      { region: b, n: planned, distinct_seq: planned },
    ]);
    // The samples API says where each call came from and filters by region.
    const fromRegion = await get<{ data: { region: string }[]; pagination: { total: number } }>(
      stack.app,
      `/v1/runs/${run.id}/samples?region=${b}&limit=5`,
      auth,
    );
    expect(fromRegion.status).toBe(200);
    expect(fromRegion.body.pagination.total).toBe(planned);
    expect(new Set(fromRegion.body.data.map((sample) => sample.region))).toEqual(new Set([b]));
    expect((await get(stack.app, `/v1/runs/${run.id}/samples?region=B%20C`, auth)).status).toBe(400);
    // The run's stats pool both regions.
    expect(run.stats.calls.total).toBe(2 * planned);
    // Each region's calls reached the node from its own worker, saying where they came from.
    const from = (region: string) => node.requests.filter((r) => r.headers[VANTAGE_HEADER] === region).length;
    expect(from(a)).toBeGreaterThanOrEqual(planned);
    expect(from(b)).toBeGreaterThanOrEqual(planned);

    const verdict = await get<{ verdict: string; regions: RegionVerdict[]; markdown_summary: string; summary: string }>(
      stack.app,
      `/v1/runs/${run.id}/verdict`,
      auth,
    );
    expect(verdict.status).toBe(200);
    const byRegion = Object.fromEntries(verdict.body.regions.map((r) => [r.region, r]));
    expect(Object.keys(byRegion)).toEqual([a, b]);
    for (const region of [a, b]) {
      expect(byRegion[region]!.status, byRegion[region]!.message).toBe('pass');
      expect(byRegion[region]!.calls).toEqual({ total: planned, successful: planned, failed: 0 });
      expect(byRegion[region]!.checks.map((c) => c.name)).toEqual(['latency_p95', 'availability']);
    }
    // b's calls waited 40 ms at the node, a's did not: b's median is at least the delay above a's
    // (a lower bound the delay guarantees; how far above depends on the machine's load).
    expect(byRegion[b]!.latency.p50_ms).toBeGreaterThanOrEqual(FAR_MS);
    expect(byRegion[b]!.latency.p50_ms - byRegion[a]!.latency.p50_ms).toBeGreaterThanOrEqual(FAR_MS - 5);
    expect(verdict.body.verdict).toBe('pass');
    expect(verdict.body.markdown_summary).toContain('| Region | Status | Calls | Failed | p95 | latency_p95 | availability |');
    expect(verdict.body.markdown_summary).toContain(`| ${b} | ✅ pass | ${planned} | 0 | ${byRegion[b]!.latency.p95_ms} ms | ✅ pass |`);

    // The dashboard's run page shows the region × check table (Debian's chromium, as dashboard-browser.test.ts).
    await stack.app.listen({ host: '127.0.0.1', port: 0 });
    const origin = `http://127.0.0.1:${(stack.app.server.address() as AddressInfo).port}`;
    const link = new URL(run.dashboard_url as string);
    const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu', '--no-first-run'] });
    try {
      const page = await browser.newPage();
      await page.goto(`${origin}${link.pathname}${link.search}`);
      await page.waitForSelector('#app[data-state="loaded"]');
      expect(await page.isVisible('#regions-section')).toBe(true);
      const rows = await page.$$eval('#regions-table tbody tr', (trs) =>
        trs.map((tr) => [tr.getAttribute('data-region'), tr.getAttribute('data-status'), tr.querySelector('[data-check="latency_p95"] [data-status]')?.getAttribute('data-status')]),
      );
      expect(rows).toEqual([
        [a, 'pass', 'pass'],
        [b, 'pass', 'pass'],
      ]);
    } finally {
      await browser.close();
    }

    // The Temporal UI can filter runs by region.
    await until(async () => {
      const found: string[] = [];
      for await (const w of stack.client.workflow.list({ query: `RvsRegions = '${b}'` })) found.push(w.workflowId);
      return found.includes(workflowIdForRun(run.id));
    }, 30_000, 'the run listed under its region');
  });

  it('pairs a candidate\'s call with the reference\'s call of the same seq from the same region', { timeout: 120_000 }, async () => {
    const planned = 60;
    startRegion(a);
    startRegion(b);
    const referenceNode = await startFakeNode(fartherFrom(b, FAR_MS));
    try {
      const { auth } = await stack.newTenant();
      const setup = await createSuite(stack.app, auth, {
        candidates: [node.url],
        reference: referenceNode.url,
        config: {
          // Open loop with a reference: both sides share one schedule, so each seq is a pair.
          workload: { requests_per_target: planned, rate_per_second: 60, concurrency: 8, warmup_requests: 0, timeout_ms: 2_000 },
          thresholds: { latency_p95_max_ms: 1_000, correctness_enabled: true },
          vantage_points: [a, b],
          vantage_start_timeout_s: 30,
        },
      });
      const created = await post<{ id: string }>(stack.app, `/v1/suites/${setup.suiteId}/runs`, auth);
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      const run = await waitForRun(stack.app, auth, created.body.id, 90_000);
      expect(run.status, run.failure_reason ?? '').toBe('success');
      const verdict = await get<{
        regions: RegionVerdict[];
        reference_comparison: { pairing: { method: string; pairs: number } };
        checks: { name: string; details: { compared?: number } }[];
      }>(stack.app, `/v1/runs/${run.id}/verdict`, auth);
      // One pair per seq and region: never a's candidate call against b's reference call.
      expect(verdict.body.reference_comparison.pairing).toMatchObject({ method: 'paired', pairs: 2 * planned });
      expect(verdict.body.checks.find((c) => c.name === 'correctness')!.details.compared).toBe(2 * planned);
      // Each region compares its candidate with its own reference: both 40 ms farther from b, so neither drifts.
      for (const region of verdict.body.regions) {
        expect(region.checks.map((c) => c.name)).toEqual(['latency_p95', 'latency_vs_reference', 'availability']);
      }
    } finally {
      await referenceNode.close();
    }
  });

  it('region b\'s worker stopped mid-run: b ends as vantage_unavailable within its timeout, a completes, the run passes', { timeout: 150_000 }, async () => {
    const planned = 1_500;
    startRegion(a);
    const workerB = startRegion(b);
    const { auth } = await stack.newTenant();
    const setup = await createSuite(stack.app, auth, {
      candidates: [node.url],
      config: {
        // b's calls take 40 ms at concurrency 1: about a minute to plan's end, so it is stopped midway.
        workload: { requests_per_target: planned, concurrency: 1, warmup_requests: 0, timeout_ms: 2_000 },
        thresholds: { latency_p95_max_ms: 1_000 },
        vantage_points: [a, b],
        vantage_start_timeout_s: 3,
      },
    });
    const created = await post<{ id: string }>(stack.app, `/v1/suites/${setup.suiteId}/runs`, auth);
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const runId = created.body.id;
    const fromB = () => node.requests.filter((r) => r.headers[VANTAGE_HEADER] === b).length;
    const before = fromB();
    await until(() => fromB() - before >= 100, 60_000, 'region b probing');
    await killHard(workerB);

    const run = await waitForRun(stack.app, auth, runId, 120_000);
    expect(run.status, run.failure_reason ?? '').toBe('success');
    const [unavailable] = await stack.sql<{ region: string; outcome: string }[]>`
      select region, outcome from run_vantage_outcomes where run_id = ${runId}`;
    expect(unavailable).toEqual({ region: b, outcome: 'vantage_unavailable' });

    const verdict = await get<{ verdict: string; exit_code: number; regions: RegionVerdict[]; summary: string }>(stack.app, `/v1/runs/${runId}/verdict`, auth);
    expect(verdict.body.verdict).toBe('pass');
    expect(verdict.body.exit_code).toBe(0);
    const [ra, rb] = verdict.body.regions;
    expect(ra).toMatchObject({ region: a, status: 'pass', calls: { total: planned, successful: planned, failed: 0 } });
    expect(rb).toMatchObject({ region: b, status: 'vantage_unavailable', checks: [], unavailable_endpoints: ['candidate 0'] });
    // What b committed before its worker stopped (batches commit about every second) is kept and shown, never judged.
    expect(rb!.calls.total).toBeGreaterThan(0);
    expect(rb!.calls.total).toBeLessThan(planned);
    expect(verdict.body.summary).toContain(`Vantage unavailable (not judged): ${b}.`);

    // It ended by the region's schedule-to-start timeout (no worker of b took the retried chunk),
    // not by the heartbeat timeout that noticed the worker gone.
    const history = await stack.client.workflow.getHandle(workflowIdForRun(runId)).fetchHistory();
    const timedOut = (history.events ?? []).flatMap((e) => (e.activityTaskTimedOutEventAttributes ? [e.activityTaskTimedOutEventAttributes] : []));
    expect(timedOut.map((t) => t.failure?.timeoutFailureInfo?.timeoutType)).toEqual([2]); // TIMEOUT_TYPE_SCHEDULE_TO_START
  });
});
