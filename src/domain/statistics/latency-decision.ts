import type { RelativeDifference } from './relative-difference';

export type Decision = 'pass' | 'fail' | 'inconclusive';

export interface LatencyDecision {
  status: Decision;
  reason:
    | 'no_samples' // a side has no successful sample: nothing to compare (availability judges that run)
    | 'under_floor' // the point difference is at most the ms floor, whatever its percentage
    | 'within_limit' // the whole interval lies at or below max_pct
    | 'above_limit' // the whole interval (or, for small samples, the one-sided bound) lies above max_pct and the difference exceeds the floor
    | 'straddles_limit'; // the interval contains max_pct
  /** Point difference candidate − reference, ms; NaN when a side has no sample. */
  difference_ms: number;
  /**
   * Inconclusive only: candidate calls a run would likely need to decide, from the interval's
   * 1/√n scaling (the total, not the extra calls); null when it cannot be estimated (a side
   * unbounded, or the point exactly at the limit).
   */
  calls_to_decide: number | null;
}

export interface LatencyLimits {
  /** The check's max_pct (latency_vs_reference_max_pct or latency_regression_max_pct). */
  maxPct: number;
  /** thresholds.latency_regression_min_ms (default 5). */
  floorMs: number;
}

/**
 * The three-valued rule of DESIGN §6a. `fail` needs the difference's lower bound strictly above
 * max_pct (the two-sided interval's, or for samples too small to bound a side of it, the one-sided
 * 95 % small-sample bound: smallSampleFailBound) and the point difference strictly above the floor;
 * a bound touching the limit from above is inconclusive, an upper bound touching it from below passes.
 */
export function decideLatency(diff: RelativeDifference, limits: LatencyLimits): LatencyDecision {
  if (diff.candidate_n === 0 || diff.reference_n === 0) {
    return { status: 'inconclusive', reason: 'no_samples', difference_ms: NaN, calls_to_decide: null };
  }
  const differenceMs = (diff.candidate_us - diff.reference_us) / 1000;
  if (differenceMs <= limits.floorMs) {
    return { status: 'pass', reason: 'under_floor', difference_ms: differenceMs, calls_to_decide: null };
  }
  if (diff.upper_pct <= limits.maxPct) {
    return { status: 'pass', reason: 'within_limit', difference_ms: differenceMs, calls_to_decide: null };
  }
  if (diff.fail_lower_pct > limits.maxPct) {
    return { status: 'fail', reason: 'above_limit', difference_ms: differenceMs, calls_to_decide: null };
  }
  return {
    status: 'inconclusive',
    reason: 'straddles_limit',
    difference_ms: differenceMs,
    calls_to_decide: callsToDecide(diff, limits.maxPct),
  };
}

/**
 * The interval is ln ratio ± z·se with se ∝ 1/√n: it clears the limit once z·se shrinks below the
 * distance from the point to the limit, i.e. at n × (current half-width / distance)². An estimate:
 * the point estimate moves too as calls are added.
 */
export function callsToDecide(diff: RelativeDifference, maxPct: number): number | null {
  if (!Number.isFinite(diff.log_se) || !Number.isFinite(diff.point_pct)) return null;
  const halfWidth = (Math.log1p(diff.upper_pct / 100) - Math.log1p(diff.lower_pct / 100)) / 2;
  const distance = Math.abs(Math.log1p(diff.point_pct / 100) - Math.log1p(maxPct / 100));
  if (!(distance > 0) || !Number.isFinite(halfWidth)) return null;
  return Math.ceil(diff.candidate_n * (halfWidth / distance) ** 2);
}
