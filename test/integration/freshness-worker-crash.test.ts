import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { get, post, waitForRun } from '../helpers/api';
import { startAnvil, type AnvilNode } from '../helpers/anvil';
import { startStack, type Stack } from '../helpers/stack';
import { isRunning, killHard, startWorkerProcess, until } from '../helpers/worker-process';
import { startWsLagProxy, type WsLagProxy } from '../helpers/ws-lag-proxy';

describe('a worker killed in the middle of a head watch', () => {
  let stack: Stack;
  let anvil: AnvilNode;
  let proxy: WsLagProxy;
  const workers: ChildProcess[] = [];
  beforeAll(async () => {
    stack = await startStack({ worker: false });
    anvil = await startAnvil({ blockTimeS: 1 });
    proxy = await startWsLagProxy(anvil.wsUrl, { delayMs: 100 });
  });
  afterAll(async () => {
    for (const worker of workers) if (isRunning(worker)) await killHard(worker);
    await proxy?.close();
    await anvil?.close();
    await stack?.close();
  });

  it('resumes on another worker as a new segment; the gap is the observer\'s, never missed heads', { timeout: 150_000 }, async () => {
    const { auth } = await stack.newTenant();
    const chain = await post<{ id: string }>(stack.app, '/v1/chains', auth, { name: 'Anvil', slug: `anvil-${Date.now()}`, chain_id: 31337 });
    const endpoint = async (name: string, wsUrl: string) =>
      (await post<{ id: string }>(stack.app, '/v1/endpoints', auth, { chain_id: chain.body.id, name, url: anvil.httpUrl, ws_url: wsUrl, timeout_ms: 2_000 })).body.id;
    const candidate = await endpoint('candidate', proxy.url);
    const reference = await endpoint('reference', anvil.wsUrl);
    const suite = await post<{ id: string }>(stack.app, '/v1/suites', auth, {
      chain_id: chain.body.id,
      name: 'freshness crash',
      config: {
        targets: [{ endpoint_id: candidate }],
        reference_endpoint_id: reference,
        workload: { methods: [{ method: 'eth_blockNumber' }], requests_per_target: 10, concurrency: 1, warmup_requests: 0 },
        // Long enough that the retry (after the 20 s heartbeat timeout) still has time to watch.
        freshness: { duration_s: 40, grace_ms: 1_500 },
      },
    });
    expect(suite.status, JSON.stringify(suite.body)).toBe(201);

    workers.push(startWorkerProcess({ taskQueue: stack.taskQueue, secretKey: stack.config.secretKey! }));
    const created = await post<{ id: string }>(stack.app, `/v1/suites/${suite.body.id}/runs`, auth);
    const runId = created.body.id;
    const watchedFor = async () => {
      const [row] = await stack.sql<{ last: number | null }[]>`select max(last_seen_ms) as last from run_head_watch_segments where run_id = ${runId} and segment = 0`;
      return row?.last ?? 0;
    };
    await until(async () => (await watchedFor()) >= 5_000, 60_000, 'five seconds watched');
    await killHard(workers[0]!);
    workers.push(startWorkerProcess({ taskQueue: stack.taskQueue, secretKey: stack.config.secretKey! }));

    const run = await waitForRun(stack.app, auth, runId, 120_000);
    expect(run.status, run.failure_reason).toBe('success');
    const verdict = (await get<Record<string, any>>(stack.app, `/v1/runs/${runId}/verdict`, auth)).body;
    const freshness = verdict.freshness_comparison;
    console.log(`freshness after a worker kill: ${JSON.stringify({ gaps: freshness.observer_gaps, candidate: freshness.candidates[0] })}`);

    // One gap, from the lost worker's last write to the resumed segment's start.
    expect(freshness.observer_gaps).toHaveLength(1);
    const [gap] = freshness.observer_gaps;
    expect(gap.to_ms - gap.from_ms).toBeGreaterThan(5_000);
    const [c] = freshness.candidates;
    expect(c.missed).toBe(0);
    expect(c.judged).toBeGreaterThanOrEqual(8);
    // Heads of both segments were judged, and the lag is the proxy's.
    expect(c.lag_ms.p50.point).toBeGreaterThanOrEqual(50);
    expect(c.lag_ms.p50.point).toBeLessThanOrEqual(400);
    // The gap is nobody's stall.
    expect(c.longest_stall_ms).toBeLessThan(gap.to_ms - gap.from_ms);
    const segments = await stack.sql<{ segment: number }[]>`select distinct segment from run_head_arrivals where run_id = ${runId} order by segment`;
    expect(segments.map((s) => s.segment)).toEqual([0, 1]);
  });
});
