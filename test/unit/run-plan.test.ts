import { describe, expect, it } from 'vitest';
import { CHAINS, planRequests, runPlanOf, UnsupportedChainFamilyError } from '../../src/chains/registry';
import type { ChainAdapter, ChainRegistry } from '../../src/chains/types';
import { runSettingsOf, targetsByRole } from '../../src/domain/run-plan';
import { suiteConfigSchema } from '../../src/domain/suite-config';
import { PINNED_BLOCK_TEMPLATE } from '../../src/domain/workload';

const config = suiteConfigSchema.parse({
  targets: [{ endpoint_id: '00000000-0000-4000-8000-000000000001' }],
  baseline: { mode: 'previous_success' },
  workload: {
    methods: [
      { method: 'eth_getBalance', params: ['0x00000000000000000000000000000000000000aa', PINNED_BLOCK_TEMPLATE], weight: 3 },
      { method: 'eth_chainId' },
    ],
    duration_s: 30,
    rate_per_second: 50,
  },
  thresholds: { correctness_enabled: true },
  retry: { max_attempts: 5 },
});

/** A run row as the database returns it: bigint columns as strings. */
const runRow = (family: string | undefined, pinned: string | null) => ({
  config_snapshot: {
    suite: { name: 'nightly', config },
    chain: { id: 'c', name: 'Chain', slug: 'chain', explorer_url: null, ...(family === undefined ? {} : { family }) },
  },
  seed: '12345',
  pinned_block: pinned,
});

describe('run plan', () => {
  it('reads the settings of a run row once: suite config fields, seed and pinned block as numbers', () => {
    expect(runSettingsOf(runRow('evm', '840000'))).toEqual({
      suiteName: 'nightly',
      workload: config.workload,
      thresholds: config.thresholds,
      retry: config.retry,
      baseline: config.baseline,
      seed: 12345,
      pinnedBlock: 840_000,
      freshness: null,
      integrity: null,
      vantagePoints: null,
      vantageStartTimeoutMs: 60_000,
    });
    expect(runSettingsOf(runRow('evm', null)).pinnedBlock).toBeNull();
  });

  it('adds the family’s adapter and the request planner, the same requests as planning them directly', () => {
    const plan = runPlanOf(runRow('evm', '840000'));
    expect(plan.chain).toBe(CHAINS.evm);
    const direct = planRequests(CHAINS.evm, config.workload, 12345, 840_000);
    for (let seq = 0; seq < 50; seq++) expect(plan.requestAt(seq)).toEqual(direct(seq));
    const balance = Array.from({ length: 50 }, (_, seq) => plan.requestAt(seq)).find((c) => c.method === 'eth_getBalance')!;
    expect(balance.params).toEqual(['0x00000000000000000000000000000000000000aa', '0xcd140']);
  });

  it('plans an old snapshot without a family as EVM, and a family of a test registry through its adapter', () => {
    expect(runPlanOf(runRow(undefined, null)).chain).toBe(CHAINS.evm);
    const toy: ChainAdapter = { ...CHAINS.evm, family: 'toy', renderPinned: (pinned) => pinned ?? -1 };
    const registry: ChainRegistry = { ...CHAINS, toy };
    const plan = runPlanOf(runRow('toy', '7'), registry);
    expect(plan.chain).toBe(toy);
    const balance = Array.from({ length: 50 }, (_, seq) => plan.requestAt(seq)).find((c) => c.method === 'eth_getBalance')!;
    expect(balance.params).toEqual(['0x00000000000000000000000000000000000000aa', 7]);
  });

  it('refuses a family without an adapter', () => {
    expect(() => runPlanOf(runRow('cosmos', null))).toThrow(UnsupportedChainFamilyError);
  });

  it('splits targets into candidates (in order) and the reference', () => {
    const targets = [
      { id: 'a', role: 'primary' as const },
      { id: 'r', role: 'reference' as const },
      { id: 'b', role: 'primary' as const },
    ];
    expect(targetsByRole(targets)).toEqual({ candidates: [targets[0], targets[2]], reference: targets[1] });
    expect(targetsByRole(targets.filter((t) => t.role === 'primary')).reference).toBeUndefined();
  });
});
