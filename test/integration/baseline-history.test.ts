import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSuite, get, post, waitForRun } from '../helpers/api';
import { answers, startFakeNode, type FakeNode } from '../helpers/json-rpc-node';
import { startStack, type Stack } from '../helpers/stack';

/**
 * The `history` baseline end to end (DESIGN §6a): a suite's passing runs form the band, a run that
 * failed its verdict never joins it, so a regression that persists keeps failing — the bug of
 * issue 11, where `previous_success` adopted the regressed run as its new baseline.
 */
describe('history baseline', () => {
  let stack: Stack;
  let node: FakeNode;
  beforeAll(async () => {
    stack = await startStack();
    node = await startFakeNode(answers.delay(50));
  });
  afterAll(async () => {
    await node?.close();
    await stack?.close();
  });

  it('fails a candidate made 50 % slower after 5 passing runs, and keeps failing it on the next run', async () => {
    const { auth } = await stack.newTenant();
    // A new suite gets the history mode by default. Small runs (120 calls, 2 at a time); 50 ms per
    // call, so the few ms a loaded machine adds to a loopback call are small beside the knob.
    const setup = await createSuite(stack.app, auth, {
      candidates: [node.url],
      config: { workload: { requests_per_target: 120, concurrency: 2, warmup_requests: 4, timeout_ms: 2_000 } },
    });
    const suite = await get<any>(stack.app, `/v1/suites/${setup.suiteId}`, auth);
    expect(suite.body.config.baseline).toEqual({ mode: 'history', run_id: null, window: 10, min_runs: 5, branch: 'main' });
    expect(suite.body.config.thresholds).toMatchObject({ fail_on_inconclusive: false, success_rate_min_pct: 99 });

    const runOnce = async () => {
      const created = await post<{ id: string }>(stack.app, `/v1/suites/${setup.suiteId}/runs`, auth);
      expect(created.status).toBe(201);
      const run = await waitForRun(stack.app, auth, created.body.id);
      expect(run.status).toBe('success');
      const verdict = await get<any>(stack.app, `/v1/runs/${run.id}/verdict`, auth);
      expect(verdict.status).toBe(200);
      return { id: run.id as string, verdict: verdict.body };
    };
    const baselineCheck = (verdict: any) => verdict.checks.find((c: any) => c.name === 'latency_vs_baseline');

    const passing: string[] = [];
    for (let i = 0; i < 5; i++) {
      const { id, verdict } = await runOnce();
      expect(verdict.verdict, verdict.markdown_summary).toBe('pass');
      const p95 = verdict.checks.find((c: any) => c.name === 'latency_p95');
      expect(p95.details.p95_us).toBeGreaterThanOrEqual(50_000);
      if (i === 0) {
        // Nothing to compare with yet.
        expect(verdict.baseline_comparison).toBeNull();
      } else {
        // Fewer than min_runs passing runs: the previous passing run's calls, and the message says so.
        expect(verdict.baseline_comparison).toMatchObject({ model: 'previous_run', run_ids: [passing[0]] });
        expect(baselineCheck(verdict).message).toContain(`only ${i} passing run${i === 1 ? '' : 's'} in the history (min_runs 5)`);
      }
      passing.unshift(id);
    }

    node.setBehaviour(answers.delay(75));
    const first = await runOnce();
    const second = await runOnce();
    for (const regressed of [first, second]) {
      expect(regressed.verdict.verdict, regressed.verdict.markdown_summary).toBe('fail');
      expect(regressed.verdict.exit_code).toBe(1);
      const check = baselineCheck(regressed.verdict);
      expect(check.status, check.message).toBe('fail');
      expect(check.details).toMatchObject({ model: 'history', reason: 'above_band' });
      // The band is the five passing runs, newest first; the first regressed run never joined it.
      expect(regressed.verdict.baseline_comparison).toMatchObject({ model: 'history', run_ids: passing, status: 'fail' });
      expect(regressed.verdict.baseline_comparison.limits.history_upper_ms).toBeLessThan(check.details.candidate_p95_ms);
    }
    expect(second.verdict.baseline_comparison.run_ids).not.toContain(first.id);

    // The run row records the newest run of the band as its baseline.
    const [row] = await stack.sql<{ baseline_run_id: string }[]>`select baseline_run_id from runs where id = ${second.id}`;
    expect(row!.baseline_run_id).toBe(passing[0]);
  });
});
