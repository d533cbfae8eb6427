import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { post, waitForRun } from '../helpers/api';
import { SOLANA_EXAMPLES, type SolanaReplayNode, replayNodePool } from '../helpers/solana-replay-node';
import { startStack, type Stack } from '../helpers/stack';

/*
 * config.commitment end to end against replay nodes: the head is read and "{{commitment}}" is sent
 * at the suite's level (finalized when it names none), and a chain family without commitment
 * levels refuses the field.
 */

type Json = Record<string, any>;
type Auth = { authorization: string };

const PUBKEY = (SOLANA_EXAMPLES.getBalance!.params as string[])[0]!;
const METHODS = [
  { method: 'getSlot', params: [{ commitment: '{{commitment}}' }], weight: 1 },
  { method: 'getBalance', params: [PUBKEY, { commitment: '{{commitment}}' }], weight: 1 },
  // A pinned read: the plan step reads the head too.
  { method: 'getBlock', params: ['{{pinned_slot}}', { commitment: 'finalized', maxSupportedTransactionVersion: 0 }], weight: 1 },
];

describe('solana commitment levels', () => {
  let stack: Stack;
  const pool = replayNodePool();

  beforeAll(async () => {
    stack = await startStack();
  });
  afterAll(async () => {
    await pool.closeAll();
    await stack?.close();
  });

  async function suiteOn(auth: Auth, family: string, extra: Json) {
    const chain = await post<Json>(stack.app, '/v1/chains', auth, { name: 'C', slug: `c-${Date.now()}-${Math.random().toString(36).slice(2)}`, family, ...(family === 'evm' ? { chain_id: 31337 } : {}) });
    expect(chain.status, JSON.stringify(chain.body)).toBe(201);
    const [a, b] = [await pool.start({ frozenSlot: 341_197_330 }), await pool.start({ frozenSlot: 341_197_330 })];
    const endpoint = async (name: string, url: string) => (await post<Json>(stack.app, '/v1/endpoints', auth, { chain_id: chain.body.id, name, url, timeout_ms: 5_000 })).body.id as string;
    const suite = await post<Json>(stack.app, '/v1/suites', auth, {
      chain_id: chain.body.id,
      name: 'commitment',
      config: {
        targets: [{ endpoint_id: await endpoint('candidate', a.url) }],
        reference_endpoint_id: await endpoint('reference', b.url),
        workload: { methods: family === 'evm' ? [{ method: 'eth_blockNumber' }] : METHODS, requests_per_target: 30, concurrency: 2, warmup_requests: 0, block_lag: 5 },
        thresholds: { correctness_enabled: true, correctness_min_pct: 100, latency_p95_max_ms: 5_000, latency_vs_reference_max_pct: 10_000 },
        ...extra,
      },
    });
    return { suite, nodes: [a, b] as const };
  }

  async function run(auth: Auth, suiteId: string) {
    const created = await post<Json>(stack.app, `/v1/suites/${suiteId}/runs`, auth);
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    return waitForRun(stack.app, auth, created.body.id, 60_000);
  }

  const levelsSent = (node: SolanaReplayNode, method: string) => new Set(node.requests.filter((r) => r.method === method).map((r) => JSON.stringify(r.params)));

  it('reads the head and sends "{{commitment}}" at the suite level', async () => {
    const { auth } = await stack.newTenant();
    const { suite, nodes: [candidate, reference] } = await suiteOn(auth, 'solana', { commitment: 'confirmed' });
    expect(suite.status, JSON.stringify(suite.body)).toBe(201);
    expect(suite.body.config.commitment).toBe('confirmed');
    const done = await run(auth, suite.body.id);
    expect(done.status, JSON.stringify(done.retry_history)).toBe('success');
    for (const node of [candidate, reference]) {
      expect(JSON.stringify(node.requests)).not.toContain('{{commitment}}');
      expect(levelsSent(node, 'getSlot')).toEqual(new Set([JSON.stringify([{ commitment: 'confirmed' }])]));
      expect(levelsSent(node, 'getBalance')).toEqual(new Set([JSON.stringify([PUBKEY, { commitment: 'confirmed' }])]));
    }
    // Pinned at the confirmed head (the frozen processed slot − 1) − block_lag, not the finalized one.
    expect(levelsSent(reference, 'getBlock')).toEqual(new Set([JSON.stringify([reference.slotAt('confirmed') - 5, { commitment: 'finalized', maxSupportedTransactionVersion: 0 }])]));
  });

  it('reads at finalized when the suite names no level', async () => {
    const { auth } = await stack.newTenant();
    const { suite, nodes: [candidate] } = await suiteOn(auth, 'solana', {});
    expect(suite.status, JSON.stringify(suite.body)).toBe(201);
    expect(suite.body.config).not.toHaveProperty('commitment');
    expect((await run(auth, suite.body.id)).status).toBe('success');
    expect(levelsSent(candidate, 'getSlot')).toEqual(new Set([JSON.stringify([{ commitment: 'finalized' }])]));
    expect(levelsSent(candidate, 'getBalance')).toEqual(new Set([JSON.stringify([PUBKEY, { commitment: 'finalized' }])]));
  });

  it('refuses config.commitment on a family without commitment levels', async () => {
    const { auth } = await stack.newTenant();
    const { suite } = await suiteOn(auth, 'evm', { commitment: 'finalized' });
    expect(suite.status).toBe(400);
    expect(suite.body.error.details).toEqual([{ field: 'config.commitment', message: 'chains of family "evm" have no commitment levels' }]);
  });
});
