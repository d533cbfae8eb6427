import { nearestRank, orderStatisticRanks } from '../statistics/quantile-interval';
import { smallSampleRanks } from '../statistics/relative-difference';

/**
 * The 1-based ranks of the n sorted successful latencies the verdict reads: each of p50, p95 and
 * p99 at its nearest rank and at the two ends of its 95 % interval, and those the small-sample
 * fail bound of the p95 comparisons may read. Finalize fetches only these.
 */
export function verdictRanks(n: number): number[] {
  const ranks: number[] = smallSampleRanks(n, 0.95);
  for (const p of [0.5, 0.95, 0.99]) {
    const interval = orderStatisticRanks(n, p);
    ranks.push(nearestRank(n, p), interval.lower, interval.upper);
  }
  return ranks;
}
