import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { get, post, waitForRun } from '../helpers/api';
import { gethFixture } from '../helpers/geth';
import { until } from '../helpers/processes';
import { startStack, type Stack } from '../helpers/stack';
import { startWsLagProxy, type WsLagProxy } from '../helpers/ws-lag-proxy';

/*
 * A run with a head watch against a REAL geth (v1.16.7, --dev sealing a block every second): the
 * candidate is geth behind a WebSocket proxy the test owns, the reference the same geth directly,
 * so whatever the candidate's arrivals differ by is what the proxy did. geth is the second
 * implementation the watch runs against (anvil: freshness-run-anvil.test.ts).
 */

type Auth = { authorization: string };
type Json = Record<string, any>;

describe('a run with config.freshness against geth', () => {
  let stack: Stack;
  const fixture = gethFixture({ periodS: 1 });
  const proxies: WsLagProxy[] = [];

  beforeAll(async () => {
    stack = await startStack();
    await fixture.start();
  }, 120_000);
  afterAll(async () => {
    await Promise.all(proxies.map((p) => p.close()));
    await fixture.close();
    await stack?.close();
  });

  async function suiteWith(auth: Auth, candidateWsUrl: string, config: Record<string, unknown>): Promise<string> {
    const geth = fixture.node;
    const chain = await post<{ id: string }>(stack.app, '/v1/chains', auth, { name: 'geth dev', slug: `geth-${Date.now()}-${Math.random().toString(36).slice(2)}`, chain_id: 1337 });
    expect(chain.status, JSON.stringify(chain.body)).toBe(201);
    const endpoint = async (name: string, wsUrl: string) => {
      const created = await post<{ id: string }>(stack.app, '/v1/endpoints', auth, { chain_id: chain.body.id, name, url: geth.httpUrl, ws_url: wsUrl, timeout_ms: 2_000 });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      return created.body.id;
    };
    const candidate = await endpoint('candidate', candidateWsUrl);
    const reference = await endpoint('reference', geth.wsUrl);
    const suite = await post<{ id: string }>(stack.app, '/v1/suites', auth, {
      chain_id: chain.body.id,
      name: 'geth freshness',
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

  async function trigger(auth: Auth, suiteId: string): Promise<string> {
    const created = await post<{ id: string }>(stack.app, `/v1/suites/${suiteId}/runs`, auth);
    expect(created.status).toBe(201);
    return created.body.id;
  }

  async function verdictOf(auth: Auth, runId: string): Promise<Json> {
    const finished = await waitForRun(stack.app, auth, runId, 90_000);
    expect(finished.status, JSON.stringify(finished.failure_reason)).toBe('success');
    const verdict = await get<Json>(stack.app, `/v1/runs/${runId}/verdict`, auth);
    expect(verdict.status).toBe(200);
    return verdict.body;
  }

  it('a proxy delaying newHeads by 300 ms is measured as 300 ms of arrival lag (p50 within ±20 ms), nothing missed', { timeout: 120_000 }, async () => {
    const { auth } = await stack.newTenant();
    const proxy = await startWsLagProxy(fixture.node.wsUrl, { delayMs: 300 });
    proxies.push(proxy);
    const suiteId = await suiteWith(auth, proxy.url, { freshness: { duration_s: 12, grace_ms: 1_500 } });
    const verdict = await verdictOf(auth, await trigger(auth, suiteId));

    const freshness = verdict.freshness_comparison;
    expect(freshness).toMatchObject({ via: 'subscribe', duration_s: 12, resolution_ms: null, observer_gaps: [] });
    expect(freshness.reference.heads).toBeGreaterThanOrEqual(9);
    const [candidate] = freshness.candidates;
    console.log(`geth freshness: 300 ms proxy measured ${JSON.stringify({ judged: candidate.judged, lags: candidate.lags, lag_ms: candidate.lag_ms })}`);
    expect(candidate.judged).toBeGreaterThanOrEqual(8);
    expect(candidate.missed).toBe(0);
    expect(candidate.lags).toBe(candidate.judged);
    // What the issue asks: injected 300 ms → p50 within ±20 ms (the proxy's timer and one forward on loopback are all it adds).
    expect(Math.abs(candidate.lag_ms.p50.point - 300)).toBeLessThanOrEqual(20);
    // The reference is geth itself, announced straight to the observer: every head it announced was seen.
    expect(freshness.reference.heads).toBeGreaterThanOrEqual(candidate.judged);
    expect(verdict.markdown_summary).toContain('Head arrivals over 12 s via subscribe');
  });

  it('dropped newHeads frames count as missed and a 4 s silence is reported as a stall that fails stall_max_s', { timeout: 120_000 }, async () => {
    const { auth } = await stack.newTenant();
    const proxy = await startWsLagProxy(fixture.node.wsUrl, { dropEveryNth: 4 });
    proxies.push(proxy);
    const suiteId = await suiteWith(auth, proxy.url, {
      freshness: { duration_s: 14, grace_ms: 1_500 },
      // Missed heads alone never fail here: the stall is what this run must fail on.
      thresholds: { missed_heads_max_pct: 100, stall_max_s: 2 },
    });
    const runId = await trigger(auth, suiteId);
    // Once the candidate's watch is subscribed (through the proxy), let it see heads for 3 s, then silence it for 4 s.
    await until(() => (proxy.subscriptionId() === null ? undefined : true), 60_000, 'the candidate watch subscribing through the proxy');
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    proxy.setHeld(true);
    await new Promise((resolve) => setTimeout(resolve, 4_000));
    proxy.setHeld(false);
    const verdict = await verdictOf(auth, runId);

    const [candidate] = verdict.freshness_comparison.candidates;
    const dropped = proxy.notificationsDropped();
    console.log(`geth freshness: drops and a 4 s hold ${JSON.stringify({ dropped, judged: candidate.judged, missed: candidate.missed, stall: candidate.longest_stall_ms })}`);
    // At least the 3 heads of the 4 s hold, and every 4th of the rest: never more than the proxy dropped, never all.
    expect(candidate.missed).toBeGreaterThanOrEqual(4);
    expect(candidate.missed).toBeLessThanOrEqual(dropped);
    expect(candidate.missed).toBeLessThan(candidate.judged);
    expect(candidate.longest_stall_ms).toBeGreaterThanOrEqual(3_500);
    // The reference kept announcing through the candidate's silence: its longest stall is shorter
    // than the hold (a comparison of the two, not a bound on the machine's clock).
    expect(verdict.freshness_comparison.reference.longest_stall_ms).toBeLessThan(candidate.longest_stall_ms);
    const check = verdict.checks.find((c: Json) => c.name === 'freshness_vs_reference');
    expect(check.status).toBe('fail');
    expect(check.details.candidates[0].reason).toBe('stall_above_limit');
    expect(verdict.verdict).toBe('fail');
    expect(verdict.markdown_summary).toMatch(/\| candidate \| .* \| \d+ of \d+/);
  });
});
