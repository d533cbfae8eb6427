import type { LatencyDecision } from '../statistics/latency-decision';
import { fewestCallsToDecide, type RelativeDifference } from '../statistics/relative-difference';
import { roundOutwards } from '../interval-display';
import { formatPct, showCalls } from './format';
import { DEFAULT_REGRESSION_MIN_MS, type VerdictInput } from './types';

/*
 * What the p95 comparisons (latency_vs_reference, latency_vs_baseline against one run) share: the
 * ms floor, the sentence on a decision, and the bound a fail read.
 */

export function regressionFloorMs(input: VerdictInput): number {
  return input.thresholds.latency_regression_min_ms ?? DEFAULT_REGRESSION_MIN_MS;
}

/** One sentence on a latency decision, for the message and the Markdown summary. */
export function decisionClause(decision: LatencyDecision, floorMs: number, diff: RelativeDifference): string {
  const fewest = fewestCallsToDecide(diff.p);
  const calls = Math.min(diff.candidate_n, diff.reference_n);
  switch (decision.reason) {
    case 'under_floor':
      return `pass: the difference is under the ${floorMs} ms floor`;
    case 'within_limit':
      return 'pass: the whole interval is at or below the limit';
    case 'above_limit':
      return diff.fail_bound === 'one_sided'
        ? `fail: too few calls for a two-sided interval (${fewest.toPass} a side), but the one-sided 95% lower bound, ${formatPct(roundOutwards(diff.fail_lower_pct, null, 1).lower)}, is above the limit`
        : 'fail: the whole interval is above the limit';
    case 'straddles_limit':
      if (!Number.isFinite(diff.upper_pct)) {
        return (
          `inconclusive: with ${calls.toLocaleString('en-US')} successful calls on a side the p95 has no two-sided interval; ` +
          `passing on the interval needs ${fewest.toPass} a side and failing ${fewest.toFail}` +
          // The bound exists from 59 calls a side, or with fewer on a side when the other has many.
          (diff.fail_lower_pct > -100 ? ', and the one-sided bound does not clear the limit' : '')
        );
      }
      return `inconclusive: the interval straddles the limit, so this run cannot tell; ${showCalls(decision.calls_to_decide)}`;
    case 'no_samples':
      return 'inconclusive: a side has no successful call to compare';
  }
}

/** The bound a fail decision read, for a check's details. */
export interface FailBound {
  fail_bound: RelativeDifference['fail_bound'];
  /** That lower bound of the difference, percent; -100 when there is none. */
  fail_lower_pct: number;
}

export function failBound(diff: RelativeDifference): FailBound {
  return { fail_bound: diff.fail_bound, fail_lower_pct: Number.isFinite(diff.fail_lower_pct) ? roundOutwards(diff.fail_lower_pct, null, 1).lower : -100 };
}
