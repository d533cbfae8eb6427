import { describe, expect, it } from 'vitest';
import { nearestRank, orderStatisticRanks } from '../../src/domain/statistics/quantile-interval';
import {
  indicatorCorrelation,
  pairedRelativeDifference,
  pairedRelativeDifferenceFromCounts,
  unpairedRelativeDifference,
  type PairCounts,
} from '../../src/domain/statistics/relative-difference';

// Finalize computes the paired difference from counts PostgreSQL returns (db/paired-samples.ts),
// never from the pairs themselves: these pin that the two routes agree, and the correlation's edges.

/** A deterministic pseudo-random stream (mulberry32), so the tables are reproducible. */
function random(seed: number): () => number {
  let t = seed >>> 0;
  return () => {
    t = (t + 0x6d2b79f5) >>> 0;
    let x = Math.imul(t ^ (t >>> 15), t | 1);
    x ^= x + Math.imul(x ^ (x >>> 7), x | 61);
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

/** n pairs sharing a per-instant factor of weight `shared` (0: independent, 1: identical up to `ratio`). */
function pairs(n: number, shared: number, ratio: number, seed = 1): { c: Float64Array; r: Float64Array } {
  const next = random(seed);
  const c = new Float64Array(n);
  const r = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const common = next();
    c[i] = Math.round(20_000 * ratio * Math.exp(shared * common + (1 - shared) * next()));
    r[i] = Math.round(20_000 * Math.exp(shared * common + (1 - shared) * next()));
  }
  return { c, r };
}

/** What the SQL side hands over: the sorted sides, sparse at the p95 interval's ranks, and the counts. */
function sufficient(c: Float64Array, r: Float64Array, p = 0.95) {
  const n = c.length;
  const cs = Float64Array.from(c).sort();
  const rs = Float64Array.from(r).sort();
  const sparse = (sorted: Float64Array) => {
    const out: { length: number; [rank: number]: number } = { length: n };
    const { lower, upper } = orderStatisticRanks(n, p);
    for (const k of [nearestRank(n, p), lower, upper]) if (k >= 1 && k <= n) out[k - 1] = sorted[k - 1]!;
    return out;
  };
  const counts: PairCounts = { n, below: 0, candidateBelow: 0, referenceBelow: 0 };
  if (n > 0) {
    const qc = cs[nearestRank(n, p) - 1]!;
    const qr = rs[nearestRank(n, p) - 1]!;
    for (let i = 0; i < n; i++) {
      if (c[i]! <= qc) counts.candidateBelow++;
      if (r[i]! <= qr) counts.referenceBelow++;
      if (c[i]! <= qc && r[i]! <= qr) counts.below++;
    }
  }
  return { candidate: sparse(cs), reference: sparse(rs), counts };
}

describe('pairedRelativeDifferenceFromCounts', () => {
  it.each([
    { name: 'independent, equal', n: 2_000, shared: 0, ratio: 1 },
    { name: 'strongly shared, 30 % slower', n: 2_000, shared: 0.9, ratio: 1.3 },
    { name: 'half shared, 10 % faster', n: 500, shared: 0.5, ratio: 0.9 },
    { name: 'too few for an upper bound (p95 needs 72)', n: 40, shared: 0.5, ratio: 1 },
    { name: 'a single pair', n: 1, shared: 0.5, ratio: 1 },
  ])('matches the one-pass paired difference on sparse inputs: $name', ({ n, shared, ratio }) => {
    const { c, r } = pairs(n, shared, ratio);
    const full = pairedRelativeDifference(c, r);
    const s = sufficient(c, r);
    expect(pairedRelativeDifferenceFromCounts(s.candidate, s.reference, s.counts)).toEqual(full);
  });

  it('is a no-samples difference for zero pairs (the decision is then inconclusive)', () => {
    const diff = pairedRelativeDifferenceFromCounts([], [], { n: 0, below: 0, candidateBelow: 0, referenceBelow: 0 });
    expect(diff).toMatchObject({ method: 'paired', candidate_n: 0, reference_n: 0, lower_pct: -100, upper_pct: Infinity, correlation: 0 });
    expect(diff.point_pct).toBeNaN();
  });

  it('refuses sorted sides of another length than the pair count', () => {
    const { c, r } = pairs(100, 0.5, 1);
    const s = sufficient(c, r);
    expect(() => pairedRelativeDifferenceFromCounts(s.candidate, s.reference, { ...s.counts, n: 99 })).toThrow(RangeError);
  });

  it('is narrower than the unpaired interval when the two sides share the moment, and centred the same', () => {
    const { c, r } = pairs(2_000, 0.9, 1.3);
    const s = sufficient(c, r);
    const paired = pairedRelativeDifferenceFromCounts(s.candidate, s.reference, s.counts);
    const unpaired = unpairedRelativeDifference(Float64Array.from(c).sort(), Float64Array.from(r).sort());
    expect(paired.correlation).toBeGreaterThan(0.5);
    expect(paired.point_pct).toBe(unpaired.point_pct);
    expect(paired.log_se).toBeLessThan(unpaired.log_se * 0.8);
    expect(paired.lower_pct).toBeGreaterThan(unpaired.lower_pct);
    expect(paired.upper_pct).toBeLessThan(unpaired.upper_pct);
  });
});

describe('indicatorCorrelation', () => {
  it.each<{ name: string; counts: PairCounts; expected: number }>([
    { name: 'no pairs', counts: { n: 0, below: 0, candidateBelow: 0, referenceBelow: 0 }, expected: 0 },
    { name: 'every pair below on both sides (no variance)', counts: { n: 10, below: 10, candidateBelow: 10, referenceBelow: 10 }, expected: 0 },
    { name: 'the same pairs above on both sides', counts: { n: 100, below: 95, candidateBelow: 95, referenceBelow: 95 }, expected: 1 },
    { name: 'never above together', counts: { n: 100, below: 90, candidateBelow: 95, referenceBelow: 95 }, expected: -0.0526 },
    { name: 'independent', counts: { n: 400, below: 361, candidateBelow: 380, referenceBelow: 380 }, expected: 0 },
    { name: 'opposite halves', counts: { n: 100, below: 0, candidateBelow: 50, referenceBelow: 50 }, expected: -1 },
  ])('$name → $expected', ({ counts, expected }) => {
    expect(indicatorCorrelation(counts)).toBeCloseTo(expected, 3);
  });
});
