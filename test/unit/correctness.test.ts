import { describe, expect, it } from 'vitest';
import {
  emptyTally,
  judgeCorrectness,
  spreadMismatches,
  tallyFromCounts,
  type CorrectnessTally,
} from '../../src/domain/correctness';
import { judgePairs, tallyOfPairs, type Pair } from '../helpers/correctness-pairs';

const ADDR = '0x00000000000000000000000000000000000000aa';


const pair = (over: Partial<Pair> = {}): Pair => ({
  method: 'eth_getBalance',
  params: [ADDR, '0x10'],
  candidateHash: 'a'.repeat(32),
  referenceHash: 'a'.repeat(32),
  headDependent: false,
  ...over,
});
const match = () => pair();
const mismatch = (i = 0) => pair({ candidateHash: `${i}`.padStart(32, 'b'), params: [ADDR, `0x${i.toString(16)}`] });

describe('judgeCorrectness of pairs counted as the SQL counts them', () => {
  it.each([
    { name: 'all matched', pairs: [match(), match()], min: 100, status: 'pass', counts: { compared: 2, matched: 2, mismatched: 0, inconclusive: 0, skipped: 0 }, rate: 100 },
    { name: 'exactly at min_pct passes', pairs: [...Array(19).fill(0).map(match), mismatch()], min: 95, status: 'pass', counts: { compared: 20, matched: 19, mismatched: 1, inconclusive: 0, skipped: 0 }, rate: 95 },
    { name: 'just below min_pct fails', pairs: [...Array(18).fill(0).map(match), mismatch(1), mismatch(2)], min: 95, status: 'fail', counts: { compared: 20, matched: 18, mismatched: 2, inconclusive: 0, skipped: 0 }, rate: 90 },
    { name: 'exactly at a fractional min_pct passes', pairs: [...Array(999).fill(0).map(match), mismatch()], min: 99.9, status: 'pass', counts: { compared: 1000, matched: 999, mismatched: 1, inconclusive: 0, skipped: 0 }, rate: 99.9 },
    { name: 'rate is truncated to one decimal (2/3 → 66.6)', pairs: [match(), match(), mismatch()], min: 50, status: 'pass', counts: { compared: 3, matched: 2, mismatched: 1, inconclusive: 0, skipped: 0 }, rate: 66.6 },
    { name: 'never shows 100.0 with a mismatch (1999/2000 → 99.9, fails min 100)', pairs: [...Array(1999).fill(0).map(match), mismatch()], min: 100, status: 'fail', counts: { compared: 2000, matched: 1999, mismatched: 1, inconclusive: 0, skipped: 0 }, rate: 99.9 },
    { name: 'head-dependent mismatch → inconclusive, excluded from the rate', pairs: [match(), pair({ candidateHash: 'c'.repeat(32), headDependent: true })], min: 100, status: 'pass', counts: { compared: 1, matched: 1, mismatched: 0, inconclusive: 1, skipped: 0 }, rate: 100 },
    { name: 'head-dependent match still counts as matched', pairs: [pair({ headDependent: true })], min: 100, status: 'pass', counts: { compared: 1, matched: 1, mismatched: 0, inconclusive: 0, skipped: 0 }, rate: 100 },
    { name: 'null hash on either side → skipped', pairs: [match(), pair({ candidateHash: null }), pair({ referenceHash: null }), pair({ candidateHash: null, referenceHash: null })], min: 100, status: 'pass', counts: { compared: 1, matched: 1, mismatched: 0, inconclusive: 0, skipped: 3 }, rate: 100 },
  ])('$name', ({ pairs, min, status, counts, rate }) => {
    const summary = judgePairs(pairs, min);
    expect(summary.name).toBe('correctness');
    expect(summary.status).toBe(status);
    expect(summary.details).toMatchObject({ ...counts, match_rate_pct: rate, min_pct: min });
    expect(summary.details.compared + summary.details.inconclusive + summary.details.skipped).toBe(pairs.length);
    expect(summary.details.mismatches).toHaveLength(counts.mismatched);
  });

  it.each([
    { name: 'no pairs', pairs: [] },
    { name: 'every pair skipped', pairs: [pair({ candidateHash: null }), pair({ referenceHash: null })] },
    { name: 'every pair inconclusive', pairs: [pair({ candidateHash: 'c'.repeat(32), headDependent: true })] },
  ])('nothing compared ($name) → fail, rate null', ({ pairs }) => {
    const summary = judgePairs(pairs, 0);
    expect(summary.status).toBe('fail');
    expect(summary.details.compared).toBe(0);
    expect(summary.details.match_rate_pct).toBeNull();
    expect(summary.message).toMatch(/nothing to judge/);
  });

  it('lists at most 10 mismatches, the first ones, with method, params and both hashes', () => {
    const pairs = Array.from({ length: 15 }, (_, i) => mismatch(i));
    const summary = judgePairs(pairs, 0);
    expect(summary.details.mismatched).toBe(15);
    expect(summary.details.mismatches).toHaveLength(10);
    expect(summary.details.mismatches[0]).toEqual({
      method: 'eth_getBalance',
      params: [ADDR, '0x0'],
      candidate_hash: '0'.padStart(32, 'b'),
      reference_hash: 'a'.repeat(32),
    });
    expect(summary.details.mismatches.map((m) => (m.params as string[])[1])).toEqual(
      Array.from({ length: 10 }, (_, i) => `0x${i.toString(16)}`),
    );
    // min 0 passes even with every compared pair mismatching: the threshold is the caller's choice.
    expect(summary.status).toBe('pass');
    expect(summary.details.match_rate_pct).toBe(0);
  });

  it('the message says what was judged', () => {
    const summary = judgePairs([match(), mismatch(), pair({ candidateHash: null }), pair({ candidateHash: 'c'.repeat(32), headDependent: true })], 90);
    expect(summary.message).toBe(
      '1 of 2 compared responses matched the reference (50%, below min 90%); 1 inconclusive (head moved), 1 skipped (a side failed)',
    );
  });
});

describe('tallyFromCounts of pairs counted as the SQL counts them', () => {
  it('counts each kind of pair and keeps the first mismatches in input order', () => {
    const pairs = [match(), mismatch(1), pair({ candidateHash: null }), pair({ candidateHash: 'c'.repeat(32), headDependent: true }), mismatch(2), match()];
    expect(tallyOfPairs(pairs)).toEqual({
      matched: 2,
      mismatched: 2,
      inconclusive: 1,
      skipped: 1,
      mismatches: [
        { method: 'eth_getBalance', params: [ADDR, '0x1'], candidate_hash: '1'.padStart(32, 'b'), reference_hash: 'a'.repeat(32) },
        { method: 'eth_getBalance', params: [ADDR, '0x2'], candidate_hash: '2'.padStart(32, 'b'), reference_hash: 'a'.repeat(32) },
      ],
      mismatchesByMethod: [{ method: 'eth_getBalance', mismatched: 2, compared: 4 }],
      recheck: { resolved: 0, confirmed: 0, failed: 0 },
    });
  });

  it('a head-moved difference counts by its re-check: confirmed → mismatch listed as re-sent, resolved or failed → inconclusive', () => {
    const moved = (outcome: 'resolved' | 'confirmed' | 'failed' | undefined, i: number) =>
      pair({
        params: [ADDR, 'latest'],
        candidateHash: `${i}`.padStart(32, 'c'),
        headDependent: true,
        recheck: outcome && {
          outcome,
          params: [ADDR, '0x36'],
          candidateHash: outcome === 'failed' ? null : `${i}`.padStart(32, 'e'),
          referenceHash: outcome === 'confirmed' ? 'f'.repeat(32) : outcome === 'resolved' ? `${i}`.padStart(32, 'e') : null,
        },
      });
    const tally = tallyOfPairs([match(), moved('confirmed', 1), moved('resolved', 2), moved('failed', 3), moved(undefined, 4)]);
    expect(tally).toMatchObject({ matched: 1, mismatched: 1, inconclusive: 3, skipped: 0, recheck: { resolved: 1, confirmed: 1, failed: 1 } });
    expect(tally.mismatches).toEqual([{ method: 'eth_getBalance', params: [ADDR, '0x36'], candidate_hash: '1'.padStart(32, 'e'), reference_hash: 'f'.repeat(32) }]);
    expect(tally.mismatchesByMethod).toEqual([{ method: 'eth_getBalance', mismatched: 1, compared: 2 }]);
    const summary = judgeCorrectness(tally, 100);
    expect(summary.details).toMatchObject({ compared: 2, mismatched: 1, inconclusive: 3, rechecked: 3, recheck_resolved: 1, recheck_confirmed: 1, recheck_failed: 1, recheck_limit: 200 });
    expect(summary.message).toBe(
      '1 of 2 compared responses matched the reference (50%, below min 100%); 3 inconclusive (head moved); 3 head-moved differences re-checked at a fixed block: 1 resolved, 1 confirmed, 1 failed',
    );
  });

  it('a re-check on a pair that no head excuses changes nothing: it is a mismatch with its own params', () => {
    const tally = tallyOfPairs([pair({ candidateHash: 'c'.repeat(32), recheck: { outcome: 'resolved', params: [], candidateHash: 'e'.repeat(32), referenceHash: 'e'.repeat(32) } })]);
    expect(tally).toMatchObject({ mismatched: 1, inconclusive: 0, recheck: { resolved: 0, confirmed: 0, failed: 0 } });
    expect(tally.mismatches[0]!.params).toEqual([ADDR, '0x10']);
  });

  it('spreads the listed mismatches over methods and counts each method (compared = matched + mismatched)', () => {
    const receipts = (i: number) => pair({ method: 'eth_getBlockReceipts', params: [`0x${i.toString(16)}`], candidateHash: `${i}`.padStart(32, 'd') });
    const pairs = [
      ...Array.from({ length: 30 }, (_, i) => receipts(i)),
      ...Array.from({ length: 11 }, (_, i) => mismatch(i)),
      ...Array.from({ length: 5 }, () => match()),
      pair({ method: 'eth_getBlockReceipts', params: ['0x99'] }),
    ];
    const summary = judgePairs(pairs, 0);
    expect(summary.details.mismatches.map((m) => m.method)).toEqual([
      'eth_getBalance', 'eth_getBlockReceipts', 'eth_getBalance', 'eth_getBlockReceipts', 'eth_getBalance',
      'eth_getBlockReceipts', 'eth_getBalance', 'eth_getBlockReceipts', 'eth_getBalance', 'eth_getBlockReceipts',
    ]);
    expect(summary.details.mismatches.filter((m) => m.method === 'eth_getBalance').map((m) => (m.params as string[])[1])).toEqual(['0x0', '0x1', '0x2', '0x3', '0x4']);
    expect(summary.details.mismatches_by_method).toEqual([
      { method: 'eth_getBlockReceipts', mismatched: 30, compared: 31 },
      { method: 'eth_getBalance', mismatched: 11, compared: 16 },
    ]);
  });
});

describe('spreadMismatches', () => {
  const of = (counts: Record<string, number>) =>
    Object.entries(counts).flatMap(([method, n]) => Array.from({ length: n }, (_, i) => ({ method, i })));
  const perMethod = (picked: { method: string }[]) =>
    picked.reduce<Record<string, number>>((acc, m) => ({ ...acc, [m.method]: (acc[m.method] ?? 0) + 1 }), {});
  it.each([
    { name: 'none', counts: {}, expected: {} },
    { name: 'one method fills all 10', counts: { a: 25 }, expected: { a: 10 } },
    { name: 'two methods: 5 each', counts: { a: 30, b: 11 }, expected: { a: 5, b: 5 } },
    { name: 'three methods: ceil(10 / 3) = 4 at most, round-robin by name', counts: { a: 9, b: 9, c: 9 }, expected: { a: 4, b: 3, c: 3 } },
    { name: 'a method with fewer leaves its share to the others', counts: { a: 1, b: 20 }, expected: { a: 1, b: 9 } },
    { name: 'fewer than 10 in all: every one', counts: { a: 2, b: 3 }, expected: { a: 2, b: 3 } },
    { name: 'more than 10 methods: the first 10 by name, one each', counts: Object.fromEntries('abcdefghijkl'.split('').map((m) => [m, 2])), expected: Object.fromEntries('abcdefghij'.split('').map((m) => [m, 1])) },
  ])('$name', ({ counts, expected }) => {
    const picked = spreadMismatches(of(counts));
    expect(perMethod(picked)).toEqual(expected);
    // Within a method, input order is kept.
    for (const method of Object.keys(expected)) {
      expect(picked.filter((m) => m.method === method).map((m) => m.i)).toEqual(Array.from({ length: expected[method]! }, (_, i) => i));
    }
  });

  it('keeps at most 10 mismatches but counts them all', () => {
    const tally = tallyOfPairs(Array.from({ length: 25 }, (_, i) => mismatch(i)));
    expect(tally.mismatched).toBe(25);
    expect(tally.mismatches).toHaveLength(10);
  });

  it('of no pairs is the empty tally', () => {
    expect(tallyOfPairs([])).toEqual(emptyTally());
  });
});

describe('tallyFromCounts (the counts finalize reads from Postgres)', () => {
  const example = { method: 'eth_call', params: [], candidate_hash: 'b', reference_hash: 'a' };
  it('adds matched and skipped over methods; differing pairs count as classified', () => {
    const tally = tallyFromCounts(
      [
        { method: 'eth_call', matched: 90, skipped: 3, differing: 7 },
        { method: 'eth_getBalance', matched: 50, skipped: 0, differing: 5 },
        { method: 'eth_chainId', matched: 10, skipped: 1, differing: 0 },
      ],
      [
        { method: 'eth_call', mismatched: 7, head_moved: 0, confirmed: 0, resolved: 0, recheck_failed: 0 },
        { method: 'eth_getBalance', mismatched: 1, head_moved: 4, confirmed: 1, resolved: 3, recheck_failed: 1 },
      ],
      [example],
    );
    expect(tally).toEqual({
      matched: 150,
      mismatched: 8,
      inconclusive: 4,
      skipped: 4,
      mismatches: [example],
      mismatchesByMethod: [
        { method: 'eth_call', mismatched: 7, compared: 97 },
        { method: 'eth_getBalance', mismatched: 1, compared: 51 },
      ],
      recheck: { resolved: 3, confirmed: 1, failed: 1 },
    });
    // compared + inconclusive + skipped = every candidate sample.
    const judged = judgeCorrectness(tally, 95);
    expect(judged.details.compared + judged.details.inconclusive + judged.details.skipped).toBe(100 + 55 + 11);
    expect(judged.details).toMatchObject({ compared: 158, match_rate_pct: 94.9, rechecked: 5 });
    expect(judged.status).toBe('fail');
  });

  it('no differing pairs (finalize skips the classification) and no counts at all', () => {
    expect(tallyFromCounts([{ method: 'eth_call', matched: 3, skipped: 1, differing: 0 }], [])).toEqual({ ...emptyTally(), matched: 3, skipped: 1 });
    expect(tallyFromCounts([], [])).toEqual(emptyTally());
  });

  it('keeps at most 10 examples, counts every mismatch', () => {
    const examples = Array.from({ length: 12 }, (_, i) => ({ ...example, params: [i] }));
    const tally = tallyFromCounts([{ method: 'eth_call', matched: 0, skipped: 0, differing: 12 }], [{ method: 'eth_call', mismatched: 12, head_moved: 0, confirmed: 0, resolved: 0, recheck_failed: 0 }], examples);
    expect(tally.mismatched).toBe(12);
    expect(tally.mismatches).toEqual(examples.slice(0, 10));
  });
});

describe('judgeCorrectness', () => {
  const tally = (over: Partial<CorrectnessTally>): CorrectnessTally => ({ ...emptyTally(), ...over });

  it.each([
    { name: 'a million matches', t: tally({ matched: 1_000_000 }), min: 100, status: 'pass', rate: 100 },
    { name: 'one mismatch in a million against min 100', t: tally({ matched: 999_999, mismatched: 1 }), min: 100, status: 'fail', rate: 99.9 },
    { name: 'exactly at min 99.9', t: tally({ matched: 999_000, mismatched: 1_000 }), min: 99.9, status: 'pass', rate: 99.9 },
    { name: 'inconclusive and skipped only', t: tally({ inconclusive: 4, skipped: 6 }), min: 0, status: 'fail', rate: null },
    { name: 'empty', t: emptyTally(), min: 0, status: 'fail', rate: null },
  ])('$name → $status', ({ t, min, status, rate }) => {
    const summary = judgeCorrectness(t, min);
    expect(summary.status).toBe(status);
    expect(summary.details).toMatchObject({
      compared: t.matched + t.mismatched,
      matched: t.matched,
      mismatched: t.mismatched,
      inconclusive: t.inconclusive,
      skipped: t.skipped,
      match_rate_pct: rate,
      min_pct: min,
    });
  });

  it('lists at most 10 mismatches whatever the tally holds', () => {
    const mismatches = Array.from({ length: 12 }, (_, i) => ({ method: 'eth_call', params: [i], candidate_hash: 'b', reference_hash: 'a' }));
    expect(judgeCorrectness(tally({ mismatched: 12, mismatches }), 0).details.mismatches).toEqual(mismatches.slice(0, 10));
  });
});
