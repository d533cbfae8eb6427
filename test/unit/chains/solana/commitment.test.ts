import { describe, expect, it } from 'vitest';
import { atCommitment, chainAdapter, runPlanOf } from '../../../../src/chains/registry';
import { solanaAdapter } from '../../../../src/chains/solana';
import { suiteConfigSchema } from '../../../../src/domain/suite-config';

const SUITE = { targets: [{ endpoint_id: '00000000-0000-4000-8000-000000000001' }] };
const METHODS = [
  { method: 'getSlot', params: [{ commitment: '{{commitment}}' }] },
  { method: 'getBalance', params: ['vines1vzrYbzLMRdu58ou5XTby4qAqVRLmqo36NKPTg', { commitment: '{{commitment}}', minContextSlot: 5 }] },
];

function planOf(commitment?: string) {
  const config = suiteConfigSchema.parse({ ...SUITE, workload: { methods: METHODS }, ...(commitment === undefined ? {} : { commitment }) });
  return runPlanOf({ config_snapshot: { chain: { family: 'solana' }, suite: { name: 's', config } }, seed: 1, pinned_block: null });
}

describe('solana commitment levels', () => {
  it('reads the head and renders "{{commitment}}" at the suite level', () => {
    const plan = planOf('confirmed');
    expect(plan.chain.head.method).toBe('getSlot');
    expect(plan.chain.head.params).toEqual([{ commitment: 'confirmed' }]);
    const sent = Array.from({ length: 20 }, (_, seq) => plan.requestAt(seq));
    expect(JSON.stringify(sent)).not.toContain('{{commitment}}');
    expect(sent.find((c) => c.method === 'getBalance')?.params).toEqual(['vines1vzrYbzLMRdu58ou5XTby4qAqVRLmqo36NKPTg', { commitment: 'confirmed', minContextSlot: 5 }]);
    expect(sent.find((c) => c.method === 'getSlot')?.params).toEqual([{ commitment: 'confirmed' }]);
  });

  it('reads at finalized when the suite names no level', () => {
    const plan = planOf();
    expect(plan.chain.head.params).toEqual([{ commitment: 'finalized' }]);
    const sent = Array.from({ length: 20 }, (_, seq) => plan.requestAt(seq));
    expect(sent.find((c) => c.method === 'getSlot')?.params).toEqual([{ commitment: 'finalized' }]);
  });

  it('lists the three levels on solana only, and leaves a family without levels as it is', () => {
    expect(solanaAdapter.readLevels.names).toEqual(['processed', 'confirmed', 'finalized']);
    expect(atCommitment(solanaAdapter, 'processed').head.params).toEqual([{ commitment: 'processed' }]);
    const evm = chainAdapter('evm');
    expect(evm.readLevels.names).toEqual([]);
    expect(atCommitment(evm, 'confirmed')).toBe(evm);
  });

  it('the schema refuses a level no family has', () => {
    expect(suiteConfigSchema.safeParse({ ...SUITE, commitment: 'safe' }).success).toBe(false);
  });
});
