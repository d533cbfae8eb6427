import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sweepPlan } from '../../src/domain/sweep';
import { createSuite, get, post, waitForRun } from '../helpers/api';
import { answers, startFakeNode, type FakeNode } from '../helpers/json-rpc-node';
import { startStack, type Stack } from '../helpers/stack';
import { isRunning, killHard, startWorkerProcess, until } from '../helpers/worker-process';

describe('a worker killed in the middle of a sweep step', () => {
  let stack: Stack;
  let node: FakeNode;
  const workers: ChildProcess[] = [];
  beforeAll(async () => {
    stack = await startStack({ worker: false });
    // Answers in 500 ms: the prober's own send lag on a busy test machine (tens of ms) stays a small
    // part of the latency (a step whose lag is not is prober_behind, not within).
    node = await startFakeNode(answers.delay(500));
  });
  afterAll(async () => {
    for (const worker of workers) if (isRunning(worker)) await killHard(worker);
    await node.close();
    await stack.close();
  });

  it('resumes the step: every planned seq stored once, with its step, and the lost attempt on record', { timeout: 150_000 }, async () => {
    const sweep = { rates: [100, 200], step_s: 6, warmup_s: 1 };
    const plan = sweepPlan(sweep);
    const { auth } = await stack.newTenant();
    const setup = await createSuite(stack.app, auth, {
      candidates: [node.url],
      config: {
        workload: { sweep, concurrency: 2, warmup_requests: 0 },
        // The prober's stalls on a busy test machine (100 ms and more) may be a large part of the latency.
        thresholds: { latency_p95_max_ms: 2_000, sweep_send_lag_max_pct: 100 },
        retry: { max_attempts: 3, initial_interval_ms: 200 },
      },
    });
    workers.push(startWorkerProcess({ taskQueue: stack.taskQueue, secretKey: stack.config.secretKey! }));
    const created = await post<{ id: string }>(stack.app, `/v1/suites/${setup.suiteId}/runs`, auth);

    // Kill -9 in the middle of step 0 (700 calls): some batches committed, the rest in flight.
    await until(() => node.requests.length >= 400, 60_000, 'step 0 under way');
    await killHard(workers[0]!);
    expect(node.requests.length).toBeLessThan(plan.steps[0]!.toSeq);

    workers.push(startWorkerProcess({ taskQueue: stack.taskQueue, secretKey: stack.config.secretKey! }));
    const run = await waitForRun(stack.app, auth, created.body.id, 120_000);
    expect(run.status, run.failure_reason).toBe('success');

    const rows = await stack.sql<{ step: number; n: number; distinct_seq: number; min_seq: number; max_seq: number; warmup: number }[]>`
      select sweep_step::int as step, count(*)::int as n, count(distinct seq)::int as distinct_seq, min(seq)::int as min_seq,
        max(seq)::int as max_seq, (count(*) filter (where warmup))::int as warmup
      from run_samples where run_id = ${run.id} group by sweep_step order by sweep_step`;
    expect(rows).toEqual(
      plan.steps.map((s) => ({ step: s.step, n: s.toSeq - s.fromSeq, distinct_seq: s.toSeq - s.fromSeq, min_seq: s.fromSeq, max_seq: s.toSeq - 1, warmup: s.warmupCalls })),
    );
    // The node saw each seq at most once more than stored: what the lost attempt sent but never committed.
    expect(node.requests.length).toBeGreaterThanOrEqual(plan.callsPerTarget);
    expect(node.requests.length).toBeLessThan(plan.callsPerTarget + plan.steps[0]!.toSeq);
    expect(run.retry_history).toEqual([
      expect.objectContaining({ activity: 'probeSweepStep', attempt: 1, error_type: 'attempt_lost', target_id: run.targets[0].id }),
    ]);
    const verdict = await get<{ capacity: { endpoints: { knee_rps: number | null; steps: { calls: number; interruptions: number; status: string }[] }[] } }>(
      stack.app,
      `/v1/runs/${run.id}/verdict`,
      auth,
    );
    // Both steps counted whole (warm-up excluded); the interrupted one says so, and its pause is
    // not taken for a prober that fell behind.
    const steps = verdict.body.capacity.endpoints[0]!.steps;
    expect(steps.map((s) => s.calls)).toEqual(plan.steps.map((s) => s.toSeq - s.fromSeq - s.warmupCalls));
    expect(steps.map((s) => ({ interruptions: s.interruptions, status: s.status }))).toEqual([
      { interruptions: 1, status: 'within' },
      { interruptions: 0, status: 'within' },
    ]);
    expect(verdict.body.capacity.endpoints[0]!.knee_rps).toBe(200);
  });
});
