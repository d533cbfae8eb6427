import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NO_WS_URL_MESSAGE } from '../../src/domain/suite-config';
import { get, post, waitForRun } from '../helpers/api';
import { startAnvil, type AnvilNode } from '../helpers/anvil';
import { startStack, type Stack } from '../helpers/stack';
import { startWsLagProxy, type WsLagProxy } from '../helpers/ws-lag-proxy';

/*
 * Runs whose workload goes over the endpoints' WebSocket (`workload.transport: "ws"`), through
 * HTTP, Temporal and Postgres, against a REAL node: anvil (from npm) as both candidate and
 * reference, each reached over its ws_url through a proxy the test owns. The candidate's HTTP url
 * is a closed port, so a call that went over HTTP would be a connection_error.
 */

type Json = Record<string, any>;
const ACCOUNT = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266';
const CLOSED_HTTP = 'http://127.0.0.1:1/';

describe('requests over WebSocket against a real anvil node', () => {
  let stack: Stack;
  let anvil: AnvilNode;
  const proxies: WsLagProxy[] = [];

  beforeAll(async () => {
    stack = await startStack();
    anvil = await startAnvil({ blockTimeS: 1 });
    // The workload pins head − 1: wait for a few blocks.
    const deadline = Date.now() + 20_000;
    while (Number(await anvil.rpc('eth_blockNumber')) < 3) {
      if (Date.now() > deadline) throw new Error('anvil mined no blocks');
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  });
  afterAll(async () => {
    await Promise.all(proxies.map((p) => p.close()));
    await anvil?.close();
    await stack?.close();
  });

  async function proxy(): Promise<WsLagProxy> {
    const p = await startWsLagProxy(anvil.wsUrl);
    proxies.push(p);
    return p;
  }

  async function setUp(auth: { authorization: string }, candidate: { url: string; ws_url?: string }, reference: { url: string; ws_url?: string }) {
    const chain = await post<{ id: string }>(stack.app, '/v1/chains', auth, { name: 'Anvil', slug: `anvil-${Date.now()}-${Math.random().toString(36).slice(2)}`, chain_id: 31337 });
    expect(chain.status).toBe(201);
    const endpoint = async (name: string, body: { url: string; ws_url?: string }) => {
      const created = await post<{ id: string }>(stack.app, '/v1/endpoints', auth, { chain_id: chain.body.id, name, timeout_ms: 5_000, ...body });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      return created.body.id;
    };
    return { chainId: chain.body.id, candidateId: await endpoint('candidate', candidate), referenceId: await endpoint('reference', reference) };
  }

  const workload = (extra: Record<string, unknown>) => ({
    transport: 'ws',
    methods: [
      { method: 'eth_getBlockByNumber', params: ['{{pinned_block}}', false] },
      { method: 'eth_getBalance', params: [ACCOUNT, '{{pinned_block}}'] },
      { method: 'eth_chainId', params: [] },
    ],
    concurrency: 4,
    warmup_requests: 2,
    timeout_ms: 5_000,
    block_lag: 1,
    ...extra,
  });
  const thresholds = { correctness_enabled: true, correctness_min_pct: 100, latency_p95_max_ms: 5_000, latency_vs_reference_max_pct: 10_000 };

  it('refuses a ws workload naming an endpoint without ws_url, at suite create and update and at trigger with per-run targets', async () => {
    const { auth } = await stack.newTenant();
    const p = await proxy();
    const { chainId, candidateId, referenceId } = await setUp(auth, { url: anvil.httpUrl }, { url: anvil.httpUrl, ws_url: p.url });
    const config = (transport: string) => ({
      targets: [{ endpoint_id: candidateId }],
      reference_endpoint_id: referenceId,
      workload: { ...workload({ requests_per_target: 10 }), transport },
    });
    const refused = await post<Json>(stack.app, '/v1/suites', auth, { chain_id: chainId, name: 'ws', config: config('ws') });
    expect(refused.status).toBe(400);
    expect(refused.body.error.details).toEqual([{ field: 'config.targets.0.endpoint_id', message: NO_WS_URL_MESSAGE }]);

    const created = await post<Json>(stack.app, '/v1/suites', auth, { chain_id: chainId, name: 'http', config: config('http') });
    expect(created.status).toBe(201);
    expect(created.body.config.workload.transport).toBe('http');
    const patched = await stack.app.inject({ method: 'PATCH', url: `/v1/suites/${created.body.id}`, headers: auth, payload: { config: config('ws') } });
    expect(patched.statusCode).toBe(400);
    expect(patched.json().error.details).toEqual([{ field: 'config.targets.0.endpoint_id', message: NO_WS_URL_MESSAGE }]);

    // A suite whose endpoints all have a ws_url, triggered with candidates of the run's own.
    const withWs = await post<{ id: string }>(stack.app, '/v1/endpoints', auth, { chain_id: chainId, name: 'ws', url: anvil.httpUrl, ws_url: p.url });
    const suite = await post<Json>(stack.app, '/v1/suites', auth, {
      chain_id: chainId,
      name: 'ws ok',
      config: { ...config('ws'), targets: [{ endpoint_id: withWs.body.id }] },
    });
    expect(suite.status, JSON.stringify(suite.body)).toBe(201);
    const trigger = await post<Json>(stack.app, `/v1/suites/${suite.body.id}/runs`, auth, { targets: [{ endpoint_id: candidateId }, { url: anvil.httpUrl }] });
    expect(trigger.status).toBe(400);
    expect(trigger.body.error.details).toEqual([
      { field: 'targets.0', message: NO_WS_URL_MESSAGE },
      { field: 'targets.1', message: NO_WS_URL_MESSAGE },
    ]);
    const runs = await get<Json>(stack.app, `/v1/runs?suite_id=${suite.body.id}`, auth);
    expect(runs.body.data ?? []).toHaveLength(0);
  });

  it('a closed-loop run over ws: every call ok over the sockets, answers match the reference', async () => {
    const { auth } = await stack.newTenant();
    const [candidateWs, referenceWs] = [await proxy(), await proxy()];
    const { chainId, candidateId, referenceId } = await setUp(auth, { url: CLOSED_HTTP, ws_url: candidateWs.url }, { url: anvil.httpUrl, ws_url: referenceWs.url });
    const suite = await post<Json>(stack.app, '/v1/suites', auth, {
      chain_id: chainId,
      name: 'over ws',
      config: { targets: [{ endpoint_id: candidateId }], reference_endpoint_id: referenceId, workload: workload({ requests_per_target: 60 }), thresholds },
    });
    expect(suite.status, JSON.stringify(suite.body)).toBe(201);
    expect(suite.body.config.workload.transport).toBe('ws');
    const created = await post<{ id: string }>(stack.app, `/v1/suites/${suite.body.id}/runs`, auth);
    expect(created.status).toBe(201);
    const run = await waitForRun(stack.app, auth, created.body.id, 60_000);
    expect(run.status, JSON.stringify(run.retry_history)).toBe('success');

    const outcomes = await stack.sql<{ role: string; outcome: string; n: number }[]>`
      select role, outcome, count(*)::int as n from run_samples where run_id = ${run.id} group by role, outcome order by role`;
    expect(outcomes).toEqual([
      { role: 'primary', outcome: 'ok', n: 60 },
      { role: 'reference', outcome: 'ok', n: 60 },
    ]);
    // Both sides went over their sockets (the candidate's HTTP url is a closed port).
    expect(candidateWs.connections()).toBeGreaterThanOrEqual(1);
    expect(referenceWs.connections()).toBeGreaterThanOrEqual(1);
    const verdict = await get<Json>(stack.app, `/v1/runs/${run.id}/verdict`, auth);
    expect(verdict.body.checks.find((c: Json) => c.name === 'correctness')).toMatchObject({
      status: 'pass',
      details: { compared: 60, matched: 60, mismatched: 0, match_rate_pct: 100 },
    });
    // 60 calls are too few for the availability check to decide either way; none failed.
    expect(verdict.body.checks.find((c: Json) => c.name === 'availability')?.status).not.toBe('fail');
  });

  it('a socket dropped mid-run: the calls it carried are connection_error samples, and every seq is recorded exactly once', async () => {
    const { auth } = await stack.newTenant();
    const [candidateWs, referenceWs] = [await proxy(), await proxy()];
    // Answers 100 ms late, so calls are in flight on the socket when it is cut.
    candidateWs.setDelayMs(100);
    const { chainId, candidateId, referenceId } = await setUp(auth, { url: CLOSED_HTTP, ws_url: candidateWs.url }, { url: anvil.httpUrl, ws_url: referenceWs.url });
    const planned = 200;
    const suite = await post<Json>(stack.app, '/v1/suites', auth, {
      chain_id: chainId,
      name: 'dropped',
      config: {
        targets: [{ endpoint_id: candidateId }],
        reference_endpoint_id: referenceId,
        workload: workload({ requests_per_target: planned, rate_per_second: 40 }),
        thresholds: { ...thresholds, correctness_enabled: false, success_rate_min_pct: 0 },
      },
    });
    expect(suite.status, JSON.stringify(suite.body)).toBe(201);
    const created = await post<{ id: string }>(stack.app, `/v1/suites/${suite.body.id}/runs`, auth);
    expect(created.status).toBe(201);
    const runId = created.body.id;
    // Cut once a second's worth of samples is committed, i.e. mid-run.
    const deadline = Date.now() + 30_000;
    for (;;) {
      const [row] = await stack.sql<{ n: number }[]>`select count(*)::int as n from run_samples where run_id = ${runId} and role = 'primary'`;
      if (row!.n >= 20) break;
      if (Date.now() > deadline) throw new Error('the run committed no samples');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const before = candidateWs.connections();
    candidateWs.dropAll();
    const run = await waitForRun(stack.app, auth, runId, 60_000);
    expect(run.status, JSON.stringify(run.retry_history)).toBe('success');

    const perSeq = await stack.sql<{ seq: number; n: number }[]>`
      select seq, count(*)::int as n from run_samples where run_id = ${runId} and role = 'primary' group by seq order by seq`;
    expect(perSeq.map((r) => r.seq)).toEqual(Array.from({ length: planned }, (_, i) => i));
    expect(perSeq.every((r) => r.n === 1)).toBe(true);
    const outcomes = Object.fromEntries(
      (await stack.sql<{ outcome: string; n: number }[]>`
        select outcome, count(*)::int as n from run_samples where run_id = ${runId} and role = 'primary' group by outcome`).map((r) => [r.outcome, r.n]),
    );
    expect(outcomes.connection_error).toBeGreaterThanOrEqual(1);
    expect(outcomes.ok).toBeGreaterThanOrEqual(planned / 2);
    expect((outcomes.ok ?? 0) + (outcomes.connection_error ?? 0)).toBe(planned);
    // The client opened a new socket for the calls after the drop.
    expect(candidateWs.connections()).toBeGreaterThan(before);
    const [reference] = await stack.sql<{ n: number }[]>`select count(*)::int as n from run_samples where run_id = ${runId} and role = 'reference' and outcome = 'ok'`;
    expect(reference!.n).toBe(planned);
  });
});
