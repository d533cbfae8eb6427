import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { get, post, waitForRun } from '../helpers/api';
import { MINING_ADDRESS, RPC_PASSWORD, RPC_USER, startBitcoinPair, startBitcoinProxy, type BitcoinPair, type BitcoinProxy } from '../helpers/bitcoin-nodes';
import { startStack, type Stack } from '../helpers/stack';

/*
 * Head watches on a `bitcoin` chain against REAL regtest nodes. By polling: two peered litecoind,
 * the reference the node blocks are mined on (one a second, by the test, during the run), the
 * candidate its peer (real P2P relay). The head read is getblockchaininfo (height + best block
 * hash). By subscription: two peered btcd, each watched over its /ws with notifyblocks. Timing is
 * asserted loosely: the machine is shared and two-cored.
 */

type Json = Record<string, any>;
type Auth = { authorization: string };

const POLL_MS = 200;

describe('a head watch on a bitcoin chain against real regtest nodes', () => {
  let stack: Stack;
  let litecoin: BitcoinPair;
  let btcd: BitcoinPair;
  const proxies: BitcoinProxy[] = [];

  beforeAll(async () => {
    [stack, litecoin, btcd] = await Promise.all([startStack({ captureLogs: true }), startBitcoinPair('litecoind'), startBitcoinPair('btcd', 3)]);
  });
  afterAll(async () => {
    await Promise.all([litecoin?.close(), btcd?.close(), ...proxies.map((p) => p.close())]);
    await stack?.close();
  });

  async function allHeads(auth: Auth, runId: string): Promise<Json[]> {
    const heads: Json[] = [];
    for (;;) {
      const page = await get<{ data: Json[]; pagination: Json }>(stack.app, `/v1/runs/${runId}/heads?limit=200&offset=${heads.length}`, auth);
      expect(page.status).toBe(200);
      heads.push(...page.body.data);
      if (!page.body.pagination.has_more) return heads;
    }
  }

  /** Runs a suite watching `candidateUrl` against node A for 8 s while a block is mined on A every second. */
  async function watchedRun(auth: Auth, candidateUrl: string) {
    const chain = await post<Json>(stack.app, '/v1/chains', auth, { name: 'Regtest', slug: `regtest-${Date.now()}-${Math.random().toString(36).slice(2)}`, family: 'bitcoin' });
    expect(chain.status, JSON.stringify(chain.body)).toBe(201);
    const endpoint = async (name: string, url: string) => {
      const created = await post<Json>(stack.app, '/v1/endpoints', auth, { chain_id: chain.body.id, name, url, timeout_ms: 5_000 });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      return created.body.id as string;
    };
    const suite = await post<Json>(stack.app, '/v1/suites', auth, {
      chain_id: chain.body.id,
      name: 'bitcoin freshness',
      config: {
        targets: [{ endpoint_id: await endpoint('candidate', candidateUrl) }],
        reference_endpoint_id: await endpoint('reference', litecoin.a.authUrl),
        workload: { methods: [{ method: 'getblockcount' }], requests_per_target: 20, concurrency: 2, warmup_requests: 1, timeout_ms: 5_000 },
        freshness: { via: 'poll', poll_interval_ms: POLL_MS, duration_s: 8, grace_ms: 2_500 },
      },
    });
    expect(suite.status, JSON.stringify(suite.body)).toBe(201);

    let mined = 0;
    const miner = setInterval(() => {
      litecoin.a.rpc('generatetoaddress', [1, MINING_ADDRESS]).then(
        () => mined++,
        () => undefined,
      );
    }, 1_000);
    try {
      const created = await post<Json>(stack.app, `/v1/suites/${suite.body.id}/runs`, auth);
      expect(created.status).toBe(201);
      const run = await waitForRun(stack.app, auth, created.body.id, 90_000);
      expect(run.status, JSON.stringify(run.failure_reason)).toBe('success');
      const verdict = await get<Json>(stack.app, `/v1/runs/${run.id}/verdict`, auth);
      expect(verdict.status).toBe(200);
      return { runId: run.id as string, verdict: verdict.body, mined: () => mined };
    } finally {
      clearInterval(miner);
    }
  }

  it('the peer: every mined block seen on both with hashes, a lag within a few intervals, nothing missed', { timeout: 150_000 }, async () => {
    const { auth } = await stack.newTenant();
    const { runId, verdict, mined } = await watchedRun(auth, litecoin.b.authUrl);
    const freshness = verdict.freshness_comparison;
    expect(freshness).toMatchObject({ via: 'poll', resolution_ms: POLL_MS, duration_s: 8 });
    const [candidate] = freshness.candidates;
    console.log(`bitcoin freshness: peer ${JSON.stringify({ mined: mined(), reference: freshness.reference.heads, judged: candidate.judged, missed: candidate.missed, lag_ms: candidate.lag_ms })}`);
    // About eight blocks over eight seconds (the first and last may fall outside the watch).
    expect(freshness.reference.heads).toBeGreaterThanOrEqual(5);
    expect(candidate.judged).toBeGreaterThanOrEqual(4);
    expect(candidate.missed).toBe(0);
    // The reference has each block first (it mines it) and both are read at the same instants: a
    // block relayed within the interval shows as about 0, a later one as a whole interval or more.
    expect(candidate.lag_ms.p50.point).toBeGreaterThanOrEqual(-POLL_MS / 2);
    expect(candidate.lag_ms.p50.point).toBeLessThanOrEqual(1_000);
    expect(verdict.markdown_summary).toContain(`polled every ${POLL_MS} ms`);
    for (const evm of ['eth_', 'gwei', 'block tag', 'latest']) expect(verdict.markdown_summary).not.toContain(evm);

    // Bitcoin's head read names the block's hash: stored with each arrival, the same on both.
    const heads = await allHeads(auth, runId);
    expect(heads.length).toBe(freshness.reference.heads + candidate.announced);
    for (const h of heads) expect(h).toMatchObject({ via: 'poll', hash: expect.stringMatching(/^[0-9a-f]{64}$/) });
    for (const h of heads) expect(h.hash).toBe(await litecoin.a.rpc('getblockhash', [Number(h.number)]));
  });

  it('a candidate whose getblockchaininfo answers 500 ms late shows that as lag', { timeout: 150_000 }, async () => {
    const { auth } = await stack.newTenant();
    const proxy = await startBitcoinProxy(litecoin.b, (_method, result) => result, { delayMs: (method) => (method === 'getblockchaininfo' ? 500 : 0) });
    proxies.push(proxy);
    const { verdict, mined } = await watchedRun(auth, proxy.url);
    const [candidate] = verdict.freshness_comparison.candidates;
    console.log(`bitcoin freshness: 500 ms proxy ${JSON.stringify({ mined: mined(), judged: candidate.judged, missed: candidate.missed, lag_ms: candidate.lag_ms })}`);
    expect(candidate.judged).toBeGreaterThanOrEqual(4);
    expect(candidate.missed).toBe(0);
    // At least the 500 ms the answer is held; a poll that takes 500 ms skips the instants it
    // overlaps, so up to about one more poll on top.
    expect(candidate.lag_ms.p50.point).toBeGreaterThanOrEqual(400);
    expect(candidate.lag_ms.p50.point).toBeLessThanOrEqual(1_800);
  });

  it("btcd via subscribe: notifyblocks over each node's /ws (basic auth), every block pushed on both with its hash, nothing missed", { timeout: 150_000 }, async () => {
    const { auth } = await stack.newTenant();
    const authorization = `Basic ${Buffer.from(`${RPC_USER}:${RPC_PASSWORD}`).toString('base64')}`;
    const chain = await post<Json>(stack.app, '/v1/chains', auth, { name: 'Regtest', slug: `btcd-${Date.now()}`, family: 'bitcoin' });
    expect(chain.status, JSON.stringify(chain.body)).toBe(201);
    const endpoint = async (name: string, node: { url: string }) => {
      const wsUrl = `ws://${new URL(node.url).host}/ws`;
      const created = await post<Json>(stack.app, '/v1/endpoints', auth, { chain_id: chain.body.id, name, url: node.url, ws_url: wsUrl, headers: { authorization }, timeout_ms: 5_000 });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      return created.body.id as string;
    };
    const suite = await post<Json>(stack.app, '/v1/suites', auth, {
      chain_id: chain.body.id,
      name: 'btcd freshness',
      config: {
        targets: [{ endpoint_id: await endpoint('candidate', btcd.b) }],
        reference_endpoint_id: await endpoint('reference', btcd.a),
        workload: { methods: [{ method: 'getblockcount' }], requests_per_target: 20, concurrency: 2, warmup_requests: 1, timeout_ms: 5_000 },
        freshness: { via: 'subscribe', duration_s: 8, grace_ms: 2_500 },
      },
    });
    expect(suite.status, JSON.stringify(suite.body)).toBe(201);
    const miner = setInterval(() => void btcd.a.rpc('generate', [1]).catch(() => undefined), 1_000);
    let runId: string;
    let verdict: Json;
    try {
      const created = await post<Json>(stack.app, `/v1/suites/${suite.body.id}/runs`, auth);
      expect(created.status).toBe(201);
      const run = await waitForRun(stack.app, auth, created.body.id, 90_000);
      expect(run.status, JSON.stringify(run.failure_reason)).toBe('success');
      runId = run.id as string;
      verdict = (await get<Json>(stack.app, `/v1/runs/${runId}/verdict`, auth)).body;
    } finally {
      clearInterval(miner);
    }
    const freshness = verdict.freshness_comparison;
    expect(freshness).toMatchObject({ via: 'subscribe', resolution_ms: null, observer_gaps: [] });
    const [candidate] = freshness.candidates;
    console.log(`bitcoin freshness: btcd subscribe ${JSON.stringify({ reference: freshness.reference.heads, judged: candidate.judged, missed: candidate.missed, lag_ms: candidate.lag_ms })}`);
    expect(freshness.reference.heads).toBeGreaterThanOrEqual(5);
    expect(candidate.judged).toBeGreaterThanOrEqual(4);
    expect(candidate.missed).toBe(0);
    // Relayed over loopback P2P: pushed by the peer about when (measured: under a millisecond
    // after) the miner pushes it; the two notifications race, so a little either way.
    expect(candidate.lag_ms.p50.point).toBeGreaterThanOrEqual(-100);
    expect(candidate.lag_ms.p50.point).toBeLessThanOrEqual(1_000);
    const heads = await allHeads(auth, runId);
    expect(heads.length).toBe(freshness.reference.heads + candidate.announced);
    for (const h of heads) expect(h).toMatchObject({ via: 'subscribe', hash: expect.stringMatching(/^[0-9a-f]{64}$/) });
    for (const h of heads) expect(h.hash).toBe(await btcd.a.rpc('getblockhash', [Number(h.number)]));
    expect(stack.logs.join('\n')).not.toContain(RPC_PASSWORD);
    expect(stack.logs.join('\n')).not.toContain(authorization.slice('Basic '.length));
  });
});
