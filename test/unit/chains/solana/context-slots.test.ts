import { describe, expect, it } from 'vitest';
import { atCommitment } from '../../../../src/chains/registry';
import { solanaAdapter } from '../../../../src/chains/solana';
import { solanaContextSlot } from '../../../../src/chains/solana/answers';
import { solanaRootSubscription, solanaSlotSubscription } from '../../../../src/chains/solana/head';
import { judgeCorrectness, tallyFromCounts, type AnswerContextTotals, type MethodPairTotals } from '../../../../src/domain/correctness';
import { SOLANA_WS_EXAMPLES } from '../../../helpers/solana-replay-node';

/*
 * Pairs answered at different context slots (DESIGN.md §11): the slot an answer names, how the
 * tally counts the re-ask's outcomes (resolved → matched, confirmed → mismatched, the rest
 * not_comparable, out of the rate), and the head subscriptions' notifications.
 */

describe('solanaContextSlot', () => {
  it.each([
    { result: { context: { apiVersion: '2.0.15', slot: 341197053 }, value: 1 }, slot: 341197053 },
    { result: { context: { slot: 0 }, value: null }, slot: 0 },
    { result: { context: { slot: 5 } }, slot: null, why: 'no value: not an RpcResponse' },
    { result: { context: { slot: -1 }, value: 1 }, slot: null },
    { result: { context: { slot: 1.5 }, value: 1 }, slot: null },
    { result: { context: { slot: '5' }, value: 1 }, slot: null },
    { result: 1234, slot: null },
    { result: [{ pubkey: 'x' }], slot: null },
    { result: null, slot: null },
  ])('$result → $slot', ({ result, slot }) => {
    expect(solanaContextSlot(result)).toBe(slot);
  });

  it('is the adapter\u2019s answer context at every commitment level', () => {
    expect(solanaAdapter.comparison.answerContext).toBe(solanaContextSlot);
    expect(atCommitment(solanaAdapter, 'confirmed', 'reads').comparison.answerContext).toBe(solanaContextSlot);
  });
});

describe('the tally of pairs at different context slots', () => {
  const pairs: MethodPairTotals[] = [
    { method: 'getBalance', matched: 5, differing: 0, skipped: 10 },
    { method: 'getBlock', matched: 4, differing: 0, skipped: 1 },
  ];
  it.each([
    {
      name: 'resolved ones are matches, confirmed ones mismatches, the rest not comparable and out of the skipped count',
      context: [{ method: 'getBalance', resolved: 3, confirmed: 2, not_comparable: 4, rechecked: 7 }],
      expected: { matched: 12, mismatched: 2, skipped: 2, context: { not_comparable: 4, rechecked: 7, resolved: 3, confirmed: 2 } },
      byMethod: [{ method: 'getBalance', mismatched: 2, compared: 10 }],
    },
    {
      name: 'never re-asked: every pair not comparable',
      context: [{ method: 'getBalance', resolved: 0, confirmed: 0, not_comparable: 9, rechecked: 0 }],
      expected: { matched: 9, mismatched: 0, skipped: 2, context: { not_comparable: 9, rechecked: 0, resolved: 0, confirmed: 0 } },
      byMethod: [],
    },
  ])('$name', ({ context, expected, byMethod }) => {
    const tally = tallyFromCounts(pairs, [], [], context as AnswerContextTotals[]);
    expect(tally).toMatchObject(expected);
    expect(tally.mismatchesByMethod).toEqual(byMethod);
  });

  it('without such pairs the tally has no context counts, and the verdict reports 0 not comparable', () => {
    const tally = tallyFromCounts(pairs, []);
    expect(tally.context).toBeUndefined();
    expect(judgeCorrectness(tally, 100).details).toMatchObject({ not_comparable: 0, context_rechecked: 0, context_resolved: 0, context_confirmed: 0 });
  });

  it('not comparable pairs are neither matches nor mismatches: out of the rate, named in the message', () => {
    const tally = tallyFromCounts(pairs, [], [], [{ method: 'getBalance', resolved: 1, confirmed: 0, not_comparable: 9, rechecked: 10 }]);
    const summary = judgeCorrectness(tally, 100);
    expect(summary).toMatchObject({ status: 'pass', details: { compared: 10, matched: 10, mismatched: 0, not_comparable: 9, match_rate_pct: 100 } });
    expect(summary.message).toContain('9 not comparable (answered at different context slots)');
    expect(summary.message).toContain('10 pairs at different context slots re-asked at one slot: 1 resolved, 0 confirmed');
  });
});

describe('the Solana head subscriptions', () => {
  it('read the published notifications: slotNotification → its slot, rootNotification → the root', () => {
    const slot = SOLANA_WS_EXAMPLES.slotSubscribe!.notification! as { method: string; params: { result: unknown } };
    const root = SOLANA_WS_EXAMPLES.rootSubscribe!.notification! as { method: string; params: { result: unknown } };
    expect(solanaSlotSubscription).toMatchObject({ subscribe: { method: 'slotSubscribe', params: [] }, unsubscribe: 'slotUnsubscribe', notification: slot.method });
    expect(solanaRootSubscription).toMatchObject({ subscribe: { method: 'rootSubscribe', params: [] }, unsubscribe: 'rootUnsubscribe', notification: root.method });
    expect(solanaSlotSubscription.parse(slot.params.result)).toEqual({ number: 76n, hash: null });
    expect(solanaRootSubscription.parse(root.params.result)).toEqual({ number: 42n, hash: null });
    for (const bad of [null, 76, { slot: -1 }, { slot: '76' }, [76]]) expect(solanaSlotSubscription.parse(bad)).toBeNull();
    for (const bad of [null, -1, 1.5, '42', { root: 42 }]) expect(solanaRootSubscription.parse(bad)).toBeNull();
  });

  it('the watch reads confirmed slots by slotSubscribe when the suite names no level, roots at finalized; reads default to finalized', async () => {
    expect(atCommitment(solanaAdapter, undefined, 'reads').head.params).toEqual([{ commitment: 'finalized' }]);
    expect(atCommitment(solanaAdapter, undefined, 'watch').head.params).toEqual([{ commitment: 'confirmed' }]);
    expect(atCommitment(solanaAdapter, 'confirmed', 'reads').headSubscription).toBe(solanaSlotSubscription);
    expect(atCommitment(solanaAdapter, 'processed', 'reads').headSubscription).toBe(solanaSlotSubscription);
    expect(atCommitment(solanaAdapter, 'finalized', 'reads').headSubscription).toBe(solanaRootSubscription);
    const asked: unknown[] = [];
    const height = await atCommitment(solanaAdapter, 'confirmed', 'reads').heightBesideHead(async (method, params) => (asked.push({ method, params }), 71));
    expect(asked).toEqual([{ method: 'getBlockHeight', params: [{ commitment: 'confirmed' }] }]);
    expect(height).toBe(71n);
  });
});
