import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runStatsSchema } from '../../src/domain/run-stats';
import { createSuite, get, post, waitForRun } from '../helpers/api';
import { answers, startFakeNode, type FakeNode } from '../helpers/json-rpc-node';
import { startStack, type Stack } from '../helpers/stack';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describe('a run, end to end through HTTP, Temporal and Postgres', () => {
  let stack: Stack;
  let node: FakeNode;
  beforeAll(async () => {
    stack = await startStack();
    node = await startFakeNode(answers.ok('0x1234'));
  });
  afterAll(async () => {
    await node.close();
    await stack.close();
  });

  it('creates chain, endpoint and suite, runs it to success, and gives a passing verdict', async () => {
    const { auth } = await stack.newTenant();
    const setup = await createSuite(stack.app, auth, { candidates: [`${node.url}/`] });

    const created = await post<Record<string, any>>(stack.app, `/v1/suites/${setup.suiteId}/runs`, auth, { metadata: { commit: 'abc123' } });
    expect(created.status).toBe(201);
    expect(created.headers.location).toBe(`/v1/runs/${created.body.id}`);
    expect(created.body).toMatchObject({ test_suite_id: setup.suiteId, triggered_by: 'api', status: 'queued', retry_count: 0 });

    const run = await waitForRun(stack.app, auth, created.body.id);
    expect(run.status).toBe('success');
    for (const field of ['requested_at', 'claimed_at', 'started_at', 'finished_at']) expect(run[field]).toMatch(ISO);
    expect(new Date(run.claimed_at) <= new Date(run.started_at)).toBe(true);
    expect(new Date(run.started_at) <= new Date(run.finished_at)).toBe(true);
    expect(run).toMatchObject({
      id: expect.stringMatching(UUID),
      failure_reason: null,
      baseline_run_id: null,
      acknowledged_count: 0,
      metadata: { commit: 'abc123' },
      retry_history: [],
      suite: { id: setup.suiteId, name: 'suite under test' },
      chain: { id: setup.chainId, name: 'Local', explorer_url: null },
    });
    expect(run.config_snapshot.workload.requests_per_target).toBe(50);

    // The spec's invariants, on exactly the planned number of calls (warm-up excluded).
    const { stats } = run;
    expect(stats.calls).toEqual({ total: 50, successful: 50, failed: 0 });
    expect(stats.latency.successful.sample_count).toBe(stats.calls.successful);
    expect(stats.latency.all.sample_count).toBe(stats.calls.total);
    expect(stats.tests).toEqual({ successful: 1, failed: 0 });
    const s = stats.latency.successful;
    expect(s.p50_ms <= s.p95_ms && s.p95_ms <= s.p99_ms).toBe(true);
    expect(node.requests.length).toBe(52); // 50 measured + 2 warm-up

    expect(run.targets).toEqual([
      {
        id: expect.stringMatching(UUID),
        endpoint_id: setup.endpointIds[0],
        endpoint_name: 'candidate 0',
        role: 'primary',
        order_index: 0,
        status: 'success',
        metadata: { stats: expect.objectContaining({ calls: { total: 50, successful: 50, failed: 0 } }) },
        endpoint_url: `${node.url}/`,
        ephemeral: false,
      },
    ]);
    // A target's stats have exactly the run's shape (strict: no field missing, none extra).
    expect(runStatsSchema.parse(stats)).toEqual(stats);
    expect(runStatsSchema.parse(run.targets[0].metadata.stats)).toEqual(run.targets[0].metadata.stats);
    expect(run.targets[0].metadata.stats.tests).toEqual({ successful: 1, failed: 0 });
    expect(run.targets[0].metadata.stats.latency).toEqual(stats.latency);

    const verdict = await get<Record<string, any>>(stack.app, `/v1/runs/${run.id}/verdict`, auth);
    expect(verdict.status).toBe(200);
    expect(verdict.body).toMatchObject({
      verdict: 'pass',
      exit_code: 0,
      reference_comparison: null,
      baseline_comparison: null,
      thresholds: { latency_p95_max_ms: 500, correctness_enabled: false },
    });
    expect(verdict.body.checks).toEqual([
      {
        name: 'latency_p95',
        status: 'pass',
        message: expect.any(String),
        details: {
          p95: s.p95_ms,
          threshold: 500,
          p95_us: expect.any(Number),
          intervals_ms: { p50: expect.any(Object), p95: expect.any(Object), p99: expect.any(Object) },
          targets: [{ endpoint_id: setup.endpointIds[0], endpoint_name: 'candidate 0', successful: 50, intervals_ms: expect.any(Object) }],
        },
      },
      // 50 successful calls cannot show 99 %: inconclusive, which does not fail the verdict.
      {
        name: 'availability',
        status: 'inconclusive',
        message: expect.stringContaining('50 of 50 calls succeeded'),
        details: expect.objectContaining({ calls: 50, successful: 50, min_pct: 99, reason: 'straddles_minimum', answered_bucket_share: 1 }),
      },
    ]);
    expect(Math.round(verdict.body.checks[0].details.p95_us / 1000)).toBe(s.p95_ms);
    expect(verdict.body.dashboard_url).toMatch(new RegExp(`^http://rvs\\.test/dashboard/runs/${run.id}\\?token=`));
    expect(verdict.body.markdown_summary).toContain('PASS');

    // The workflow is visible in Temporal under the documented id.
    // It completes just after the run row is final (it enqueues the run's webhooks last).
    const handle = stack.client.workflow.getHandle(`run-${run.id}`);
    await handle.result();
    const description = await handle.describe();
    expect(description.status.name).toBe('COMPLETED');
  });

  it('counts calls of an endpoint that fails every call as failed, and the verdict fails', async () => {
    const failing = await startFakeNode(answers.rpcError(-32005));
    try {
      const { auth } = await stack.newTenant();
      const setup = await createSuite(stack.app, auth, { candidates: [failing.url] });
      const created = await post<{ id: string }>(stack.app, `/v1/suites/${setup.suiteId}/runs`, auth);
      const run = await waitForRun(stack.app, auth, created.body.id);
      expect(run.status).toBe('success');
      expect(run.stats.calls).toEqual({ total: 50, successful: 0, failed: 50 });
      expect(run.stats.latency.successful.sample_count).toBe(0);
      expect(run.stats.latency.all.sample_count).toBe(50);
      const verdict = await get<Record<string, any>>(stack.app, `/v1/runs/${run.id}/verdict`, auth);
      expect(verdict.body).toMatchObject({ verdict: 'fail', exit_code: 1 });
      expect(verdict.body.checks[0]).toMatchObject({ name: 'latency_p95', status: 'fail' });
      expect(verdict.body.checks.find((c: { name: string }) => c.name === 'availability')).toMatchObject({
        status: 'fail',
        details: { calls: 50, successful: 0, success_rate_pct: 0, answered_bucket_share: 0, reason: 'below_minimum' },
      });
    } finally {
      await failing.close();
    }
  });

  it('compares against a reference endpoint and the previous successful run of the suite', async () => {
    const reference = await startFakeNode(answers.ok('0x1234'));
    try {
      const { auth } = await stack.newTenant();
      const setup = await createSuite(stack.app, auth, { candidates: [node.url], reference: reference.url });
      const first = await post<{ id: string }>(stack.app, `/v1/suites/${setup.suiteId}/runs`, auth);
      await waitForRun(stack.app, auth, first.body.id);
      const second = await post<{ id: string }>(stack.app, `/v1/suites/${setup.suiteId}/runs`, auth);
      const run = await waitForRun(stack.app, auth, second.body.id);
      expect(run.status).toBe('success');
      expect(run.baseline_run_id).toBe(first.body.id);
      expect(run.targets.map((t: { role: string }) => t.role)).toEqual(['primary', 'reference']);
      // Run stats cover the candidates only.
      expect(run.stats.calls.total).toBe(50);

      const verdict = await get<Record<string, any>>(stack.app, `/v1/runs/${run.id}/verdict`, auth);
      expect(verdict.body.checks.map((c: { name: string }) => c.name)).toEqual(['latency_p95', 'latency_vs_reference', 'latency_vs_baseline', 'availability']);
      expect(verdict.body.reference_comparison).toMatchObject({
        endpoint_id: setup.referenceId,
        endpoint_name: 'reference',
        // Both fake nodes answer eth_blockNumber with the same head.
        head_lag_blocks: 0,
        latency: {
          by_method: [
            {
              method: 'eth_blockNumber',
              calls: 50,
              failed: 0,
              candidate_p95_ms: expect.any(Number),
              reference_p95_ms: expect.any(Number),
              vs_reference_pct: expect.any(Number),
            },
          ],
          vs_reference_pct: expect.any(Number),
        },
      });
      // One passing run in the history: the previous run's calls are the baseline, and it says so.
      expect(verdict.body.baseline_comparison).toMatchObject({ run_id: first.body.id, model: 'previous_run', run_ids: [first.body.id] });
      expect(verdict.body.baseline_comparison.message).toContain('only 1 passing run in the history (min_runs 5)');
      expect(verdict.body.checks.find((c: { name: string }) => c.name === 'availability').details.reference).toMatchObject({ calls: 50, successful: 50 });
    } finally {
      await reference.close();
    }
  });

  it('reports each candidate of a two-candidate suite with its own percentile intervals', async () => {
    const slow = await startFakeNode(answers.delay(30, answers.ok('0x1234')));
    try {
      const { auth } = await stack.newTenant();
      const setup = await createSuite(stack.app, auth, { candidates: [node.url, slow.url] });
      const created = await post<{ id: string }>(stack.app, `/v1/suites/${setup.suiteId}/runs`, auth);
      const run = await waitForRun(stack.app, auth, created.body.id);
      expect(run.status).toBe('success');
      const verdict = await get<Record<string, any>>(stack.app, `/v1/runs/${run.id}/verdict`, auth);
      const targets = verdict.body.checks[0].details.targets;
      expect(targets.map((t: any) => [t.endpoint_id, t.endpoint_name, t.successful])).toEqual([
        [setup.endpointIds[0], 'candidate 0', 50],
        [setup.endpointIds[1], 'candidate 1', 50],
      ]);
      // The slow candidate's whole p95 interval lies above the fast one's (30 ms of delay against none).
      expect(targets[1].intervals_ms.p95.lower).toBeGreaterThan(targets[0].intervals_ms.p95.point);
      expect(targets[1].intervals_ms.p95.lower).toBeGreaterThanOrEqual(30);
      expect(verdict.body.markdown_summary).toContain('| candidate (candidate 1) | 50 | 0 | ');
    } finally {
      await slow.close();
    }
  });

  it('answers 409 run_not_finished for the verdict of a run that is still going', async () => {
    const slow = await startFakeNode(answers.delay(100));
    try {
      const { auth } = await stack.newTenant();
      const setup = await createSuite(stack.app, auth, { candidates: [slow.url], config: { workload: { requests_per_target: 40, concurrency: 1, warmup_requests: 0 } } });
      const created = await post<{ id: string }>(stack.app, `/v1/suites/${setup.suiteId}/runs`, auth);
      const early = await get<Record<string, any>>(stack.app, `/v1/runs/${created.body.id}/verdict`, auth);
      expect(early.status).toBe(409);
      expect(early.body.error).toMatchObject({ code: 'run_not_finished', details: [] });
      const run = await waitForRun(stack.app, auth, created.body.id);
      expect(run.status).toBe('success');
    } finally {
      await slow.close();
    }
  });

  it('applies per-run threshold overrides on top of the suite, changing only the fields given', async () => {
    const { auth } = await stack.newTenant();
    const setup = await createSuite(stack.app, auth, {
      candidates: [node.url],
      config: { thresholds: { latency_vs_reference_max_pct: 1000, correctness_min_pct: 95 } },
    });
    const created = await post<Record<string, any>>(stack.app, `/v1/suites/${setup.suiteId}/runs`, auth, {
      thresholds: { latency_p95_max_ms: 0 },
    });
    expect(created.body.config_snapshot.thresholds).toEqual({
      latency_p95_max_ms: 0,
      latency_regression_max_pct: 20,
      latency_vs_reference_max_pct: 1000,
      correctness_min_pct: 95,
      correctness_enabled: false,
      fail_on_inconclusive: false,
      success_rate_min_pct: 99,
      latency_regression_min_ms: 5,
    });
    await waitForRun(stack.app, auth, created.body.id);
    const verdict = await get<Record<string, any>>(stack.app, `/v1/runs/${created.body.id}/verdict`, auth);
    expect(verdict.body.thresholds.latency_vs_reference_max_pct).toBe(1000);
    expect(verdict.body).toMatchObject({ verdict: 'fail', exit_code: 1 });
  });
});
