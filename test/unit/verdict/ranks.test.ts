import { describe, expect, it } from 'vitest';
import { nearestRank } from '../../../src/domain/statistics/quantile-interval';
import { ALL_RANKS_MAX_N, smallSampleFailRanks } from '../../../src/domain/statistics/relative-difference';
import { computeVerdict, verdictRanks } from '../../../src/domain/verdict';
import { input, reference, steady } from './fixtures';

describe('verdictRanks', () => {
  it.each([0, 1, 20, 100, 1000, 1001, 1_000_000])('names, for n = %i, ranks within 0..n+1 including the three nearest ranks', (n) => {
    const ranks = verdictRanks(n);
    // Three per percentile, plus every rank of a small sample or a lower rank per reference size that has no two-sided bound.
    expect(new Set(ranks).size).toBeLessThanOrEqual(n <= ALL_RANKS_MAX_N ? n + 9 : 9 + 72);
    for (const r of ranks) {
      expect(r).toBeGreaterThanOrEqual(0);
      expect(r).toBeLessThanOrEqual(n + 1);
    }
    if (n > 0) expect(ranks).toEqual(expect.arrayContaining([nearestRank(n, 0.5), nearestRank(n, 0.95), nearestRank(n, 0.99)]));
  });

  it.each([
    [60, 60],
    [2000, 60],
    [60, 2000],
    [65, 300],
    // Beyond 1,000 samples the two-sided ranks come from the normal approximation: the bound must read the same rank.
    [60, 1013],
    [65, 5000],
  ])('gives the same checks from sparse samples as from full ones at %i candidate and %i reference calls', (n, m) => {
    const cand = steady(300, n);
    const ref = steady(60, m);
    const sparseOf = (sorted: ArrayLike<number>) => {
      const sparse: { length: number; [i: number]: number } = { length: sorted.length };
      for (const r of verdictRanks(sorted.length)) if (r >= 1 && r <= sorted.length) sparse[r - 1] = sorted[r - 1]!;
      return sparse;
    };
    const full = computeVerdict(input({ candidate: cand.stats, candidateLatencies: cand.latencies, reference: reference(ref.stats, ref.latencies) }));
    const fromSparse = computeVerdict(
      input({ candidate: cand.stats, candidateLatencies: sparseOf(cand.latencies), reference: { ...reference(ref.stats, ref.latencies), latencies: sparseOf(ref.latencies) } }),
    );
    expect(fromSparse.checks).toEqual(full.checks);
    expect(full.checks.find((c) => c.name === 'latency_vs_reference')!.status).toBe('fail');
  });

  it('holds every rank a small-sample bound reads, whichever side is small (up to 71 calls) and whatever the other side\'s size', () => {
    const sizes = [...Array.from({ length: 130 }, (_, i) => 990 + i), 5000, 100_000];
    for (const big of sizes) {
      const ranks = new Set(verdictRanks(big));
      for (let small = 1; small <= 71; small++) {
        const asReference = smallSampleFailRanks(small, big, 0.95);
        if (asReference) expect(ranks.has(asReference.referenceUpper), `reference of ${big}, candidate of ${small}`).toBe(true);
        const asCandidate = smallSampleFailRanks(big, small, 0.95);
        if (asCandidate) expect(ranks.has(asCandidate.candidateLower), `candidate of ${big}, reference of ${small}`).toBe(true);
      }
    }
  });

  it('gives the same intervals from a sparse sample holding only those ranks as from the full one', () => {
    const { stats: s, latencies } = steady(120, 2000);
    const sparse: { length: number; [i: number]: number } = { length: latencies.length };
    for (const r of verdictRanks(latencies.length)) if (r >= 1 && r <= latencies.length) sparse[r - 1] = latencies[r - 1]!;
    const full = computeVerdict(input({ candidate: s, candidateLatencies: latencies, reference: reference(s, latencies) }));
    const fromSparse = computeVerdict(input({ candidate: s, candidateLatencies: sparse, reference: { ...reference(s, latencies), latencies: sparse } }));
    expect(fromSparse.checks).toEqual(full.checks);
  });
});
