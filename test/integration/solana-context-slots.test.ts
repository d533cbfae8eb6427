import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { get, post, waitForRun } from '../helpers/api';
import { SOLANA_EXAMPLES, type SolanaReplayNode, type SolanaReplayOptions, replayNodePool, EXAMPLE_ACCOUNT_READS } from '../helpers/solana-replay-node';
import { startStack, type Stack } from '../helpers/stack';

/*
 * Answers carrying `context.slot` are compared only at one slot (DESIGN.md §11), end to end
 * against replay nodes: a candidate 3 slots behind a ticking reference answers every account read
 * at another slot, the re-check re-asks both sides with minContextSlot until they answer at one
 * slot and compares there (matched, never a mismatch); a candidate frozen 3 slots behind never
 * reaches the slot, and its pairs are counted not comparable, neither match nor mismatch. A
 * candidate whose ledger starts after the asked block answers -32001 and a shorter signature
 * list: not comparable for history depth, neither match nor mismatch.
 */

type Json = Record<string, any>;
type Auth = { authorization: string };

const example = (method: string) => SOLANA_EXAMPLES[method]!;
const [PUBKEY_A] = example('getMultipleAccounts').params[0] as string[];
const ACCOUNT_READS = EXAMPLE_ACCOUNT_READS;
const CONTEXT_METHODS = new Set(ACCOUNT_READS.map((m) => m.method));

describe('solana answers at different context slots', () => {
  let stack: Stack;
  const pool = replayNodePool();

  beforeAll(async () => {
    stack = await startStack();
  });
  afterAll(async () => {
    await pool.closeAll();
    await stack?.close();
  });

  const node = (options: SolanaReplayOptions) => pool.start(options);

  async function runSuite(auth: Auth, candidate: SolanaReplayNode, reference: SolanaReplayNode, methods: Json[], requests: number) {
    const chain = await post<Json>(stack.app, '/v1/chains', auth, { name: 'Replay', slug: `replay-${Date.now()}-${Math.random().toString(36).slice(2)}`, family: 'solana' });
    const endpoint = async (name: string, url: string) => (await post<Json>(stack.app, '/v1/endpoints', auth, { chain_id: chain.body.id, name, url, timeout_ms: 5_000 })).body.id as string;
    const suite = await post<Json>(stack.app, '/v1/suites', auth, {
      chain_id: chain.body.id,
      name: 'solana context slots',
      config: {
        targets: [{ endpoint_id: await endpoint('candidate', candidate.url) }],
        reference_endpoint_id: await endpoint('reference', reference.url),
        workload: { methods, requests_per_target: requests, concurrency: 2, warmup_requests: 0, timeout_ms: 5_000 },
        thresholds: { correctness_enabled: true, correctness_min_pct: 100, latency_p95_max_ms: 5_000, latency_vs_reference_max_pct: 10_000 },
      },
    });
    expect(suite.status, JSON.stringify(suite.body)).toBe(201);
    const created = await post<Json>(stack.app, `/v1/suites/${suite.body.id}/runs`, auth);
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const run = await waitForRun(stack.app, auth, created.body.id, 120_000);
    expect(run.status, JSON.stringify(run.retry_history)).toBe('success');
    const verdict = (await get<Json>(stack.app, `/v1/runs/${run.id}/verdict`, auth)).body;
    const samples = (await get<{ data: Json[] }>(stack.app, `/v1/runs/${run.id}/samples?limit=200&target_id=${run.targets.find((t: Json) => t.role === 'primary').id}`, auth)).body.data;
    return { verdict, samples, correctness: verdict.checks.find((c: Json) => c.name === 'correctness') };
  }

  it('a candidate 3 slots behind: every pair at different slots is re-asked at one slot and matches there, never a mismatch', { timeout: 180_000 }, async () => {
    const { auth } = await stack.newTenant();
    const genesisMs = Date.now();
    const reference = await node({ genesisMs, slotMs: 400 });
    const candidate = await node({ genesisMs, slotMs: 400, lagSlots: 3 });
    const { correctness, samples } = await runSuite(auth, candidate, reference, ACCOUNT_READS, 30);
    expect(samples.filter((s) => s.outcome !== 'ok')).toEqual([]);
    // Every account read was answered at two slots 3 apart: none compared as sampled.
    for (const s of samples) expect(s.matches_reference, s.method).toBeNull();
    expect(correctness.details, JSON.stringify(correctness)).toMatchObject({
      mismatched: 0,
      not_comparable: 0,
      context_rechecked: 30,
      context_resolved: 30,
      context_confirmed: 0,
      compared: 30,
      matched: 30,
    });
    expect(correctness.status).toBe('pass');
    expect(correctness.message).toContain('30 pairs at different context slots re-asked at one slot: 30 resolved, 0 confirmed');
    // The candidate behind was asked with minContextSlot above its slot and answered -32016 until it got there.
    const reasked = candidate.requests.filter((r) => CONTEXT_METHODS.has(r.method) && r.params.some((p) => p !== null && typeof p === 'object' && 'minContextSlot' in p));
    expect(reasked.length).toBeGreaterThan(30);
  });

  it('a candidate frozen 3 slots behind never reaches the slot: its pairs are not comparable, neither match nor mismatch', { timeout: 180_000 }, async () => {
    const { auth } = await stack.newTenant();
    const reference = await node({ frozenSlot: 341_197_400 });
    const candidate = await node({ frozenSlot: 341_197_400, lagSlots: 3 });
    const methods = [{ method: 'getBalance', params: [PUBKEY_A], weight: 1 }, { method: 'getBlock', params: example('getBlock').params, weight: 1 }];
    const { correctness, samples, verdict } = await runSuite(auth, candidate, reference, methods, 24);
    const balances = samples.filter((s) => s.method === 'getBalance').length;
    expect(balances).toBeGreaterThan(0);
    expect(correctness.details, JSON.stringify(correctness)).toMatchObject({
      mismatched: 0,
      not_comparable: balances,
      context_rechecked: balances,
      context_resolved: 0,
      context_confirmed: 0,
      compared: 24 - balances,
      matched: 24 - balances,
      skipped: 0,
    });
    // Judged on the getBlock pairs alone: the not comparable ones do not count against the rate.
    expect(correctness.status).toBe('pass');
    expect(correctness.message).toContain(`${balances} not comparable (answered at different context slots)`);
    expect(verdict.markdown_summary).toContain(`${balances} not comparable`);
  });

  it('a candidate whose ledger starts after the asked block: its -32001 and its shorter signature list are not comparable (history depth), never a mismatch; a lie in what both hold still fails', { timeout: 180_000 }, async () => {
    const { auth } = await stack.newTenant();
    const block = example('getBlock').params[0] as number;
    const methods = [
      { method: 'getBalance', params: [PUBKEY_A], weight: 1 },
      { method: 'getBlock', params: example('getBlock').params, weight: 1 },
      // The example's one signature is at slot 114, below the shorter ledger: that node answers [].
      { method: 'getSignaturesForAddress', params: example('getSignaturesForAddress').params, weight: 1 },
    ];
    const reference = await node({ frozenSlot: 341_197_400 });
    const shorter = await node({ frozenSlot: 341_197_400, firstAvailableBlock: block + 1 });
    const { correctness, samples, verdict } = await runSuite(auth, shorter, reference, methods, 30);
    const count = (method: string) => samples.filter((s) => s.method === method).length;
    const [blocks, lists] = [count('getBlock'), count('getSignaturesForAddress')];
    expect(blocks).toBeGreaterThan(0);
    expect(lists).toBeGreaterThan(0);
    for (const s of samples.filter((x) => x.method === 'getBlock')) expect(s, JSON.stringify(s)).toMatchObject({ outcome: 'rpc_error', rpc_error_code: -32001, matches_reference: null });
    // The shorter list differs from the reference's as sampled; the re-ask found it a strict prefix.
    for (const s of samples.filter((x) => x.method === 'getSignaturesForAddress')) expect(s, JSON.stringify(s)).toMatchObject({ outcome: 'ok', matches_reference: false });
    expect(correctness.details, JSON.stringify(correctness)).toMatchObject({
      mismatched: 0,
      inconclusive: 0,
      not_comparable: blocks + lists,
      not_comparable_reasons: { context_slot: 0, history_depth: blocks + lists },
      skipped: 0,
      compared: 30 - blocks - lists,
      matched: 30 - blocks - lists,
      mismatches_by_method: [],
    });
    expect(correctness.status).toBe('pass');
    expect(correctness.message).toContain(`${blocks + lists} not comparable (history depth`);
    expect(verdict.markdown_summary).toContain(`${blocks + lists} not comparable (history depth`);

    // The same shorter ledger, lying about a balance both hold: the history is excused, the lie is not.
    const liar = await node({ frozenSlot: 341_197_400, firstAvailableBlock: block + 1, lamportsDelta: 1 });
    const lied = await runSuite(auth, liar, reference, methods, 30);
    const liedCount = (method: string) => lied.samples.filter((s) => s.method === method).length;
    expect(lied.correctness.details, JSON.stringify(lied.correctness)).toMatchObject({
      mismatched: liedCount('getBalance'),
      matched: 0,
      not_comparable_reasons: { context_slot: 0, history_depth: liedCount('getBlock') + liedCount('getSignaturesForAddress') },
    });
    expect(lied.correctness.status).toBe('fail');
    expect(lied.correctness.details.mismatches_by_method.map((m: Json) => m.method)).toEqual(['getBalance']);
    expect(lied.verdict.verdict).toBe('fail');
  });

  it('a lying candidate 3 slots behind: every pair is re-asked at one slot, still differs there, and is listed naming the method and path', { timeout: 180_000 }, async () => {
    const { auth } = await stack.newTenant();
    const genesisMs = Date.now();
    const reference = await node({ genesisMs, slotMs: 400 });
    const liar = await node({ genesisMs, slotMs: 400, lagSlots: 3, lamportsDelta: 1 });
    const { correctness, verdict } = await runSuite(auth, liar, reference, ACCOUNT_READS, 18);
    expect(correctness.details, JSON.stringify(correctness)).toMatchObject({
      mismatched: 18,
      not_comparable: 0,
      context_rechecked: 18,
      context_confirmed: 18,
      context_resolved: 0,
      compared: 18,
      matched: 0,
    });
    expect(verdict).toMatchObject({ verdict: 'fail', exit_code: 1 });
    expect(correctness.details.mismatches_by_method.map((m: Json) => m.method).sort()).toEqual(['getAccountInfo', 'getBalance', 'getMultipleAccounts']);
    // Listed as re-asked: with minContextSlot, the differences read from both sides again.
    const listed = (method: string) => correctness.details.mismatches.find((m: Json) => m.method === method);
    for (const method of CONTEXT_METHODS) {
      const config = (listed(method).params as unknown[]).find((p) => p !== null && typeof p === 'object' && !Array.isArray(p)) as Json;
      expect(config.minContextSlot, method).toEqual(expect.any(Number));
      expect(listed(method).differences_status, method).toBe('shown');
    }
    expect(listed('getBalance').differences.map((d: Json) => d.path)).toEqual(['$.value']);
    expect(listed('getAccountInfo').differences.map((d: Json) => d.path)).toEqual(['$.value.lamports']);
    expect(listed('getMultipleAccounts').differences.map((d: Json) => d.path)).toEqual(['$.value[0].lamports', '$.value[1].lamports']);
  });
});
