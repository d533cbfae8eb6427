import { afterEach, describe, expect, it } from 'vitest';
import { SOLANA_EXAMPLES, startSolanaReplayNode, type SolanaReplayNode, type SolanaReplayOptions } from '../../../helpers/solana-replay-node';

/*
 * The replay node answers each recorded request with the published answer: a node frozen at the
 * slot the example's context names (at the commitment it asks, finalized by default) gives the
 * example's result, as JSON, for every recorded method.
 */

type Json = Record<string, any>;
const FINALIZED_DEPTH = 32;

async function rpc(node: SolanaReplayNode, method: string, params: unknown[]): Promise<Json> {
  const response = await fetch(node.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) });
  return (await response.json()) as Json;
}

/** The options that put a frozen node where the example was recorded. */
function recordedAt(method: string): SolanaReplayOptions {
  const { params, result } = SOLANA_EXAMPLES[method]!;
  const config = params.find((p): p is Json => p !== null && typeof p === 'object' && !Array.isArray(p) && 'commitment' in p);
  const depth = config?.commitment === 'processed' ? 0 : config?.commitment === 'confirmed' ? 1 : FINALIZED_DEPTH;
  const context = (result as Json | null)?.context as Json | undefined;
  if (context) return { frozenSlot: context.slot + depth, apiVersion: context.apiVersion ?? null };
  if (method === 'getSlot') return { frozenSlot: (result as number) + depth };
  if (method === 'getBlockHeight') return { frozenSlot: (result as number) + 1 + depth, heightGap: 1 };
  if (method === 'getEpochInfo') {
    const info = result as Json;
    return { frozenSlot: info.absoluteSlot + depth, heightGap: info.absoluteSlot - info.blockHeight, transactionCount: info.transactionCount };
  }
  return {};
}

describe('the Solana replay node', () => {
  const nodes: SolanaReplayNode[] = [];
  afterEach(async () => {
    await Promise.all(nodes.splice(0).map((n) => n.close()));
  });
  const start = async (options: SolanaReplayOptions) => {
    const node = await startSolanaReplayNode(options);
    nodes.push(node);
    return node;
  };

  it('records the methods a Solana verifier reads', () => {
    expect(Object.keys(SOLANA_EXAMPLES).sort()).toEqual(
      [
        'getAccountInfo', 'getBalance', 'getBlock', 'getBlockHeight', 'getEpochInfo', 'getHealth', 'getLatestBlockhash', 'getMultipleAccounts',
        'getProgramAccounts', 'getSignatureStatuses', 'getSignaturesForAddress', 'getSlot', 'getTokenAccountsByOwner', 'getTransaction', 'getVersion',
      ].sort(),
    );
  });

  for (const [method, example] of Object.entries(SOLANA_EXAMPLES)) {
    it(`answers the published ${method} example with its published result`, async () => {
      const node = await start(recordedAt(method));
      const answer = await rpc(node, method, example.params);
      expect(answer).toEqual({ jsonrpc: '2.0', result: example.result, id: 1 });
      // Byte for byte, as far as JSON numbers go (u64::MAX rentEpoch is beyond a double's precision either way).
      expect(JSON.stringify(answer.result)).toBe(JSON.stringify(example.result));
    });
  }

  it('reads the slot at each commitment level, and puts that slot in the context', async () => {
    const node = await start({ frozenSlot: 1000, depth: { confirmed: 1, finalized: 32 } });
    expect((await rpc(node, 'getSlot', [{ commitment: 'processed' }])).result).toBe(1000);
    expect((await rpc(node, 'getSlot', [{ commitment: 'confirmed' }])).result).toBe(999);
    expect((await rpc(node, 'getSlot', [])).result).toBe(968);
    expect((await rpc(node, 'getBalance', ['vines1vzrYbzLMRdu58ou5XTby4qAqVRLmqo36NKPTg', { commitment: 'confirmed' }])).result).toEqual({
      context: { apiVersion: '2.0.15', slot: 999 },
      value: 88849814690250,
    });
  });

  it('answers a minContextSlot above its slot with -32016, and one at or below it normally', async () => {
    const node = await start({ frozenSlot: 1000 });
    expect(await rpc(node, 'getBalance', ['vines1vzrYbzLMRdu58ou5XTby4qAqVRLmqo36NKPTg', { minContextSlot: 969 }])).toEqual({
      jsonrpc: '2.0',
      error: { code: -32016, message: 'Minimum context slot has not been reached', data: { contextSlot: 968 } },
      id: 1,
    });
    expect((await rpc(node, 'getBalance', ['vines1vzrYbzLMRdu58ou5XTby4qAqVRLmqo36NKPTg', { minContextSlot: 968 }])).result.value).toBe(88849814690250);
  });

  it('ticks a slot every slotMs, behind by its lag, and skips slots without growing the block height', async () => {
    const genesisMs = Date.now();
    const [a, b] = [await start({ genesisMs, startSlot: 5000, slotMs: 50 }), await start({ genesisMs, startSlot: 5000, slotMs: 50, lagSlots: 3 })];
    const [slotA, slotB] = [a.slotAt('processed'), b.slotAt('processed')];
    expect(slotA - slotB).toBe(3);
    await new Promise((resolve) => setTimeout(resolve, 220));
    expect(a.slotAt('processed')).toBeGreaterThanOrEqual(slotA + 4);
    const skipping = await start({ frozenSlot: 110, skipEvery: 10, depth: { confirmed: 1, finalized: 0 } });
    expect((await rpc(skipping, 'getSlot', [])).result).toBe(109);
    expect((await rpc(skipping, 'getBlockHeight', [])).result).toBe(109 - 1 - 10);
  });

  it('lies when told: lamports altered, an account dropped; and orders getProgramAccounts differently when told', async () => {
    const [pubkeyA, pubkeyB] = SOLANA_EXAMPLES.getMultipleAccounts!.params[0] as string[];
    const liar = await start({ frozenSlot: 1000, lamportsDelta: 1, dropAccount: true });
    expect((await rpc(liar, 'getBalance', [pubkeyA])).result.value).toBe(88849814690251);
    expect((await rpc(liar, 'getMultipleAccounts', [[pubkeyA, pubkeyB]])).result.value[1]).toBeNull();
    const extra = [{ pubkey: '11111111111111111111111111111112', account: { data: '', executable: false, lamports: 1, owner: '4Nd1mBQtrMJVYVfKf2PJy9NZUZdTAsp7D4xWLs4gDB4T', rentEpoch: 28, space: 0 } }];
    const honest = await start({ frozenSlot: 1000, extraProgramAccounts: extra });
    const shuffled = await start({ frozenSlot: 1000, extraProgramAccounts: extra, shuffleProgramAccounts: true });
    const params = SOLANA_EXAMPLES.getProgramAccounts!.params;
    const [inOrder, reversed] = [(await rpc(honest, 'getProgramAccounts', params)).result, (await rpc(shuffled, 'getProgramAccounts', params)).result];
    expect(inOrder.map((e: Json) => e.pubkey)).toEqual(['CxELquR1gPP8wHe33gZ4QxqGB3sZ9RSwsJ2KshVewkFY', '11111111111111111111111111111112']);
    expect(reversed).toEqual([...inOrder].reverse());
  });
});
