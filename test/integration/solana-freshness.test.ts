import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { get, post, waitForRun } from '../helpers/api';
import { SOLANA_EXAMPLES, type SolanaReplayNode, type SolanaReplayOptions, replayNodePool } from '../helpers/solana-replay-node';
import { startStack, type Stack } from '../helpers/stack';

/*
 * A Solana node that lags, seen by freshness rather than correctness, against replay nodes: its
 * -32016 answers to a minContextSlot it has not reached are `behind` samples (out of the
 * correctness tally, counted in the stats), and a head watch polling getSlot measures its lag.
 */

type Json = Record<string, any>;
type Auth = { authorization: string };

const PUBKEY = (SOLANA_EXAMPLES.getBalance!.params as string[])[0]!;
const FROZEN = 341_197_330;
/** The finalized slot of a frozen node: 32 below its processed slot. */
const FINALIZED = FROZEN - 32;

describe('solana freshness against replay nodes', () => {
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

  async function runSuite(auth: Auth, candidate: SolanaReplayNode, reference: SolanaReplayNode, config: Json) {
    const chain = await post<Json>(stack.app, '/v1/chains', auth, { name: 'Replay', slug: `replay-${Date.now()}-${Math.random().toString(36).slice(2)}`, family: 'solana' });
    const endpoint = async (name: string, node: SolanaReplayNode) =>
      (await post<Json>(stack.app, '/v1/endpoints', auth, { chain_id: chain.body.id, name, url: node.url, ws_url: node.wsUrl, timeout_ms: 5_000 })).body.id as string;
    const suite = await post<Json>(stack.app, '/v1/suites', auth, {
      chain_id: chain.body.id,
      name: 'solana freshness',
      config: {
        targets: [{ endpoint_id: await endpoint('candidate', candidate) }],
        reference_endpoint_id: await endpoint('reference', reference),
        thresholds: { correctness_enabled: true, correctness_min_pct: 100, latency_p95_max_ms: 5_000, latency_vs_reference_max_pct: 10_000 },
        ...config,
      },
    });
    expect(suite.status, JSON.stringify(suite.body)).toBe(201);
    const created = await post<Json>(stack.app, `/v1/suites/${suite.body.id}/runs`, auth);
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const run = await waitForRun(stack.app, auth, created.body.id, 90_000);
    const verdict = (await get<Json>(stack.app, `/v1/runs/${run.id}/verdict`, auth)).body;
    return { run, verdict, check: (name: string) => verdict.checks.find((c: Json) => c.name === name) };
  }

  it('-32016 answers of a lagging node are behind samples: out of the correctness tally, counted in the stats', async () => {
    const { auth } = await stack.newTenant();
    const reference = await node({ frozenSlot: FROZEN });
    const candidate = await node({ frozenSlot: FROZEN, lagSlots: 3 });
    const methods = [
      // The reference's finalized slot: the candidate, 3 slots behind, has not reached it.
      { method: 'getBalance', params: [PUBKEY, { minContextSlot: FINALIZED }], weight: 1 },
      // A finalized block: no context slot, compared exactly (a getBalance without minContextSlot
      // would be answered at two slots 3 apart: not comparable, see solana-context-slots.test.ts).
      { method: 'getBlock', params: SOLANA_EXAMPLES.getBlock!.params, weight: 1 },
    ];
    const { run, verdict, check } = await runSuite(auth, candidate, reference, { workload: { methods, requests_per_target: 60, concurrency: 2, warmup_requests: 0 } });
    expect(run.status, JSON.stringify(run.retry_history)).toBe('success');
    const samples = (await get<{ data: Json[] }>(stack.app, `/v1/runs/${run.id}/samples?limit=200&target_id=${run.targets.find((t: Json) => t.role === 'primary').id}`, auth)).body.data;
    const behind = samples.filter((s) => s.outcome === 'behind');
    expect(behind.length).toBeGreaterThan(0);
    for (const s of behind) expect(s).toMatchObject({ method: 'getBalance', rpc_error_code: -32016, matches_reference: null });
    // The reference answers every getBalance, at its own slot; the candidate's own answers are
    // only the getBlock ones, so no getBalance pair is compared.
    expect(samples.filter((s) => s.outcome !== 'behind' && s.outcome !== 'ok')).toEqual([]);
    const filtered = await get<{ data: Json[] }>(stack.app, `/v1/runs/${run.id}/samples?limit=200&outcome=behind`, auth);
    expect(filtered.status).toBe(200);
    expect(filtered.body.data.length).toBe(behind.length);
    const correctness = check('correctness');
    expect(correctness.status, JSON.stringify(correctness)).toBe('pass');
    expect(correctness.details).toMatchObject({ compared: 60 - behind.length, mismatched: 0, not_comparable: 0 });
    expect(run.stats.calls).toMatchObject({ total: 60, failed: behind.length, behind: behind.length });
    // Said where the verdict lists outcomes: the availability check (the CLI's and JUnit's lines
    // are its message) and the Markdown's endpoint table.
    expect(check('availability').details.behind).toBe(behind.length);
    expect(check('availability').message).toContain(`${behind.length} of the failed ones behind`);
    expect(verdict.markdown_summary).toContain(`| ${behind.length} (${behind.length} behind) |`);
    expect(verdict.markdown_summary).toContain('**behind**');
  });

  it('a head watch polling getSlot measures a 2-slot lag (800 ms at 400 ms slots)', { timeout: 120_000 }, async () => {
    const { auth } = await stack.newTenant();
    const genesisMs = Date.now();
    const reference = await node({ genesisMs });
    const candidate = await node({ genesisMs, lagSlots: 2 });
    const { verdict } = await runSuite(auth, candidate, reference, {
      workload: { methods: [{ method: 'getSlot', params: [] }], requests_per_target: 10, concurrency: 1, warmup_requests: 0 },
      freshness: { duration_s: 8, via: 'poll', poll_interval_ms: 100, grace_ms: 2_000 },
    });
    const freshness = verdict.freshness_comparison;
    expect(freshness).toMatchObject({ via: 'poll', resolution_ms: 100 });
    const [lagging] = freshness.candidates;
    console.log(`solana freshness: 2 slots behind ${JSON.stringify({ judged: lagging.judged, missed: lagging.missed, lag_ms: lagging.lag_ms?.p50 })}`);
    expect(lagging.judged).toBeGreaterThanOrEqual(10);
    expect(lagging.missed).toBe(0);
    expect(lagging.lag_ms.p50.point).toBeGreaterThanOrEqual(400);
    expect(lagging.lag_ms.p50.point).toBeLessThanOrEqual(1_600);
    // The suite names no commitment: the watch reads the confirmed slot, the probes' head reads
    // (and the pinned slot) the finalized one.
    const slotReads = reference.requests.filter((r) => r.method === 'getSlot').map((r) => JSON.stringify(r.params));
    expect(slotReads).toContain(JSON.stringify([{ commitment: 'confirmed' }]));
    expect(slotReads).toContain(JSON.stringify([{ commitment: 'finalized' }]));
    for (const params of slotReads) expect(['[{"commitment":"confirmed"}]', '[{"commitment":"finalized"}]', '[]']).toContain(params);
  });

  it('a head watch subscribing to slots (slotSubscribe) measures a 2-slot lag (800 ms at 400 ms slots)', { timeout: 120_000 }, async () => {
    const { auth } = await stack.newTenant();
    const genesisMs = Date.now();
    const reference = await node({ genesisMs });
    const candidate = await node({ genesisMs, lagSlots: 2 });
    const { verdict } = await runSuite(auth, candidate, reference, {
      workload: { methods: [{ method: 'getSlot', params: [] }], requests_per_target: 10, concurrency: 1, warmup_requests: 0 },
      freshness: { duration_s: 8, via: 'subscribe', grace_ms: 2_000 },
    });
    const freshness = verdict.freshness_comparison;
    expect(freshness).toMatchObject({ via: 'subscribe', resolution_ms: null });
    const [lagging] = freshness.candidates;
    console.log(`solana freshness (subscribe): 2 slots behind ${JSON.stringify({ judged: lagging.judged, missed: lagging.missed, lag_ms: lagging.lag_ms?.p50 })}`);
    // 8 s of 400 ms slots: about 20 slots announced by the reference.
    expect(lagging.judged).toBeGreaterThanOrEqual(10);
    expect(lagging.missed).toBe(0);
    expect(lagging.lag_ms.p50.point).toBeGreaterThanOrEqual(400);
    expect(lagging.lag_ms.p50.point).toBeLessThanOrEqual(1_600);
    // Confirmed (the default watch level) is watched through slotSubscribe; nothing polled the slot for the watch.
    for (const n of [reference, candidate]) {
      expect(n.requests.filter((r) => r.method === 'slotSubscribe').length).toBeGreaterThanOrEqual(1);
      expect(n.requests.some((r) => r.method === 'getSlot' && JSON.stringify(r.params) === '[{"commitment":"confirmed"}]')).toBe(false);
    }
  });
});
