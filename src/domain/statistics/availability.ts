import { normalQuantile } from './distributions';
import type { Decision } from './latency-decision';

/** A success rate with its Wilson score interval, in percent. */
export interface SuccessRate {
  calls: number;
  successful: number;
  /** NaN when there were no calls. */
  rate_pct: number;
  lower_pct: number;
  upper_pct: number;
}

/**
 * Wilson score interval of a proportion: unlike the textbook p ± z·√(p(1−p)/n) it stays inside
 * [0, 100] and does not collapse to a zero width at 100 % success — exactly the case we see most.
 */
export function successRate(successful: number, calls: number, confidence = 0.95): SuccessRate {
  if (calls === 0) return { calls, successful, rate_pct: NaN, lower_pct: 0, upper_pct: 100 };
  const z = normalQuantile(1 - (1 - confidence) / 2);
  const p = successful / calls;
  const z2n = (z * z) / calls;
  const centre = (p + z2n / 2) / (1 + z2n);
  const half = (z * Math.sqrt((p * (1 - p)) / calls + z2n / (4 * calls))) / (1 + z2n);
  return {
    calls,
    successful,
    rate_pct: p * 100,
    lower_pct: Math.max(0, centre - half) * 100,
    upper_pct: Math.min(1, centre + half) * 100,
  };
}

export interface AvailabilityDecision {
  status: Decision;
  reason: 'no_calls' | 'at_or_above_minimum' | 'below_minimum' | 'straddles_minimum';
  rate: SuccessRate;
  /** Inconclusive only: calls a run would likely need for the interval to clear the minimum. */
  calls_to_decide: number | null;
}

/**
 * `fail` only when the whole interval lies below success_rate_min_pct, `pass` when it lies at or
 * above it, `inconclusive` otherwise (mirrors decideLatency).
 */
export function decideAvailability(successful: number, calls: number, minPct: number, confidence = 0.95): AvailabilityDecision {
  const rate = successRate(successful, calls, confidence);
  if (calls === 0) return { status: 'inconclusive', reason: 'no_calls', rate, calls_to_decide: null };
  if (rate.lower_pct >= minPct) return { status: 'pass', reason: 'at_or_above_minimum', rate, calls_to_decide: null };
  if (rate.upper_pct < minPct) return { status: 'fail', reason: 'below_minimum', rate, calls_to_decide: null };
  // The Wilson interval narrows as 1/√n but is lopsided, so the side that must clear the minimum
  // is scaled: the lower bound when the rate is above it, the upper bound when below. At 100 %
  // success the lower bound is n/(n + z²), so n ≥ z²·min/(100 − min) suffices there.
  let needed: number | null = null;
  if (rate.successful === calls) {
    const z = normalQuantile(1 - (1 - confidence) / 2);
    needed = minPct < 100 ? Math.ceil((z * z * minPct) / (100 - minPct)) : null;
  } else if (rate.rate_pct !== minPct) {
    const above = rate.rate_pct > minPct;
    const side = above ? rate.rate_pct - rate.lower_pct : rate.upper_pct - rate.rate_pct;
    needed = Math.ceil(calls * (side / Math.abs(rate.rate_pct - minPct)) ** 2);
  }
  return { status: 'inconclusive', reason: 'straddles_minimum', rate, calls_to_decide: needed };
}

/**
 * Share of the run's 1 s buckets in which the endpoint answered at least once. The caller passes
 * every second of the run's span, empty ones included: in closed loop fast failures inflate the
 * call count, so time is the fairer denominator. Null for a run with no bucket.
 */
export function answeredBucketShare(buckets: readonly { calls: number; failed: number }[]): number | null {
  if (buckets.length === 0) return null;
  let answered = 0;
  for (const b of buckets) if (b.calls - b.failed > 0) answered++;
  return answered / buckets.length;
}
