import { describe, expect, it } from 'vitest';
import { computeVerdict, type IntegrityInput } from '../../../src/domain/verdict';
import { integrity as integrityModule } from '../../../src/domain/verdict/integrity';
import { check, input, steady } from './fixtures';

/*
 * The integrity check judged from what the integrity step stored (issue 34, DESIGN.md §15):
 * three-valued per candidate, the worst deciding; wrong answers listed with method, block, path
 * and what the proof showed; answers not provable listed apart; a family without proofs says so.
 */

const ANCHOR = { number: '20', hash: `0x${'ab'.repeat(32)}`, source: 'reference' as const };
const proven = (method: string) => ({ method, params: '[]', kind: 'proven' as const, block: '20' });
const WRONG = { method: 'eth_getBalance', params: '["0x01","0x14"]', kind: 'wrong' as const, block: '20', path: '$', message: 'answered 5 wei, the account proof against stateRoot 0x… says 3 wei' };
const NOT_PROVABLE = { method: 'eth_call', params: '[]', kind: 'not_provable' as const, reason: 'eth_call: not provable without executing the EVM' };

function candidate(name: string, findings: IntegrityInput['candidates'][number]['result'] extends infer R ? (R extends { findings: infer F } ? F : never) : never) {
  const count = (kind: string) => findings.filter((f) => f.kind === kind).length;
  return { endpoint_id: `id-${name}`, endpoint_name: name, result: { proven: count('proven'), wrong: count('wrong'), not_provable: count('not_provable'), extra_requests: 7, findings } };
}

function judged(integrity: IntegrityInput) {
  const c = steady(100);
  return computeVerdict(input({ candidate: c.stats, candidateLatencies: c.latencies, integrity }));
}

describe('integrity check', () => {
  it.each([
    ['every answer proven, none wrong', [candidate('a', [proven('eth_getBalance'), proven('eth_getLogs'), NOT_PROVABLE])], 'pass'],
    ['an answer proven wrong fails, whatever else was proven', [candidate('a', [proven('eth_getLogs'), WRONG])], 'fail'],
    ['nothing provable is inconclusive', [candidate('a', [NOT_PROVABLE])], 'inconclusive'],
    ['a candidate the step stored nothing for is inconclusive', [{ endpoint_id: 'x', endpoint_name: 'x', result: null }], 'inconclusive'],
    ['the worst candidate decides: fail over pass', [candidate('a', [proven('eth_getLogs')]), candidate('b', [WRONG])], 'fail'],
    ['the worst candidate decides: inconclusive over pass', [candidate('a', [proven('eth_getLogs')]), candidate('b', [NOT_PROVABLE])], 'inconclusive'],
  ] as const)('%s', (_name, candidates, status) => {
    const result = check(judged({ family: 'evm', verifiable: true, anchor: ANCHOR, candidates }), 'integrity');
    expect(result.status).toBe(status);
  });

  it('lists a wrong answer with method, block, path and what the proof showed; not provable apart; the anchor stated', () => {
    const result = check(judged({ family: 'evm', verifiable: true, anchor: ANCHOR, candidates: [candidate('node-a', [proven('eth_getLogs'), WRONG, NOT_PROVABLE])] }), 'integrity');
    expect(result.details.candidates[0]).toMatchObject({
      status: 'fail',
      proven: 1,
      wrong: 1,
      not_provable: 1,
      extra_requests: 7,
      wrong_answers: [{ method: 'eth_getBalance', block: '20', path: '$', message: WRONG.message }],
      not_provable_answers: [{ method: 'eth_call', reason: NOT_PROVABLE.reason }],
    });
    expect(result.details.anchor).toEqual({ source: 'reference', number: '20', hash: ANCHOR.hash });
    expect(result.message).toBe(`node-a: 1 proven, 1 wrong, 1 not provable: eth_getBalance at block 20 $: ${WRONG.message} — anchored on the reference's hash of the pinned block (block 20 ${ANCHOR.hash})`);
  });

  it('without an anchor says self-consistency only', () => {
    const result = check(judged({ family: 'evm', verifiable: true, anchor: null, candidates: [candidate('a', [proven('eth_getLogs')])] }), 'integrity');
    expect(result.details.anchor).toEqual({ source: 'self_consistency', number: null, hash: null });
    expect(result.message).toMatch(/self-consistency only/);
  });

  it('a family without proofs over RPC: inconclusive, naming the family, never a pass', () => {
    const result = check(judged({ family: 'solana', verifiable: false, anchor: null, candidates: [] }), 'integrity');
    expect(result).toMatchObject({ status: 'inconclusive', details: { not_applicable: expect.stringContaining('solana family has no proofs') } });
  });

  it('a run without config.integrity has no integrity check', () => {
    const c = steady(100);
    expect(computeVerdict(input({ candidate: c.stats, candidateLatencies: c.latencies })).checks.map((k) => k.name)).not.toContain('integrity');
  });

  it('its Markdown and rvs text list the wrong answers, then those not provable', () => {
    const result = judged({ family: 'evm', verifiable: true, anchor: ANCHOR, candidates: [candidate('node|a', [WRONG, NOT_PROVABLE])] });
    const markdown = result.markdown_summary;
    expect(markdown).toContain('Integrity: anchored on the reference\'s hash of the pinned block');
    expect(markdown).toContain('- **node\\|a**: 0 proven, 1 wrong, 1 not provable (7 extra requests)');
    expect(markdown).toContain('  - wrong: `eth_getBalance` `["0x01","0x14"]` at block 20, `$`: answered 5 wei');
    expect(markdown).toContain('  - not provable: `eth_call`: eth_call: not provable without executing the EVM');
    const own = check(result, 'integrity');
    const text = integrityModule.text!.lines({}, { name: own.name, status: own.status, message: own.message, details: own.details });
    expect(text).toEqual(['', 'integrity, node|a:', `  wrong: eth_getBalance ["0x01","0x14"] at block 20 $: ${WRONG.message}`, `  not provable: eth_call: ${NOT_PROVABLE.reason}`]);
    // A verdict of another version (no candidates array) shows nothing rather than failing.
    expect(integrityModule.text!.lines({}, { name: 'integrity', status: 'pass', message: '', details: { candidates: 'nope' } })).toEqual([]);
  });
});
