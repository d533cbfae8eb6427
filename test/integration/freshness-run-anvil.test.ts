import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { get, post, waitForRun } from '../helpers/api';
import { startAnvil, type AnvilNode } from '../helpers/anvil';
import { startStack, type Stack } from '../helpers/stack';
import { startWsLagProxy, type WsLagProxy } from '../helpers/ws-lag-proxy';

/*
 * A run with a head watch against a REAL node: the candidate is anvil (--block-time 1) behind a
 * WebSocket proxy the test owns, the reference the same anvil directly. Timing is asserted loosely:
 * the machine is shared and two-cored.
 */

type Auth = { authorization: string };

describe('a run with config.freshness against anvil', () => {
  let stack: Stack;
  let anvil: AnvilNode;
  const proxies: WsLagProxy[] = [];

  beforeAll(async () => {
    stack = await startStack();
    anvil = await startAnvil({ blockTimeS: 1 });
  });
  afterAll(async () => {
    await Promise.all(proxies.map((p) => p.close()));
    await anvil?.close();
    await stack?.close();
  });

  async function suiteWith(auth: Auth, candidateWsUrl: string, config: Record<string, unknown>): Promise<string> {
    const chain = await post<{ id: string }>(stack.app, '/v1/chains', auth, { name: 'Anvil', slug: `anvil-${Date.now()}-${Math.random().toString(36).slice(2)}`, chain_id: 31337 });
    expect(chain.status).toBe(201);
    const endpoint = async (name: string, wsUrl: string) => {
      const created = await post<{ id: string }>(stack.app, '/v1/endpoints', auth, { chain_id: chain.body.id, name, url: anvil.httpUrl, ws_url: wsUrl, timeout_ms: 2_000 });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      return created.body.id;
    };
    const candidate = await endpoint('candidate', candidateWsUrl);
    const reference = await endpoint('reference', anvil.wsUrl);
    const suite = await post<{ id: string }>(stack.app, '/v1/suites', auth, {
      chain_id: chain.body.id,
      name: 'freshness',
      config: {
        targets: [{ endpoint_id: candidate }],
        reference_endpoint_id: reference,
        workload: { methods: [{ method: 'eth_blockNumber' }], requests_per_target: 20, concurrency: 2, warmup_requests: 1, timeout_ms: 2_000 },
        ...config,
      },
    });
    expect(suite.status, JSON.stringify(suite.body)).toBe(201);
    return suite.body.id;
  }

  async function run(auth: Auth, suiteId: string) {
    const created = await post<{ id: string }>(stack.app, `/v1/suites/${suiteId}/runs`, auth);
    expect(created.status).toBe(201);
    const finished = await waitForRun(stack.app, auth, created.body.id, 90_000);
    expect(finished.status, JSON.stringify(finished.failure_reason)).toBe('success');
    const verdict = await get<Record<string, any>>(stack.app, `/v1/runs/${created.body.id}/verdict`, auth);
    expect(verdict.status).toBe(200);
    return { runId: created.body.id, run: finished, verdict: verdict.body };
  }

  it('measures a 300 ms proxy as about 300 ms of arrival lag, misses nothing, and pages the heads', { timeout: 120_000 }, async () => {
    const { auth } = await stack.newTenant();
    const proxy = await startWsLagProxy(anvil.wsUrl, { delayMs: 300 });
    proxies.push(proxy);
    const suiteId = await suiteWith(auth, proxy.url, { freshness: { duration_s: 9, grace_ms: 1_500 } });
    const { runId, verdict } = await run(auth, suiteId);

    const freshness = verdict.freshness_comparison;
    expect(freshness).toMatchObject({ via: 'subscribe', duration_s: 9, resolution_ms: null, observer_gaps: [] });
    expect(freshness.reference.heads).toBeGreaterThanOrEqual(6);
    const [candidate] = freshness.candidates;
    console.log(`freshness: 300 ms proxy measured ${JSON.stringify({ judged: candidate.judged, lag_ms: candidate.lag_ms })}`);
    expect(candidate.judged).toBeGreaterThanOrEqual(5);
    expect(candidate.missed).toBe(0);
    expect(candidate.lag_ms.p50.point).toBeGreaterThanOrEqual(200);
    expect(candidate.lag_ms.p50.point).toBeLessThanOrEqual(600);
    const check = verdict.checks.find((c: { name: string }) => c.name === 'freshness_vs_reference');
    // Under 500 ms, but nine heads cannot bound a p95 from above: inconclusive, which does not fail the verdict.
    expect(check.status).toBe('inconclusive');
    expect(check.details.candidates[0].reason).toBe('lag_straddles_limit');
    expect(verdict.verdict).toBe('pass');
    expect(verdict.markdown_summary).toContain('Head arrivals over 9 s via subscribe');

    const page = await get<Record<string, any>>(stack.app, `/v1/runs/${runId}/heads?limit=4`, auth);
    expect(page.status).toBe(200);
    expect(page.body.data).toHaveLength(4);
    expect(page.body.pagination.total).toBe(freshness.reference.heads + candidate.announced);
    expect(page.body.data[0]).toMatchObject({ via: 'subscribe', segment: 0, hash: expect.stringMatching(/^0x[0-9a-f]{64}$/) });
    const arrivals = page.body.data.map((h: { arrival_ms: number }) => h.arrival_ms);
    expect([...arrivals].sort((a, b) => a - b)).toEqual(arrivals);
    const next = await get<Record<string, any>>(stack.app, `/v1/runs/${runId}/heads?limit=4&offset=4`, auth);
    expect(next.body.data[0]).not.toEqual(page.body.data[0]);
  });

  it('a proxy dropping every 3rd newHeads frame: missed heads > 0 fail missed_heads_max_pct', { timeout: 120_000 }, async () => {
    const { auth } = await stack.newTenant();
    const proxy = await startWsLagProxy(anvil.wsUrl, { dropEveryNth: 3 });
    proxies.push(proxy);
    const suiteId = await suiteWith(auth, proxy.url, { freshness: { duration_s: 9, grace_ms: 1_500 }, thresholds: { missed_heads_max_pct: 10 } });
    const { verdict } = await run(auth, suiteId);

    const [candidate] = verdict.freshness_comparison.candidates;
    console.log(`freshness: every 3rd frame dropped ${JSON.stringify({ judged: candidate.judged, missed: candidate.missed, announced: candidate.announced })}`);
    expect(candidate.missed).toBeGreaterThan(0);
    // About a third of the judged heads, never all of them.
    expect(candidate.missed).toBeLessThan(candidate.judged);
    expect(candidate.missed_pct).toBeGreaterThan(10);
    const check = verdict.checks.find((c: { name: string }) => c.name === 'freshness_vs_reference');
    expect(check.status).toBe('fail');
    expect(check.details.candidates[0].reason).toBe('missed_above_limit');
    expect(verdict.verdict).toBe('fail');
  });

  it('via poll: both read over HTTP at the same instants, lag within one interval, and the verdict names the resolution', { timeout: 120_000 }, async () => {
    const { auth } = await stack.newTenant();
    const suiteId = await suiteWith(auth, anvil.wsUrl, { freshness: { duration_s: 8, via: 'poll', poll_interval_ms: 250, grace_ms: 1_500 } });
    const { runId, verdict } = await run(auth, suiteId);
    const freshness = verdict.freshness_comparison;
    expect(freshness).toMatchObject({ via: 'poll', resolution_ms: 250 });
    const [candidate] = freshness.candidates;
    console.log(`freshness: poll of the same node ${JSON.stringify({ judged: candidate.judged, missed: candidate.missed, lag_ms: candidate.lag_ms })}`);
    expect(candidate.judged).toBeGreaterThanOrEqual(4);
    expect(candidate.missed).toBe(0);
    expect(Math.abs(candidate.lag_ms.p50.point)).toBeLessThanOrEqual(250);
    expect(verdict.markdown_summary).toContain('polled every 250 ms');
    const page = await get<Record<string, any>>(stack.app, `/v1/runs/${runId}/heads?limit=1`, auth);
    expect(page.body.data[0]).toMatchObject({ via: 'poll', hash: null });
  });

  it('refuses via "subscribe" when an endpoint or a trigger\'s target has no ws_url (400 naming it)', async () => {
    const { auth } = await stack.newTenant();
    const chain = await post<{ id: string }>(stack.app, '/v1/chains', auth, { name: 'Anvil', slug: `anvil-${Date.now()}`, chain_id: 31337 });
    const candidate = await post<{ id: string }>(stack.app, '/v1/endpoints', auth, { chain_id: chain.body.id, name: 'c', url: anvil.httpUrl, timeout_ms: 2_000 });
    const reference = await post<{ id: string }>(stack.app, '/v1/endpoints', auth, { chain_id: chain.body.id, name: 'r', url: anvil.httpUrl, ws_url: anvil.wsUrl, timeout_ms: 2_000 });
    const config = { targets: [{ endpoint_id: candidate.body.id }], reference_endpoint_id: reference.body.id, freshness: { duration_s: 5 } };
    const refused = await post<Record<string, any>>(stack.app, '/v1/suites', auth, { chain_id: chain.body.id, name: 's', config });
    expect(refused.status).toBe(400);
    expect(refused.body.error.details).toEqual([{ field: 'config.targets.0.endpoint_id', message: expect.stringContaining('ws_url') }]);
    const polled = await post(stack.app, '/v1/suites', auth, { chain_id: chain.body.id, name: 's', config: { ...config, freshness: { duration_s: 5, via: 'poll' } } });
    expect(polled.status).toBe(201);

    // A trigger's own targets must be watchable too: one given by url has no ws_url.
    const watched = await post<{ id: string }>(stack.app, '/v1/suites', auth, {
      chain_id: chain.body.id,
      name: 'w',
      config: { ...config, targets: [{ endpoint_id: reference.body.id }], reference_endpoint_id: (await post<{ id: string }>(stack.app, '/v1/endpoints', auth, { chain_id: chain.body.id, name: 'r2', url: anvil.httpUrl, ws_url: anvil.wsUrl, timeout_ms: 2_000 })).body.id },
    });
    expect(watched.status, JSON.stringify(watched.body)).toBe(201);
    const trigger = await post<Record<string, any>>(stack.app, `/v1/suites/${watched.body.id}/runs`, auth, { targets: [{ url: anvil.httpUrl }, { endpoint_id: candidate.body.id }] });
    expect(trigger.status).toBe(400);
    expect(trigger.body.error.details).toEqual([
      { field: 'targets.1.endpoint_id', message: expect.stringContaining('ws_url') },
      { field: 'targets.0.url', message: expect.stringContaining('ws_url') },
    ]);
  });
});
