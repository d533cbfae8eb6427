import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sweepPlan } from '../../src/domain/sweep';
import { createSuite, get, post, waitForRun } from '../helpers/api';
import { startCapacityNode, type CapacityNode } from '../helpers/capacity-node';
import { answers, startFakeNode, type FakeNode } from '../helpers/json-rpc-node';
import { startStack, type Stack } from '../helpers/stack';

interface Step {
  step: number;
  offered_rps: number;
  achieved_rps: number | null;
  calls: number;
  successful: number;
  rate_limited: number;
  errors: Record<string, number>;
  status: string;
  reason: string;
  clearly_broken: boolean;
  prober_behind: boolean;
  latency_ms: { p95: { point: number; lower: number; upper: number | null } } | null;
  send_lag_p99_ms: number | null;
}
interface Verdict {
  verdict: string;
  checks: { name: string; status: string; details: Record<string, unknown> }[];
  capacity?: {
    status: string;
    min_rps: number;
    rates: number[];
    steps_probed: number;
    endpoints: { endpoint_name: string; role: string; status: string; reason: string; knee_rps: number | null; knee_step: number | null; steps: Step[] }[];
  };
  markdown_summary: string;
}

describe('a capacity sweep against a node whose capacity is known', () => {
  let stack: Stack;
  let candidate: CapacityNode;
  let reference: FakeNode;
  beforeAll(async () => {
    stack = await startStack();
    // Capacity 300 calls/s: 50, 100 and 200 hold; 400 is refused a quarter of the time once the burst is spent.
    // The burst (half a second) absorbs the bunching a busy test process causes at lower rates.
    // Both answer in about 500 ms, so the prober's own send lag on a busy test machine (tens of ms)
    // stays a small part of the latency (a step whose lag is not is prober_behind, not within).
    candidate = await startCapacityNode({ ratePerSecond: 300, burst: 150, baseMs: 500 });
    reference = await startFakeNode(answers.delay(500));
  });
  afterAll(async () => {
    await candidate.close();
    await reference.close();
    await stack.close();
  });

  it('finds the knee within one step, stops early, sweeps the reference alike and stores every sample with its step', { timeout: 120_000 }, async () => {
    const { auth } = await stack.newTenant();
    const sweep = { rates: [50, 100, 200, 400, 800], step_s: 2, warmup_s: 1 };
    const setup = await createSuite(stack.app, auth, {
      candidates: [candidate.url],
      reference: reference.url,
      config: {
        workload: { sweep, concurrency: 4, warmup_requests: 0, timeout_ms: 2_000 },
        // A generous latency budget: on a shared machine the knee is the 429s', not a scheduler's hiccup.
        // The knee here is the node's 429s: the prober's own lag (judged in test/unit/sweep.test.ts and
        // sweep-shards.test.ts) may be anything a test machine at load average 20 does to it.
        thresholds: { latency_p95_max_ms: 1_000, success_rate_min_pct: 99, capacity_min_rps: 150, sweep_send_lag_max_pct: 10_000 },
      },
    });
    const created = await post<{ id: string }>(stack.app, `/v1/suites/${setup.suiteId}/runs`, auth);
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const run = await waitForRun(stack.app, auth, created.body.id, 90_000);
    expect(run.status, run.failure_reason).toBe('success');

    const verdict = (await get<Verdict>(stack.app, `/v1/runs/${run.id}/verdict`, auth)).body;
    const capacity = verdict.capacity!;
    // Progress counts warm-up calls on both sides: planned has every step's, done the ones of the
    // steps sent (issue 32: the done once left them out, 83 % for a finished sweep). The list says the same.
    const planned = sweepPlan({ rates: sweep.rates, step_s: sweep.step_s, warmup_s: sweep.warmup_s });
    const sentPerTarget = planned.steps.slice(0, capacity.steps_probed).reduce((sum, s) => sum + (s.toSeq - s.fromSeq), 0);
    expect(run.progress).toEqual({ calls_planned: planned.callsPerTarget * run.targets.length, calls_done: sentPerTarget * run.targets.length });
    const listed = await get<{ data: { id: string; progress: unknown }[] }>(stack.app, `/v1/runs?suite_id=${setup.suiteId}`, auth);
    expect(listed.body.data.find((r) => r.id === run.id)!.progress).toEqual(run.progress);
    const [cand, ref] = capacity.endpoints;
    expect(cand!.role).toBe('primary');
    expect(ref!.role).toBe('reference');
    // The knee is the highest step below the node's 300 calls/s.
    expect(cand!.knee_rps).toBe(200);
    const broken = cand!.steps.find((s) => s.offered_rps === 400)!;
    // The 429s are the endpoint's answer whatever the prober's own lag was on this busy machine.
    expect(broken).toMatchObject({ status: 'broken', reason: 'success_rate_below_min', clearly_broken: true });
    expect(broken.rate_limited).toBeGreaterThan(0);
    expect(broken.errors.http_429).toBe(broken.rate_limited);
    // Stopped after 400: 800 was never offered, to either side.
    expect(capacity.steps_probed).toBe(4);
    expect(cand!.steps.map((s) => s.offered_rps)).toEqual([50, 100, 200, 400]);
    expect(ref!.steps.map((s) => s.offered_rps)).toEqual([50, 100, 200, 400]);
    expect(ref!.steps.every((s) => s.status === 'within')).toBe(true);
    for (const s of cand!.steps.slice(0, 3)) expect(s, JSON.stringify(s)).toMatchObject({ status: 'within', rate_limited: 0 });
    // The capacity check: knee 200 ≥ min 150; latency_p95 and availability are judged per step instead.
    const check = verdict.checks.find((c) => c.name === 'capacity')!;
    expect(check).toMatchObject({ status: 'pass', details: { min_rps: 150, knee_rps: 200 } });
    expect(verdict.checks.map((c) => c.name)).not.toContain('latency_p95');
    expect(verdict.markdown_summary).toContain('| Offered rps |');
    expect(verdict.markdown_summary).toContain('← knee');

    // Every probed seq is stored once, with its step and warm-up flag as planned.
    const plan = sweepPlan({ rates: sweep.rates, step_s: sweep.step_s, warmup_s: sweep.warmup_s });
    for (const target of run.targets as { id: string }[]) {
      const rows = await stack.sql<{ step: number; n: number; distinct_seq: number; min_seq: number; max_seq: number; warmup: number }[]>`
        select sweep_step::int as step, count(*)::int as n, count(distinct seq)::int as distinct_seq, min(seq)::int as min_seq,
          max(seq)::int as max_seq, (count(*) filter (where warmup))::int as warmup
        from run_samples where run_id = ${run.id} and target_id = ${target.id} group by sweep_step order by sweep_step`;
      expect(rows).toEqual(
        plan.steps.slice(0, 4).map((s) => ({
          step: s.step,
          n: s.toSeq - s.fromSeq,
          distinct_seq: s.toSeq - s.fromSeq,
          min_seq: s.fromSeq,
          max_seq: s.toSeq - 1,
          warmup: s.warmupCalls,
        })),
      );
    }
    // The samples API says which step a sample belongs to, and that it was warm-up.
    const first = await get<{ data: Record<string, unknown>[] }>(stack.app, `/v1/runs/${run.id}/samples?limit=1&target_id=${run.targets[0].id}`, auth);
    expect(first.body.data[0]).toMatchObject({ seq: 0, sweep_step: 0, warmup: true });
    // Run stats leave warm-up out: the candidate's measured calls of the four steps.
    const measured = plan.steps.slice(0, 4).reduce((sum, s) => sum + (s.toSeq - s.fromSeq - s.warmupCalls), 0);
    expect(run.stats.calls.total).toBe(measured);
    // So does the per-method table; the time buckets show every call sent, warm-up included.
    const metrics = await get<{ by_method: { target_id: string; calls: number }[]; targets: { target_id: string; buckets: { calls: number }[] }[] }>(
      stack.app,
      `/v1/runs/${run.id}/metrics`,
      auth,
    );
    const candidateId = run.targets[0].id;
    expect(metrics.body.by_method.filter((m) => m.target_id === candidateId).reduce((sum, m) => sum + m.calls, 0)).toBe(measured);
    const sent = plan.steps.slice(0, 4).reduce((sum, s) => sum + (s.toSeq - s.fromSeq), 0);

    expect(metrics.body.targets.find((t) => t.target_id === candidateId)!.buckets.reduce((sum, b) => sum + b.calls, 0)).toBe(sent);
  });

  it('refuses a sweep beside a fixed rate, and a falling list of rates, with a 400 naming the field', async () => {
    const { auth } = await stack.newTenant();
    const setup = await createSuite(stack.app, auth, { candidates: [reference.url] });
    const [chain] = await stack.sql<{ chain_id: string }[]>`select chain_id from suites where id = ${setup.suiteId}`;
    for (const workload of [{ sweep: { rates: [50] }, rate_per_second: 10 }, { sweep: { rates: [100, 50] } }]) {
      const response = await post<{ error: { code: string; details: { field: string }[] } }>(stack.app, '/v1/suites', auth, {
        chain_id: chain!.chain_id,
        name: 'bad sweep',
        config: { targets: [{ endpoint_id: setup.endpointIds[0] }], workload },
      });
      expect(response.status).toBe(400);
      expect(response.body.error.code).toBe('validation_error');
      expect(response.body.error.details.map((d) => d.field).join(' ')).toMatch(/config\.workload\.sweep/);
    }
  });
});
