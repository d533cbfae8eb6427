import type { Client } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ProbeChunkInput } from '../../activities/types';
import { roundOutwards } from '../../src/domain/interval-display';
import { pairedRelativeDifference } from '../../src/domain/statistics/relative-difference';
import { workflowIdForRun } from '../../src/temporal/constants';
import { PAIRED_ANCHOR_LEAD_MS } from '../../workflows/run-workflow';
import { createSuite, get, post, runWithHistoryBudget, waitForRun } from '../helpers/api';
import { answers, startFakeNode, type FakeNode } from '../helpers/json-rpc-node';
import { startStack, type Stack } from '../helpers/stack';

// Paired probing (issue 11 item 4), through the real workflow, worker, Temporal and Postgres
// against two loopback nodes: in open loop the candidate and the reference share one schedule
// anchor, seq i is due on both at anchor + i / rate, and the verdict reports how well that held.

/** The probeChunk inputs one workflow execution scheduled, read from its Temporal history. */
async function probeChunkInputs(client: Client, workflowId: string, executionRunId?: string): Promise<ProbeChunkInput[]> {
  const history = await client.workflow.getHandle(workflowId, executionRunId).fetchHistory();
  return (history.events ?? [])
    .map((e) => e.activityTaskScheduledEventAttributes)
    .filter((a) => a?.activityType?.name === 'probeChunk')
    .map((a) => JSON.parse(Buffer.from(a!.input!.payloads![0]!.data!).toString('utf8')) as ProbeChunkInput);
}

interface PairRow {
  seq: number;
  c_started: Date;
  r_started: Date;
  c_lag: number | null;
  r_lag: number | null;
}

describe('paired probing', () => {
  let stack: Stack;
  let candidate: FakeNode;
  let reference: FakeNode;
  beforeAll(async () => {
    stack = await startStack();
    candidate = await startFakeNode(answers.delay(2));
    reference = await startFakeNode(answers.delay(2));
  });
  afterAll(async () => {
    await candidate?.close();
    await reference?.close();
    await stack?.close();
  });

  /**
   * Runs a suite of `workload` against both nodes with a history budget of 20 events (so the run
   * continues as new), its API on an idle stack that shares this stack's worker and key.
   */
  async function withContinuedRun(
    workload: Record<string, unknown>,
    check: (run: { idle: Stack; auth: Awaited<ReturnType<Stack['newTenant']>>['auth']; runId: string; workflowId: string; firstExecutionRunId: string }) => Promise<void>,
  ): Promise<void> {
    const idle = await startStack({ worker: false, env: { RVS_SECRET_KEY: stack.config.secretKey! } });
    try {
      const { auth } = await idle.newTenant();
      const setup = await createSuite(idle.app, auth, { candidates: [candidate.url], reference: reference.url, config: { workload } });
      await check({ idle, auth, ...(await runWithHistoryBudget(idle, stack, auth, setup.suiteId, 20)) });
    } finally {
      await idle.close();
    }
  }

  async function pairRows(runId: string): Promise<PairRow[]> {
    return stack.sql<PairRow[]>`
      select c.seq, c.started_at as c_started, r.started_at as r_started, c.send_lag_us as c_lag, r.send_lag_us as r_lag
      from run_samples c join run_samples r on r.run_id = c.run_id and r.seq = c.seq and r.role = 'reference'
      where c.run_id = ${runId} and c.role = 'primary' order by c.seq`;
  }

  it('open loop: one anchor for both targets, the same schedule per seq, skew reported and recomputable from the samples', { timeout: 90_000 }, async () => {
    const { auth } = await stack.newTenant();
    const setup = await createSuite(stack.app, auth, {
      candidates: [candidate.url],
      reference: reference.url,
      config: { workload: { requests_per_target: 150, rate_per_second: 50, concurrency: 4, warmup_requests: 2, timeout_ms: 2_000 } },
    });
    const created = await post<{ id: string }>(stack.app, `/v1/suites/${setup.suiteId}/runs`, auth);
    const run = await waitForRun(stack.app, auth, created.body.id, 60_000);
    expect(run.status).toBe('success');

    // The workflow chose one anchor and gave it to every chunk of both targets.
    const inputs = await probeChunkInputs(stack.client, workflowIdForRun(run.id));
    expect(new Set(inputs.map((i) => i.targetId)).size).toBe(2);
    const anchors = new Set(inputs.map((i) => i.scheduleAnchorMs));
    expect(anchors.size).toBe(1);
    const anchorMs = [...anchors][0]!;
    expect(anchorMs).toEqual(expect.any(Number));
    // Chosen ahead of the claim, so the first chunks had time to start and warm up.
    expect(anchorMs - new Date(run.claimed_at).getTime()).toBeGreaterThan(PAIRED_ANCHOR_LEAD_MS - 1_000);

    // Every seq was sent once on each side, and each send carries its lag behind the shared
    // schedule (how close to it the machine kept is a figure, not a property: the verdict's pairing
    // reports it; no bound on the clock here).
    const rows = await pairRows(run.id);
    expect(rows.map((r) => r.seq)).toEqual(Array.from({ length: 150 }, (_, i) => i));
    expect(rows.every((r) => r.c_lag !== null && r.r_lag !== null)).toBe(true);
    // Both sides' chunks were given the same schedule: one anchor, one rate, the same seqs.
    const bySide = (targetId: string) => inputs.filter((i) => i.targetId === targetId).map((i) => [i.fromSeq, i.scheduleAnchorMs]);
    const [first, second] = [...new Set(inputs.map((i) => i.targetId))];
    expect(bySide(first!)).toEqual(bySide(second!));

    const verdict = await get<Record<string, any>>(stack.app, `/v1/runs/${run.id}/verdict`, auth);
    expect(verdict.status).toBe(200);
    const pairing = verdict.body.reference_comparison.pairing;
    expect(pairing).toMatchObject({ method: 'paired', reason: null, pairs: 150, compared: 150 });
    expect(pairing.skew_p50_ms).toBeGreaterThanOrEqual(0);
    expect(pairing.skew_p50_ms).toBeLessThanOrEqual(pairing.skew_p95_ms);
    expect(pairing.skew_p95_ms).toBeLessThanOrEqual(pairing.skew_max_ms);
    // The reported skew is the send lags' difference, recomputed here from the samples.
    const skews = rows.map((r) => Math.abs(r.c_lag! - r.r_lag!)).sort((a, b) => a - b);
    expect(pairing.skew_max_ms).toBe(skews.at(-1)! / 1000);
    expect(pairing.skew_p95_ms).toBe(skews[Math.ceil(0.95 * skews.length) - 1]! / 1000);

    const check = verdict.body.checks.find((c: { name: string }) => c.name === 'latency_vs_reference');
    expect(check.details).toMatchObject({ method: 'paired', pairing });
    expect(check.message).toContain('paired over 150 seqs');
    // Computed in SQL at finalize (never loading the pairs), it is what the paired difference
    // gives on the full arrays.
    const both = await stack.sql<{ c: number; r: number }[]>`
      select c.latency_us as c, r.latency_us as r
      from run_samples c join run_samples r on r.run_id = c.run_id and r.seq = c.seq and r.role = 'reference'
      where c.run_id = ${run.id} and c.role = 'primary' and c.ok and r.ok order by c.seq`;
    const diff = pairedRelativeDifference(both.map((b) => b.c), both.map((b) => b.r));
    // Stored rounded outwards at one decimal, as every interval.
    expect(check.details.vs_reference_interval_pct).toEqual(roundOutwards(diff.lower_pct, diff.upper_pct === Infinity ? null : diff.upper_pct, 1));
    expect(pairing.correlation).toBe(Math.round(diff.correlation * 1000) / 1000);
    expect(verdict.body.reference_comparison.latency.method).toBe('paired');
  });

  it('closed loop: the comparison is unpaired and says so, and no send lag is recorded', { timeout: 90_000 }, async () => {
    const { auth } = await stack.newTenant();
    const setup = await createSuite(stack.app, auth, {
      candidates: [candidate.url],
      reference: reference.url,
      config: { workload: { requests_per_target: 60, concurrency: 4, warmup_requests: 0 } },
    });
    const created = await post<{ id: string }>(stack.app, `/v1/suites/${setup.suiteId}/runs`, auth);
    const run = await waitForRun(stack.app, auth, created.body.id, 60_000);
    expect(run.status).toBe('success');
    const inputs = await probeChunkInputs(stack.client, workflowIdForRun(run.id));
    expect(inputs.every((i) => i.scheduleAnchorMs === undefined)).toBe(true);
    const rows = await pairRows(run.id);
    expect(rows).toHaveLength(60);
    expect(rows.every((r) => r.c_lag === null && r.r_lag === null)).toBe(true);

    const verdict = await get<Record<string, any>>(stack.app, `/v1/runs/${run.id}/verdict`, auth);
    expect(verdict.body.reference_comparison.pairing).toEqual({
      method: 'unpaired',
      reason: 'closed_loop',
      pairs: null,
      compared: null,
      skew_p50_ms: null,
      skew_p95_ms: null,
      skew_max_ms: null,
      correlation: null,
    });
    const check = verdict.body.checks.find((c: { name: string }) => c.name === 'latency_vs_reference');
    expect(check.details.method).toBe('unpaired');
    expect(check.message).toContain('unpaired: closed loop');
    expect(verdict.body.markdown_summary).toContain('unpaired: closed loop');
  });

  it('keeps the anchor across continue-as-new: later chunks stay on the same schedule', { timeout: 120_000 }, async () => {
    // 5,200 calls at 1,000/s: a first chunk of 5,000 per target, then (after continue-as-new,
    // forced by a tiny history budget) a second of 200, due 5.0–5.2 s after the anchor.
    await withContinuedRun({ requests_per_target: 5_200, rate_per_second: 1_000, concurrency: 8, warmup_requests: 0, timeout_ms: 2_000 }, async ({ idle, auth, runId, workflowId, firstExecutionRunId }) => {
      const first = await probeChunkInputs(stack.client, workflowId, firstExecutionRunId);
      const latest = await stack.client.workflow.getHandle(workflowId).describe();
      expect(latest.runId).not.toBe(firstExecutionRunId);
      const second = await probeChunkInputs(stack.client, workflowId, latest.runId);
      expect(first.length).toBeGreaterThanOrEqual(2);
      expect(second.length).toBeGreaterThanOrEqual(2);
      expect(second.every((i) => i.fromSeq > 0)).toBe(true);
      const anchors = new Set([...first, ...second].map((i) => i.scheduleAnchorMs));
      expect(anchors.size).toBe(1);
      const anchorMs = [...anchors][0]!;

      const run = await waitForRun(idle.app, auth, runId);
      expect(run.status).toBe('success');
      const rows = await pairRows(runId);
      expect(rows).toHaveLength(5_200);
      // The second execution's chunks were given the first execution's anchor (above), and every
      // seq was sent once on each side across the two executions.
      expect(anchorMs).toEqual(expect.any(Number));
      expect(new Set(rows.map((r) => r.seq)).size).toBe(5_200);
      expect(rows.every((r) => r.c_lag !== null && r.r_lag !== null)).toBe(true);
      const verdict = await get<Record<string, any>>(idle.app, `/v1/runs/${runId}/verdict`, auth);
      expect(verdict.body.reference_comparison.pairing).toMatchObject({ method: 'paired', pairs: 5_200 });
    });
  });

  // A campaign bound by duration_s (not a call count) in open loop, carried over continue-as-new:
  // it ends on time, finalizes, and each target has every seq exactly once — the long-campaign
  // path of bench:soak, in under a minute.
  it('a duration-bound campaign ends on time across continue-as-new, finalizes, and records every seq once per target', { timeout: 150_000 }, async () => {
    await withContinuedRun({ requests_per_target: null, duration_s: 35, rate_per_second: 50, concurrency: 4, warmup_requests: 0, timeout_ms: 2_000 }, async ({ idle, auth, runId, workflowId, firstExecutionRunId }) => {
      const run = await waitForRun(idle.app, auth, runId);
      expect(run.status).toBe('success');
      expect((await stack.client.workflow.getHandle(workflowId).describe()).runId).not.toBe(firstExecutionRunId);
      const verdict = await get<{ verdict: string }>(idle.app, `/v1/runs/${runId}/verdict`, auth);
      expect(['pass', 'fail']).toContain(verdict.body.verdict);
      const targets = await stack.sql<{ role: string; n: number; distinct_seq: number; max_seq: number; last_sent: Date }[]>`
        select role, count(*)::int as n, count(distinct seq)::int as distinct_seq, max(seq)::int as max_seq, max(started_at) as last_sent
        from run_samples where run_id = ${runId} group by role order by role`;
      expect(targets.map((t) => t.role)).toEqual(['primary', 'reference']);
      // The campaign went on sending after the continue-as-new (it did not end with its first
      // execution) until the deadline; how many calls a loaded machine got out by then is printed,
      // not asserted (bench:soak measures the schedule).
      const firstExecution = await stack.client.workflow.getHandle(workflowId, firstExecutionRunId).describe();
      expect(firstExecution.closeTime).toBeInstanceOf(Date);
      process.stdout.write(`paired-probing: ${targets.map((t) => `${t.role} ${t.n}`).join(', ')} of 1,750 due in 35 s at 50/s\n`);
      for (const t of targets) {
        expect(t.last_sent.getTime()).toBeGreaterThan(firstExecution.closeTime!.getTime());
        // 35 s at 50/s: 1,750 due; none due past the deadline is sent.
        expect(t.n).toBeLessThanOrEqual(1_750);
        expect(t.distinct_seq).toBe(t.n);
        expect(t.max_seq + 1).toBe(t.n);
      }
    });
  });
});
