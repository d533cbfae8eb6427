import { describe, expect, it } from 'vitest';
import { atCommitment } from '../../../../src/chains/registry';
import { solanaAdapter } from '../../../../src/chains/solana';
import { isShorterSolanaHistory, SOLANA_HISTORY_ERROR_CODES } from '../../../../src/chains/solana/answers';
import { evmAdapter } from '../../../../src/chains/evm';
import {
  judgeCorrectness,
  tallyFromCounts,
  type AnswerContextTotals,
  type HistoryDepthTotals,
  type MethodPairTotals,
} from '../../../../src/domain/correctness';

/*
 * History depth (issue 24 item 2): a pair where one side answers a value and the other an error
 * saying the data is beyond its ledger is not comparable (reason history_depth), neither match nor
 * mismatch; those pairs were counted as skipped by SQL and move out of it.
 */

describe('the Solana history-depth errors', () => {
  it('are agave\u2019s "not in this ledger" codes, read as history depth at every commitment level; EVM reads none so', () => {
    expect(SOLANA_HISTORY_ERROR_CODES).toEqual([-32001, -32007, -32009, -32011]);
    for (const code of SOLANA_HISTORY_ERROR_CODES) {
      const error = { code, message: 'x', data: undefined };
      expect(solanaAdapter.rpcErrorOutcome(error)).toBe('history_depth');
      expect(atCommitment(solanaAdapter, 'finalized').rpcErrorOutcome(error)).toBe('history_depth');
      expect(evmAdapter.rpcErrorOutcome(error)).toBe('rpc_error');
    }
  });

  it.each([
    { code: -32004, why: 'block not available yet: too new, not too old' },
    { code: -32016, why: 'minContextSlot not reached: behind, its own outcome' },
    { code: -32019, why: 'long-term storage unreachable: a failure' },
  ])('do not include $code ($why)', ({ code }) => {
    expect(SOLANA_HISTORY_ERROR_CODES).not.toContain(code);
  });
});

const sig = (signature: string, slot: number, extra: Record<string, unknown> = {}) => ({ signature, slot, err: null, memo: null, blockTime: null, confirmationStatus: 'finalized', ...extra });
const [A, B, C] = [sig('5h6x', 120), sig('3kQp', 117), sig('2zUy', 114)];

describe('isShorterSolanaHistory: a shorter history list is a strict prefix of the longer one', () => {
  it.each([
    { name: 'candidate shorter, equal on the common part', candidate: [A, B], reference: [A, B, C], shorter: true },
    { name: 'reference shorter', candidate: [A, B, C], reference: [A], shorter: true },
    { name: 'one side holds none of it', candidate: [], reference: [A], shorter: true },
    { name: 'member order within an entry carries no meaning', candidate: [{ slot: 120, signature: '5h6x', err: null, memo: null, blockTime: null, confirmationStatus: 'finalized' }], reference: [A, B], shorter: true },
    { name: 'a difference in the common part', candidate: [A, sig('3kQp', 118)], reference: [A, B, C], shorter: false },
    { name: 'an entry missing in the middle (not a prefix)', candidate: [A, C], reference: [A, B, C], shorter: false },
    { name: 'the newest missing (the tail kept): not history depth', candidate: [B, C], reference: [A, B, C], shorter: false },
    { name: 'equal lists (no difference to explain)', candidate: [A, B], reference: [A, B], shorter: false },
    { name: 'same length, different', candidate: [A, B], reference: [A, C], shorter: false },
    { name: 'not lists', candidate: { value: [A] }, reference: [A, B], shorter: false },
    { name: 'null against a list', candidate: null, reference: [A], shorter: false },
  ])('$name → $shorter', ({ candidate, reference, shorter }) => {
    expect(isShorterSolanaHistory('getSignaturesForAddress', candidate, reference)).toBe(shorter);
  });

  it('applies to history lists only', () => {
    expect(isShorterSolanaHistory('getProgramAccounts', [A], [A, B])).toBe(false);
    expect(isShorterSolanaHistory('getBlocks', [1, 2], [1, 2, 3])).toBe(false);
    expect(['getSignaturesForAddress', 'getProgramAccounts', 'getBlocks'].filter(solanaAdapter.comparison.isHistoryList)).toEqual(['getSignaturesForAddress']);
    expect(solanaAdapter.comparison.isShorterHistory).toBe(isShorterSolanaHistory);
    expect(evmAdapter.comparison.isHistoryList('eth_getLogs')).toBe(false);
    expect(evmAdapter.comparison.isShorterHistory('eth_getLogs', [1], [1, 2])).toBe(false);
  });
});

describe('the tally of pairs not comparable for history depth', () => {
  const pairs: MethodPairTotals[] = [
    { method: 'getBalance', matched: 10, differing: 0, skipped: 0 },
    { method: 'getBlock', matched: 2, differing: 0, skipped: 8 },
  ];
  const atSlots: AnswerContextTotals[] = [{ method: 'getBalance', resolved: 0, confirmed: 0, not_comparable: 0, rechecked: 0 }];

  it.each([
    {
      name: 'every skipped getBlock pair a history-depth error: none skipped, all not comparable',
      history: [{ method: 'getBlock', not_comparable: 8 }],
      details: { matched: 12, compared: 12, skipped: 0, not_comparable: 8, not_comparable_reasons: { context_slot: 0, history_depth: 8 } },
    },
    {
      name: 'some skipped for another failure: those stay skipped',
      history: [{ method: 'getBlock', not_comparable: 5 }],
      details: { matched: 12, compared: 12, skipped: 3, not_comparable: 5, not_comparable_reasons: { context_slot: 0, history_depth: 5 } },
    },
    {
      name: 'none: nothing moves, the reason is 0',
      history: [],
      details: { matched: 12, compared: 12, skipped: 8, not_comparable: 0, not_comparable_reasons: { context_slot: 0, history_depth: 0 } },
    },
  ])('$name', ({ history, details }) => {
    const summary = judgeCorrectness(tallyFromCounts(pairs, [], [], [], history as HistoryDepthTotals[]), 100);
    expect(summary.details).toMatchObject({ ...details, mismatched: 0, match_rate_pct: 100 });
    expect(summary.status).toBe('pass');
  });

  it('adds to the pairs at different context slots in not_comparable, each reason counted and named', () => {
    const slots: AnswerContextTotals[] = [{ method: 'getBalance', resolved: 0, confirmed: 0, not_comparable: 4, rechecked: 4 }];
    const withSkipped: MethodPairTotals[] = [{ method: 'getBalance', matched: 6, differing: 0, skipped: 4 }, pairs[1]!];
    const summary = judgeCorrectness(tallyFromCounts(withSkipped, [], [], slots, [{ method: 'getBlock', not_comparable: 8 }]), 100);
    expect(summary.details).toMatchObject({ compared: 8, skipped: 0, not_comparable: 12, not_comparable_reasons: { context_slot: 4, history_depth: 8 } });
    expect(summary.message).toContain('4 not comparable (answered at different context slots)');
    expect(summary.message).toContain('8 not comparable (history depth');
  });

  it('never excuses a mismatch: a differing pair stays mismatched beside them', () => {
    const tally = tallyFromCounts(
      [{ method: 'getBalance', matched: 9, differing: 1, skipped: 0 }, pairs[1]!],
      [{ method: 'getBalance', mismatched: 1, head_moved: 0, confirmed: 0, resolved: 0, recheck_failed: 0 }],
      [],
      atSlots,
      [{ method: 'getBlock', not_comparable: 8 }],
    );
    const summary = judgeCorrectness(tally, 100);
    expect(summary).toMatchObject({ status: 'fail', details: { mismatched: 1, not_comparable: 8, mismatches_by_method: [{ method: 'getBalance', mismatched: 1, compared: 10 }] } });
  });

  it('shorter history lists (differing pairs the re-ask found a strict prefix) join the error ones: neither mismatched nor inconclusive', () => {
    const tally = tallyFromCounts(
      [{ method: 'getSignaturesForAddress', matched: 4, differing: 6, skipped: 0 }, pairs[1]!],
      [{ method: 'getSignaturesForAddress', mismatched: 1, head_moved: 0, confirmed: 0, resolved: 0, recheck_failed: 0, history_depth: 5 }],
      [],
      [],
      [{ method: 'getBlock', not_comparable: 8 }],
    );
    const summary = judgeCorrectness(tally, 100);
    expect(summary.details).toMatchObject({
      compared: 7,
      matched: 6,
      mismatched: 1,
      inconclusive: 0,
      skipped: 0,
      not_comparable: 13,
      not_comparable_reasons: { context_slot: 0, history_depth: 13 },
      mismatches_by_method: [{ method: 'getSignaturesForAddress', mismatched: 1, compared: 5 }],
    });
    expect(summary.message).toContain('13 not comparable (history depth');
  });

  it('only history-depth pairs and nothing else compared: fails, nothing judged', () => {
    const summary = judgeCorrectness(tallyFromCounts([{ method: 'getBlock', matched: 0, differing: 0, skipped: 8 }], [], [], [], [{ method: 'getBlock', not_comparable: 8 }]), 100);
    expect(summary).toMatchObject({ status: 'fail', details: { compared: 0, skipped: 0, not_comparable: 8, match_rate_pct: null } });
  });
});
