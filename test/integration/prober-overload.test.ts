import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSuite, get, post, waitForRun } from '../helpers/api';
import { answers, startFakeNode, type FakeNode } from '../helpers/json-rpc-node';
import { startStack, type Stack } from '../helpers/stack';
import { findRun } from '../../src/db/runs';
import { findPassingHistory } from '../../src/db/run-history';
import { PROBER_OVERLOAD } from '../../src/domain/verdict';

/**
 * The prober knows when it is the bottleneck (issue 31, DESIGN §17): a worker whose event loop is
 * burned while it probes (80 ms of every 100 ms, the test's stand-in for another tenant's
 * saturating campaign) measures its own lateness. Its latency_p95 check, which would fail, is
 * inconclusive and names the prober; the run never joins the suite's baseline history.
 */
describe('an overloaded prober', () => {
  let healthy: Stack;
  let burning: Stack;
  let node: FakeNode;
  beforeAll(async () => {
    // Two workers on one database, each on its own task queue: the burning one probes the first run.
    // One secret key: the endpoints one stack stores, the other's worker decrypts.
    const env = { RVS_SECRET_KEY: randomBytes(32).toString('hex') };
    healthy = await startStack({ env });
    burning = await startStack({ env, testLoopBurn: { everyMs: 100, burnMs: 80 } });
    node = await startFakeNode(answers.delay(20));
  });
  afterAll(async () => {
    await node?.close();
    await burning?.close();
    await healthy?.close();
  });

  it('makes a failing latency check inconclusive, naming the prober, and keeps the run out of the baseline history', async () => {
    const { auth } = await healthy.newTenant();
    // 20 ms answers against a 60 ms limit: a prober whose loop stalls 80 ms at a time measures most calls above it.
    const setup = await createSuite(healthy.app, auth, {
      candidates: [node.url],
      config: {
        workload: { requests_per_target: 150, concurrency: 4, warmup_requests: 2, timeout_ms: 2_000 },
        thresholds: { latency_p95_max_ms: 60 },
      },
    });
    const runOn = async (stack: Stack) => {
      const created = await post<{ id: string }>(stack.app, `/v1/suites/${setup.suiteId}/runs`, auth);
      expect(created.status).toBe(201);
      const run = await waitForRun(stack.app, auth, created.body.id, 90_000);
      expect(run.status).toBe('success');
      const verdict = await get<any>(stack.app, `/v1/runs/${run.id}/verdict`, auth);
      expect(verdict.status).toBe(200);
      return { id: run.id as string, verdict: verdict.body };
    };

    const overloaded = await runOn(burning);
    expect(overloaded.verdict.prober).toMatchObject({ overloaded: true });
    expect(overloaded.verdict.prober.loop_delay_p99_ms).toBeGreaterThan(PROBER_OVERLOAD.loopDelayP99Ms);
    expect(overloaded.verdict.prober.activities).toBeGreaterThanOrEqual(1);
    const p95 = overloaded.verdict.checks.find((c: any) => c.name === 'latency_p95');
    // Measured above the limit, but the prober, not the endpoint, was late: never a fail.
    expect(p95.details.p95).toBeGreaterThan(60);
    expect(p95.status, p95.message).toBe('inconclusive');
    expect(p95.message).toMatch(/inconclusive: the prober was overloaded: event-loop delay p99 \d+(\.\d)? ms during probing/);
    expect(overloaded.verdict.verdict).toBe('pass');
    expect(overloaded.verdict.markdown_summary).toContain('**Prober overloaded**');
    const [stored] = await healthy.sql<{ n: number }[]>`select count(*)::int as n from run_prober_health where run_id = ${overloaded.id}`;
    expect(stored!.n).toBe(overloaded.verdict.prober.activities);

    // The next run, on the healthy worker, finds no passing run to compare with: the overloaded one does not count.
    const next = await runOn(healthy);
    expect(next.verdict.prober.activities).toBeGreaterThanOrEqual(1);
    expect(next.verdict.baseline_comparison).toBeNull();
    const nextRow = (await findRun(healthy.sql, next.id))!;
    expect((await findPassingHistory(healthy.sql, nextRow, 10)).map((r) => r.run_id)).not.toContain(overloaded.id);
  });
});
