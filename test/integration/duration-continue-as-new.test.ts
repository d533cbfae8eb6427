import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSuite, get, runWithHistoryBudget, waitForRun } from '../helpers/api';
import { answers, startFakeNode, type FakeNode } from '../helpers/json-rpc-node';
import { startStack, type Stack } from '../helpers/stack';

// A campaign bound by duration_s (not a call count) in open loop with a reference, carried over
// continue-as-new (forced by a tiny history budget): it ends on time, finalizes, and every target
// has each seq exactly once — the long-campaign path of bench:soak, in under a minute.
describe('duration campaign across continue-as-new', () => {
  let stack: Stack;
  let candidate: FakeNode;
  let reference: FakeNode;
  beforeAll(async () => {
    stack = await startStack();
    candidate = await startFakeNode(answers.delay(1));
    reference = await startFakeNode(answers.delay(1));
  });
  afterAll(async () => {
    await candidate?.close();
    await reference?.close();
    await stack?.close();
  });

  it('ends on time, finalizes with a verdict, and records every seq once per target', { timeout: 150_000 }, async () => {
    const idle = await startStack({ worker: false, env: { RVS_SECRET_KEY: stack.config.secretKey! } });
    try {
      const { auth } = await idle.newTenant();
      const setup = await createSuite(idle.app, auth, {
        candidates: [candidate.url],
        reference: reference.url,
        config: { workload: { requests_per_target: null, duration_s: 35, rate_per_second: 50, concurrency: 4, warmup_requests: 0, timeout_ms: 2_000 } },
      });
      const { runId, workflowId, firstExecutionRunId } = await runWithHistoryBudget(idle, stack, auth, setup.suiteId, 20);
      const run = await waitForRun(idle.app, auth, runId);
      expect(run.status).toBe('success');
      expect((await stack.client.workflow.getHandle(workflowId).describe()).runId).not.toBe(firstExecutionRunId);
      const verdict = await get<{ verdict: string }>(idle.app, `/v1/runs/${runId}/verdict`, auth);
      expect(['pass', 'fail']).toContain(verdict.body.verdict);
      const targets = await stack.sql<{ role: string; n: number; distinct_seq: number; max_seq: number }[]>`
        select role, count(*)::int as n, count(distinct seq)::int as distinct_seq, max(seq)::int as max_seq
        from run_samples where run_id = ${runId} group by role order by role`;
      expect(targets.map((t) => t.role)).toEqual(['primary', 'reference']);
      for (const t of targets) {
        // 35 s at 50/s: 1,750 due; the schedule's last instants may fall just past the deadline.
        expect(t.n).toBeGreaterThan(1_700);
        expect(t.n).toBeLessThanOrEqual(1_750);
        expect(t.distinct_seq).toBe(t.n);
        expect(t.max_seq + 1).toBe(t.n);
      }
    } finally {
      await idle.close();
    }
  });
});
