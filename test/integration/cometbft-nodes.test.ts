import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COMET_WORKLOAD_PRESETS } from '../../src/chains/cometbft/presets';
import { get, post, waitForRun } from '../helpers/api';
import { startCometNetwork, type CometNetwork, type CometNode } from '../helpers/cometbft-nodes';
import { startStack, type Stack } from '../helpers/stack';
import { startWsLagProxy, type WsLagProxy } from '../helpers/ws-lag-proxy';

/*
 * Runs of a `cometbft` chain end to end (HTTP, Temporal, Postgres, the probe and head-watch
 * clients) against a REAL local CometBFT network (v0.38.26, test/helpers/cometbft-nodes.ts): a
 * validator (the reference) and a full node peered to it over loopback (the candidate), both
 * running the built-in kvstore app, and a second chain with a genesis of its own for "a node of
 * another chain".
 */

type Json = Record<string, any>;
type Auth = { authorization: string };

/**
 * A node that pruned its blocks below `lowest`, as CometBFT answers it: a proxy in front of a real
 * node that answers `header` below that height with the node's own error text (rpc/core/env.go
 * getHeight) and forwards every other request.
 */
async function startPruningProxy(target: string, lowest: number): Promise<{ url: string; close: () => Promise<void> }> {
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const call = JSON.parse(body) as { id: unknown; method: string; params: unknown };
      const height = Array.isArray(call.params) ? Number(call.params[0]) : NaN;
      if (call.method === 'header' && height < lowest) {
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ jsonrpc: '2.0', id: call.id, error: { code: -32603, message: 'Internal error', data: `height ${height} is not available, lowest height is ${lowest}` } }));
        return;
      }
      fetch(target, { method: 'POST', headers: { 'content-type': 'application/json' }, body })
        .then(async (answer) => {
          res.statusCode = answer.status;
          res.setHeader('content-type', 'application/json');
          res.end(await answer.text());
        })
        .catch(() => res.destroy());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

const STANDARD = COMET_WORKLOAD_PRESETS.find((p) => p.slug === 'cometbft-standard')!.workload.methods as Json[];
const PINNED_METHODS = ['block', 'header', 'block_results', 'commit', 'validators', 'header_by_hash', 'block_by_hash'];

describe('runs of a cometbft chain against a real local network', () => {
  let stack: Stack;
  let network: CometNetwork;
  let other: CometNetwork;
  const proxies: WsLagProxy[] = [];

  beforeAll(async () => {
    [stack, network, other] = await Promise.all([
      startStack(),
      startCometNetwork({ chainId: 'rvs-local-1' }),
      startCometNetwork({ chainId: 'rvs-other-1', full: false }),
    ]);
    // A kvstore key for abci_query and a transaction for tx_search, on both nodes before any run.
    await network.putKeys({ name: 'rvs' });
    await network.synced();
  }, 180_000);
  afterAll(async () => {
    await Promise.all([network?.close(), other?.close(), ...proxies.map((p) => p.close())]);
    await stack?.close();
  });

  async function runSuite(auth: Auth, candidate: { url: string; wsUrl?: string }, reference: CometNode, config: Json) {
    const chain = await post<Json>(stack.app, '/v1/chains', auth, { name: 'Local CometBFT', slug: `comet-${Date.now()}-${Math.random().toString(36).slice(2)}`, family: 'cometbft', chain_id: 'rvs-local-1' });
    expect(chain.status, JSON.stringify(chain.body)).toBe(201);
    // A chain id as its family names it: a string, stored and shown as given.
    expect(chain.body.chain_id).toBe('rvs-local-1');
    const endpoint = async (name: string, url: string, wsUrl: string | undefined) => {
      const created = await post<Json>(stack.app, '/v1/endpoints', auth, { chain_id: chain.body.id, name, url, ...(wsUrl === undefined ? {} : { ws_url: wsUrl }), timeout_ms: 5_000 });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      return created.body.id as string;
    };
    const candidateId = await endpoint('candidate', candidate.url, candidate.wsUrl);
    const referenceId = await endpoint('reference', reference.url, reference.wsUrl);
    const suite = await post<Json>(stack.app, '/v1/suites', auth, {
      chain_id: chain.body.id,
      name: 'cometbft suite',
      config: {
        targets: [{ endpoint_id: candidateId }],
        reference_endpoint_id: referenceId,
        retry: { max_attempts: 2, initial_interval_ms: 200 },
        ...config,
      },
    });
    expect(suite.status, JSON.stringify(suite.body)).toBe(201);
    const created = await post<Json>(stack.app, `/v1/suites/${suite.body.id}/runs`, auth);
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const run = await waitForRun(stack.app, auth, created.body.id, 120_000);
    expect(run.status, JSON.stringify(run.failure_reason ?? run.retry_history)).toBe('success');
    const verdict = await get<Json>(stack.app, `/v1/runs/${run.id}/verdict`, auth);
    expect(verdict.status).toBe(200);
    const targetId = (role: string) => run.targets.find((t: Json) => t.role === role).id as string;
    const samples = async (role: string) => {
      const all: Json[] = [];
      for (;;) {
        const page = await get<{ data: Json[]; pagination: Json }>(stack.app, `/v1/runs/${run.id}/samples?limit=200&offset=${all.length}&target_id=${targetId(role)}`, auth);
        expect(page.status).toBe(200);
        all.push(...page.body.data);
        if (!page.body.pagination.has_more) return all;
      }
    };
    const [row] = await stack.sql<{ pinned_block: string | null }[]>`select pinned_block from runs where id = ${run.id}`;
    return { run, verdict: verdict.body, samples, pinned: row!.pinned_block === null ? null : Number(row!.pinned_block), correctness: verdict.body.checks.find((c: Json) => c.name === 'correctness') };
  }

  const workload = (methods: Json[], requests: number, blockLag: number) => ({
    workload: { methods, requests_per_target: requests, concurrency: 4, warmup_requests: 2, timeout_ms: 5_000, block_lag: blockLag },
    thresholds: { correctness_enabled: true, correctness_min_pct: 100, latency_p95_max_ms: 5_000, latency_vs_reference_max_pct: 10_000 },
  });

  it('validator and full node of one chain: the cometbft-standard preset\'s reads at a pinned height answer ok everywhere and pass correctness', { timeout: 180_000 }, async () => {
    const { auth } = await stack.newTenant();
    const full = network.full!;
    await network.synced();
    // A full node trails its validator by one or two blocks (measured here: 1–2 at 500 ms blocks,
    // in consensus), so reads at the tip (status, abci_info, abci_query at height 0) differ between
    // the two whenever no head moved during the run: that case is the "behind" test's below (the
    // kvstore app answers abci_query with its latest state at any height). Here every read is at the
    // pinned height, 5 blocks back: the preset's pinned reads, tx_search, and reads by hash (the
    // pinned block's hash, re-read at planning time: "{{pinned_block_hash}}").
    const methods = [
      ...STANDARD.filter((m) => !['status', 'abci_info', 'abci_query'].includes(m.method)),
      { method: 'header_by_hash', params: ['{{pinned_block_hash}}'], weight: 5 },
      { method: 'block_by_hash', params: ['{{pinned_block_hash_base64}}'], weight: 5 },
    ];
    const { verdict, samples, pinned, correctness, run } = await runSuite(auth, full, network.validator, workload(methods, 180, 5));
    expect(pinned).not.toBeNull();
    const candidate = await samples('primary');
    expect(candidate).toHaveLength(180);
    const notOk = candidate.filter((s) => s.outcome !== 'ok');
    expect(notOk, JSON.stringify(notOk.slice(0, 3))).toEqual([]);
    expect(new Set(candidate.map((s) => s.method))).toEqual(new Set(methods.map((m) => m.method)));
    const [stored] = await stack.sql<{ pinned_context: Record<string, string> }[]>`select pinned_context from runs where id = ${run.id}`;
    const context = stored!.pinned_context;
    const meta = (await network.validator.rpc('blockchain', { minHeight: String(pinned), maxHeight: String(pinned) })) as { block_metas: { block_id: { hash: string } }[] };
    expect(context.pinned_block_hash).toBe(meta.block_metas[0]!.block_id.hash);
    expect(Buffer.from(context.pinned_block_hash_base64!, 'base64').toString('hex').toUpperCase()).toBe(meta.block_metas[0]!.block_id.hash);
    // Pinned block reads are equal on both nodes, every one.
    const pinnedSamples = candidate.filter((s) => PINNED_METHODS.includes(s.method));
    expect(pinnedSamples.length).toBeGreaterThan(0);
    expect(pinnedSamples.every((s) => s.matches_reference === true), JSON.stringify(pinnedSamples.filter((s) => s.matches_reference !== true).slice(0, 3))).toBe(true);
    expect(correctness.status, JSON.stringify(correctness)).toBe('pass');
    expect(correctness.details.mismatched).toBe(0);
    expect(verdict.verdict).toBe('pass');
    for (const evm of ['eth_', 'gwei', 'block tag']) expect(verdict.markdown_summary).not.toContain(evm);
  });

  it('a node of another chain (another genesis) fails correctness, naming the block reads', { timeout: 180_000 }, async () => {
    const { auth } = await stack.newTenant();
    // The other chain's validator must have every pinned height: it started alongside.
    await other.waitHeight(other.validator, (await network.validator.height()) + 1);
    const { correctness, verdict } = await runSuite(auth, other.validator, network.validator, workload(STANDARD, 120, 3));
    expect(correctness.status).toBe('fail');
    // Every pinned block read differs (another genesis, other blocks at the same heights): mismatches, named by method.
    const failing = new Set(correctness.details.mismatches_by_method.filter((m: Json) => m.mismatched > 0).map((m: Json) => m.method));
    for (const method of ['block', 'header', 'commit', 'validators']) expect(failing, JSON.stringify(correctness.details.mismatches_by_method)).toContain(method);
    expect(correctness.details.mismatches.map((m: Json) => m.method)).toEqual(expect.arrayContaining(['block', 'header']));
    expect(verdict.verdict).toBe('fail');
    for (const method of ['block', 'header']) expect(verdict.markdown_summary).toContain(method);
  });

  it('freshness over the NewBlock subscription measures a 300 ms delay proxy as 300 ms of arrival lag (p50 within ±20 ms)', { timeout: 180_000 }, async () => {
    const { auth } = await stack.newTenant();
    const proxy = await startWsLagProxy(network.validator.wsUrl, { delayMs: 300 });
    proxies.push(proxy);
    const { verdict } = await runSuite(auth, { url: network.validator.url, wsUrl: proxy.url }, network.validator, {
      workload: { methods: [{ method: 'status', params: [] }], requests_per_target: 20, concurrency: 2, warmup_requests: 1, timeout_ms: 5_000 },
      freshness: { duration_s: 12, grace_ms: 1_500 },
    });
    const freshness = verdict.freshness_comparison;
    expect(freshness).toMatchObject({ via: 'subscribe', duration_s: 12, resolution_ms: null, observer_gaps: [] });
    const [candidate] = freshness.candidates;
    console.log(`cometbft freshness: 300 ms proxy measured ${JSON.stringify({ heads: freshness.reference.heads, judged: candidate.judged, lags: candidate.lags, lag_ms: candidate.lag_ms })}`);
    expect(freshness.reference.heads).toBeGreaterThanOrEqual(8);
    expect(candidate.judged).toBeGreaterThanOrEqual(8);
    expect(candidate.missed).toBe(0);
    expect(Math.abs(candidate.lag_ms.p50.point - 300)).toBeLessThanOrEqual(20);
  });

  it('a node that pruned the blocks asked for: its "height H is not available, lowest height is B" is history depth (not comparable), never a mismatch nor skipped', { timeout: 180_000 }, async () => {
    const { auth } = await stack.newTenant();
    const lowest = (await network.validator.height()) - 1;
    const pruned = await startPruningProxy(network.validator.url, lowest);
    try {
      const methods = [
        { method: 'header', params: ['1'], weight: 1 },
        { method: 'header', params: [String(lowest)], weight: 1 },
      ];
      const { samples, correctness, run } = await runSuite(auth, { url: pruned.url }, network.validator, workload(methods, 40, 0));
      const candidate = await samples('primary');
      const below = candidate.filter((s) => s.method === 'header' && s.outcome === 'rpc_error');
      expect(below.length).toBeGreaterThan(0);
      // A failed call (availability counts it), told apart by its stored reason.
      const reasons = await stack.sql<{ reason: string | null }[]>`select distinct reason from run_samples where run_id = ${run.id} and outcome = 'rpc_error'`;
      expect(reasons).toEqual([{ reason: "beyond the node's history" }]);
      const { details } = correctness;
      expect(details.not_comparable_reasons, JSON.stringify(details)).toEqual({ context_slot: 0, history_depth: below.length });
      expect(details.mismatched).toBe(0);
      expect(details.matched).toBe(candidate.filter((s) => s.outcome === 'ok').length);
      expect(correctness.status).toBe('pass');
    } finally {
      await pruned.close();
    }
  });

  // Last: the full node is cut off from its peer for good.
  it('a full node a few blocks behind: pinned reads above its head are "behind", a pinned read below matches, tip reads are excused only where a head moved', { timeout: 180_000 }, async () => {
    const { auth } = await stack.newTenant();
    const stuckAt = await network.isolateFull();
    await network.waitHeight(network.validator, stuckAt + 3);
    const methods = [
      { method: 'status', params: [], weight: 2 },
      { method: 'abci_info', params: [], weight: 2 },
      // Pinned at the reference's head (block_lag 0): above the candidate's.
      { method: 'block', params: ['{{pinned_height}}'], weight: 2 },
      { method: 'header', params: [String(stuckAt - 1)], weight: 2 },
    ];
    const { samples, correctness, pinned, run } = await runSuite(auth, network.full!, network.validator, workload(methods, 80, 0));
    expect(pinned).toBeGreaterThan(stuckAt);
    const candidate = await samples('primary');
    const byMethod = (m: string) => candidate.filter((s) => s.method === m);
    // Above the node's head: CometBFT's "must be less than or equal to the current blockchain height", read as behind.
    expect(byMethod('block').every((s) => s.outcome === 'behind'), JSON.stringify(byMethod('block').slice(0, 2))).toBe(true);
    expect(byMethod('header').every((s) => s.outcome === 'ok' && s.matches_reference === true)).toBe(true);
    // Tip reads of a node behind never equal the reference's: each differing pair is excused
    // (inconclusive) only where a recorded head moved around it, else it is a mismatch. Only tip
    // reads differ; the pinned header always matches.
    const { details } = correctness;
    const tipPairs = candidate.filter((s) => (s.method === 'status' || s.method === 'abci_info') && s.outcome === 'ok').length;
    expect(details.inconclusive + details.mismatched, JSON.stringify(details)).toBe(tipPairs);
    for (const m of details.mismatches_by_method) if (m.mismatched > 0) expect(['abci_info', 'status']).toContain(m.method);
    expect(details.matched).toBe(byMethod('header').length);
    const heads = await stack.sql<{ target_id: string; head: string }[]>`select target_id, head from run_heads where run_id = ${run.id}`;
    const moved = new Set(heads.map((h) => `${h.target_id}:${h.head}`)).size > new Set(heads.map((h) => h.target_id)).size;
    console.log(`cometbft behind: ${JSON.stringify({ stuckAt, pinned, inconclusive: details.inconclusive, mismatched: details.mismatched, headReads: heads.length, moved })}`);
    // No recorded head moved: nothing may be excused.
    if (!moved) expect(details.inconclusive).toBe(0);

    // The same node asked over 3 s (open loop, 20/s) while the reference makes ~6 blocks: its
    // recorded head moves around the calls, and their differences are excused, not mismatches.
    const slow = await runSuite(auth, network.full!, network.validator, {
      ...workload(methods.filter((m) => m.method !== 'block'), 60, 0),
      workload: { methods: methods.filter((m) => m.method !== 'block'), requests_per_target: 60, rate_per_second: 20, concurrency: 2, warmup_requests: 0, timeout_ms: 5_000, block_lag: 0 },
    });
    const slowHeads = await stack.sql<{ target_id: string; head: string }[]>`select target_id, head from run_heads where run_id = ${slow.run.id}`;
    console.log(`cometbft behind over 3 s: ${JSON.stringify({ inconclusive: slow.correctness.details.inconclusive, mismatched: slow.correctness.details.mismatched, headReads: slowHeads.length })}`);
    expect(new Set(slowHeads.map((h) => h.head)).size).toBeGreaterThan(2);
    expect(slow.correctness.details.inconclusive, JSON.stringify(slow.correctness.details)).toBeGreaterThan(0);
    for (const m of slow.correctness.details.mismatches_by_method) if (m.mismatched > 0) expect(['abci_info', 'status']).toContain(m.method);
  });
});
