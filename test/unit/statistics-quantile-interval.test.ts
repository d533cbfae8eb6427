import { describe, expect, it } from 'vitest';
import { EXACT_RANKS_MAX_N, nearestRank, orderStatisticRanks, percentileIntervals, quantileInterval } from '../../src/domain/statistics/quantile-interval';

/** 1, 2, …, n µs: every order statistic equals its rank, so bounds read as ranks. */
const ranks = (n: number) => Float64Array.from({ length: n }, (_, i) => i + 1);

describe('nearestRank', () => {
  it.each([
    [0, 0.95, 0],
    [1, 0.95, 1],
    [5, 0.5, 3],
    [20, 0.95, 19],
    [100, 0.95, 95],
    [100, 0.99, 99],
    [60, 0.95, 57],
    [1_000_000, 0.99, 990_000],
  ])('n = %s, p = %s → rank %s', (n, p, rank) => {
    expect(nearestRank(n, p)).toBe(rank);
  });
});

// Expected ranks checked against a direct enumeration of the binomial (Python, math.comb).
describe('orderStatisticRanks (95 %)', () => {
  it.each([
    // n, p, lower, upper, method — lower 0 / upper n + 1 mean that side is unbounded
    [0, 0.95, 0, 1, 'exact'],
    [1, 0.5, 0, 2, 'exact'],
    [5, 0.5, 0, 6, 'exact'],
    [6, 0.5, 1, 6, 'exact'],
    [20, 0.5, 6, 15, 'exact'], // the textbook median interval X(6)–X(15)
    [20, 0.95, 17, 21, 'exact'],
    [71, 0.95, 63, 72, 'exact'], // 0.95⁷¹ > 0.025: still no upper bound
    [72, 0.95, 64, 72, 'exact'], // 0.95⁷² < 0.025: X(72) bounds it
    [100, 0.5, 40, 61, 'exact'],
    [2000, 0.95, 1881, 1920, 'normal'],
  ] as const)('n = %s, p = %s → [X(%s), X(%s)] (%s)', (n, p, lower, upper, method) => {
    expect(orderStatisticRanks(n, p)).toEqual({ lower, upper, method });
  });

  it('switches from exact to normal ranks without a jump', () => {
    for (const p of [0.5, 0.95, 0.99]) {
      const exact = orderStatisticRanks(EXACT_RANKS_MAX_N, p);
      const normal = orderStatisticRanks(EXACT_RANKS_MAX_N + 1, p);
      expect(Math.abs(normal.lower - exact.lower)).toBeLessThanOrEqual(2);
      expect(Math.abs(normal.upper - exact.upper)).toBeLessThanOrEqual(2);
    }
  });

  it('holds at least the confidence asked for (exact ranks)', () => {
    for (const n of [10, 50, 200, 1000]) {
      const { lower, upper } = orderStatisticRanks(n, 0.95, 0.9);
      expect(lower).toBeLessThanOrEqual(nearestRank(n, 0.95));
      expect(upper).toBeGreaterThanOrEqual(nearestRank(n, 0.95));
    }
  });
});

describe('quantileInterval', () => {
  it.each([
    // n, p, point, lower, upper
    [0, 0.95, NaN, 0, Infinity],
    [1, 0.95, 1, 0, Infinity],
    [5, 0.95, 5, 4, Infinity],
    [20, 0.95, 19, 17, Infinity],
    [20, 0.5, 10, 6, 15],
    [100, 0.95, 95, 90, 100],
    [100, 0.99, 99, 97, Infinity],
  ])('n = %s, p = %s → %s [%s, %s]', (n, p, point, lower, upper) => {
    const q = quantileInterval(ranks(n), p);
    expect(q.point).toBe(point);
    expect(q.lower).toBe(lower);
    expect(q.upper).toBe(upper);
    expect(q.n).toBe(n);
  });

  it('p50/p95/p99 of one sorted run', () => {
    const { p50, p95, p99 } = percentileIntervals(ranks(10_000));
    expect([p50.lower, p50.point, p50.upper]).toEqual([4902, 5000, 5099]);
    expect([p95.lower, p95.point, p95.upper]).toEqual([9457, 9500, 9544]);
    expect([p99.lower, p99.point, p99.upper]).toEqual([9880, 9900, 9921]);
  });

  it('a constant sample has a zero-width interval', () => {
    const q = quantileInterval(new Float64Array(500).fill(40_000), 0.95);
    expect([q.lower, q.point, q.upper]).toEqual([40_000, 40_000, 40_000]);
  });
});
