import { binomialCdfTable, normalQuantile } from './distributions';

/** Sorted latencies in microseconds, ascending (a Float64Array sorts natively and fastest). */
export type SortedSamples = ArrayLike<number>;

/**
 * A percentile with its distribution-free confidence interval, in microseconds. `lower` is 0 and
 * `upper` is Infinity when the sample is too small to bound that side at the requested level
 * (a two-sided 95 % upper bound for p95 needs at least 72 samples: 0.95⁷² < 0.025). JSON turns Infinity into null.
 */
export interface QuantileInterval {
  p: number;
  n: number;
  /** Nearest-rank percentile (the rank ⌈p·n⌉), as the run stats report it; NaN when n = 0. */
  point: number;
  lower: number;
  upper: number;
  /** 1-based ranks of the bounds: 0 = unbounded below, n + 1 = unbounded above. */
  lower_rank: number;
  upper_rank: number;
  /** `exact` binomial ranks (n ≤ EXACT_RANKS_MAX_N) or the continuity-corrected `normal` approximation. */
  method: 'exact' | 'normal';
}

/** Up to this n the ranks come from the exact binomial (O(n)); above it the normal approximation is within a rank. */
export const EXACT_RANKS_MAX_N = 1000;

/** The nearest-rank position (1-based) of the p-th quantile in n samples; 0 when n = 0. */
export function nearestRank(n: number, p: number): number {
  if (n === 0) return 0;
  // The epsilon keeps 0.95 × 20 (= 19.000000000000004 in binary) at rank 19, as SQL's nearest rank does.
  return Math.min(n, Math.max(1, Math.ceil(p * n - 1e-9)));
}

/**
 * Ranks [l, u] of the equal-tailed order-statistic interval: the number B of samples below the
 * true quantile is Binomial(n, p), and P(X(l) ≤ ξp ≤ X(u)) = P(l ≤ B ≤ u − 1) ≥ confidence.
 * No assumption about the latency distribution beyond continuity; O(1) for large n.
 */
export function orderStatisticRanks(n: number, p: number, confidence = 0.95): { lower: number; upper: number; method: 'exact' | 'normal' } {
  const alpha = 1 - confidence;
  if (n <= EXACT_RANKS_MAX_N) {
    const cdf = binomialCdfTable(n, p);
    // lower: the largest l with P(B ≤ l − 1) ≤ α/2 (0 if none); upper: the smallest u with P(B ≥ u) ≤ α/2.
    let lower = 0;
    while (lower < n && cdf[lower]! <= alpha / 2) lower++;
    let upper = 1;
    while (upper <= n && 1 - cdf[upper - 1]! > alpha / 2) upper++;
    return { lower, upper, method: 'exact' };
  }
  const z = normalQuantile(1 - alpha / 2);
  const sd = Math.sqrt(n * p * (1 - p));
  const lower = Math.max(0, Math.floor(n * p - z * sd + 0.5));
  const upper = Math.min(n + 1, Math.ceil(n * p + z * sd + 0.5));
  return { lower, upper, method: 'normal' };
}

/** The p-th percentile of a sorted sample with its confidence interval: O(1) beyond the ranks. */
export function quantileInterval(sorted: SortedSamples, p: number, confidence = 0.95): QuantileInterval {
  const n = sorted.length;
  const ranks = orderStatisticRanks(n, p, confidence);
  const rank = nearestRank(n, p);
  return {
    p,
    n,
    point: n === 0 ? NaN : sorted[rank - 1]!,
    lower: ranks.lower === 0 ? 0 : sorted[ranks.lower - 1]!,
    upper: ranks.upper > n ? Infinity : sorted[ranks.upper - 1]!,
    lower_rank: ranks.lower,
    upper_rank: ranks.upper,
    method: ranks.method,
  };
}

export interface PercentileIntervals {
  p50: QuantileInterval;
  p95: QuantileInterval;
  p99: QuantileInterval;
}

/** p50, p95 and p99 of one target with their 95 % intervals. */
export function percentileIntervals(sorted: SortedSamples, confidence = 0.95): PercentileIntervals {
  return {
    p50: quantileInterval(sorted, 0.5, confidence),
    p95: quantileInterval(sorted, 0.95, confidence),
    p99: quantileInterval(sorted, 0.99, confidence),
  };
}
