import { describe, expect, it } from 'vitest';
import { bitcoinAdapter } from '../../../../src/chains/bitcoin';
import { BITCOIN_WORKLOAD_PRESETS } from '../../../../src/chains/bitcoin/presets';
import { CHAINS, needsPinContext, needsPinnedBlock, planRequests, renderParams, runPlanOf } from '../../../../src/chains/registry';
import { PinContextError, type PinCall } from '../../../../src/chains/types';
import { suiteConfigSchema } from '../../../../src/domain/suite-config';

/* The values a Bitcoin run reads beside its pinned height (the block's hash and a txid in it), and the templates they fill. */

const HASH = 'ab'.repeat(32);
const COINBASE = '01'.repeat(32);
const SPEND = '02'.repeat(32);

/** A node answering getblockhash and getblock from a table, recording what it was asked. */
function node(tx: unknown, hash: unknown = HASH.toUpperCase()) {
  const asked: [string, unknown[]][] = [];
  const call: PinCall = async (method, params) => {
    asked.push([method, params]);
    if (method === 'getblockhash') return hash;
    if (method === 'getblock') return { hash: HASH, height: params[0] === HASH ? 95 : -1, tx };
    throw new Error(`unexpected ${method}`);
  };
  return { call, asked };
}

describe('bitcoin pinned context', () => {
  it('reads the pinned block’s hash, then its first transaction after the coinbase', async () => {
    const { call, asked } = node([COINBASE, SPEND, '03'.repeat(32)]);
    await expect(bitcoinAdapter.pinContext!.read(call, 95)).resolves.toEqual({ pinned_block_hash: HASH, pinned_txid: SPEND });
    expect(asked).toEqual([
      ['getblockhash', [95]],
      ['getblock', [HASH, 1]],
    ]);
  });

  it('takes the coinbase of a block without other transactions', async () => {
    await expect(bitcoinAdapter.pinContext!.read(node([COINBASE]).call, 95)).resolves.toEqual({ pinned_block_hash: HASH, pinned_txid: COINBASE });
  });

  it('refuses answers that are not a hash or a transaction list', async () => {
    await expect(bitcoinAdapter.pinContext!.read(node([COINBASE], 42).call, 95)).rejects.toThrow(PinContextError);
    await expect(bitcoinAdapter.pinContext!.read(node([]).call, 95)).rejects.toThrow(/without a transaction list/);
    await expect(bitcoinAdapter.pinContext!.read(node('nope').call, 95)).rejects.toThrow(PinContextError);
  });

  it('a workload naming {{pinned_block_hash}} or {{pinned_txid}} needs a pinned block and the context; {{pinned_height}} alone needs no context', () => {
    const hashOnly = { methods: [{ method: 'getblock', params: ['{{pinned_block_hash}}', 1], weight: 1 }] };
    const txOnly = { methods: [{ method: 'gettxout', params: ['{{pinned_txid}}', 0], weight: 1 }] };
    const height = { methods: [{ method: 'getblockhash', params: ['{{pinned_height}}'], weight: 1 }] };
    expect(needsPinnedBlock(hashOnly)).toBe(true);
    expect(needsPinnedBlock(txOnly)).toBe(true);
    expect(needsPinContext(bitcoinAdapter, hashOnly)).toBe(true);
    expect(needsPinContext(bitcoinAdapter, txOnly)).toBe(true);
    expect(needsPinContext(bitcoinAdapter, height)).toBe(false);
    // EVM reads no context.
    expect(needsPinContext(CHAINS.evm, hashOnly)).toBe(false);
  });

  it('the planner and renderParams put the stored values in place of their templates; without them the strings stay', () => {
    const workload = { methods: [{ method: 'getrawtransaction', params: ['{{pinned_txid}}', true, '{{pinned_block_hash}}'], weight: 1 }] };
    const context = { pinned_block_hash: HASH, pinned_txid: SPEND };
    expect(planRequests(bitcoinAdapter, workload, 1, 95, context)(0).params).toEqual([SPEND, true, HASH]);
    expect(planRequests(bitcoinAdapter, workload, 1, 95)(0).params).toEqual(['{{pinned_txid}}', true, '{{pinned_block_hash}}']);
    expect(renderParams(bitcoinAdapter, ['{{pinned_height}}', '{{pinned_block_hash}}'], 95, context)).toEqual([95, HASH]);
  });

  it('a run row’s stored context reaches its plan; a row without the column plans as before', () => {
    const preset = BITCOIN_WORKLOAD_PRESETS.find((p) => p.slug === 'bitcoin-standard')!;
    const config = suiteConfigSchema.parse({ targets: [{ endpoint_id: '00000000-0000-4000-8000-000000000001' }], workload: preset.workload });
    const row = {
      config_snapshot: { suite: { name: 'btc', config }, chain: { family: 'bitcoin' } },
      seed: '7',
      pinned_block: '95',
      pinned_context: { pinned_block_hash: HASH, pinned_txid: SPEND },
    };
    const plan = runPlanOf(row);
    expect(plan.pinnedContext).toEqual(row.pinned_context);
    const calls = Array.from({ length: 400 }, (_, seq) => plan.requestAt(seq));
    const sent = (method: string) => calls.filter((c) => c.method === method).map((c) => JSON.stringify(c.params));
    expect(new Set(sent('getblock'))).toEqual(new Set([JSON.stringify([HASH, 1]), JSON.stringify([HASH, 2])]));
    expect(new Set(sent('getblockheader'))).toEqual(new Set([JSON.stringify([HASH, true])]));
    expect(new Set(sent('getrawtransaction'))).toEqual(new Set([JSON.stringify([SPEND, true, HASH])]));
    expect(new Set(sent('gettxout'))).toEqual(new Set([JSON.stringify([SPEND, 0])]));
    expect(new Set(sent('getblockhash'))).toEqual(new Set([JSON.stringify([95])]));
    const old = { config_snapshot: row.config_snapshot, seed: row.seed, pinned_block: row.pinned_block };
    expect(runPlanOf(old).pinnedContext).toBeNull();
  });
});
