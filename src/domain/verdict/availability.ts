import { decideAvailability, type AvailabilityDecision } from '../statistics/availability';
import { roundOutwards, showPctRange } from '../interval-display';
import type { CheckModule, MarkdownContext } from './check-module';
import { round1, showCalls } from './format';
import { DEFAULT_SUCCESS_RATE_MIN_PCT, type CheckOf, type VerdictInput } from './types';

/** A success rate, percent (two decimals), with its 95 % Wilson interval. */
interface RateInterval {
  lower: number;
  upper: number;
}

export interface AvailabilityDetails {
  calls: number;
  successful: number;
  /**
   * Of the failed calls, those answered "not there yet" (sample outcome `behind`: Solana's -32016
   * for a minContextSlot above the node's slot): a node behind, a freshness matter, never a
   * mismatch. Absent when none.
   */
  behind?: number;
  /** Null when no call was made. */
  success_rate_pct: number | null;
  success_rate_interval_pct: RateInterval;
  min_pct: number;
  answered_bucket_share: number | null;
  reason: AvailabilityDecision['reason'];
  calls_to_decide: number | null;
  /** The reference's own availability, reported beside the candidate's (not judged); null without a reference. */
  reference: {
    calls: number;
    successful: number;
    success_rate_pct: number | null;
    success_rate_interval_pct: RateInterval;
    answered_bucket_share: number | null;
  } | null;
}

export type AvailabilityCheck = CheckOf<'availability', AvailabilityDetails>;

/**
 * The candidates' success rate against thresholds.success_rate_min_pct: always judged, except in
 * a capacity sweep, which holds every step to this minimum instead (capacity).
 */
export const availability: CheckModule<AvailabilityCheck> = {
  name: 'availability',
  judge: (input) => (input.sweep ? null : { check: availabilityCheck(input) }),
  markdown: { rank: 30, lines: behindMarkdown },
};

/** Behind: answered "not there yet" (Solana's -32016), a freshness matter shown apart from the other failures. */
function behindMarkdown({ input }: MarkdownContext): string[] {
  if (![input.candidate, input.reference?.stats].some((s) => s?.calls.behind)) return [];
  return ['', '> **behind**: answered -32016 "Minimum context slot has not been reached" — the node had not reached the slot asked for. Counted as failed calls (availability), never as mismatches.'];
}

function availabilityCheck(input: VerdictInput): AvailabilityCheck {
  const minPct = input.thresholds.success_rate_min_pct ?? DEFAULT_SUCCESS_RATE_MIN_PCT;
  const { calls } = input.candidate;
  const decision = decideAvailability(calls.successful, calls.total, minPct);
  const rate = (r: typeof decision.rate) => ({
    rate_pct: Number.isNaN(r.rate_pct) ? null : Math.round(r.rate_pct * 100) / 100,
    // Outwards, as every interval (roundOutwards): never narrower than the Wilson interval judged.
    interval_pct: roundOutwards(r.lower_pct, r.upper_pct, 2),
  });
  const share = (s: number | null | undefined) => (s === null || s === undefined ? null : Math.round(s * 10_000) / 10_000);
  const candidate = rate(decision.rate);
  const ref = input.reference;
  const referenceRate = ref ? rate(decideAvailability(ref.stats.calls.successful, ref.stats.calls.total, minPct).rate) : null;
  const answered = share(input.candidateAnsweredShare);
  const what =
    calls.total === 0
      ? 'no calls made'
      : `${calls.successful} of ${calls.total} calls succeeded (${candidate.rate_pct}%, 95% interval ${showPctRange(candidate.interval_pct, 2)}%, min ${minPct}%)` +
        (calls.behind ? `, ${calls.behind} of the failed ${calls.behind === 1 ? 'one' : 'ones'} behind (the node had not reached the slot asked for)` : '') +
        (answered === null ? '' : `, answered in ${round1(answered * 100)}% of seconds`);
  const why = {
    no_calls: 'inconclusive: nothing to judge',
    at_or_above_minimum: 'pass: the whole interval is at or above the minimum',
    below_minimum: 'fail: the whole interval is below the minimum',
    straddles_minimum: `inconclusive: the interval straddles the minimum, so this run cannot tell; ${showCalls(decision.calls_to_decide)}`,
  }[decision.reason];
  return {
    name: 'availability',
    status: decision.status,
    message: `${what} — ${why}`,
    details: {
      calls: calls.total,
      successful: calls.successful,
      ...(calls.behind ? { behind: calls.behind } : {}),
      success_rate_pct: candidate.rate_pct,
      success_rate_interval_pct: candidate.interval_pct,
      min_pct: minPct,
      answered_bucket_share: answered,
      reason: decision.reason,
      calls_to_decide: decision.calls_to_decide,
      reference: ref
        ? {
            calls: ref.stats.calls.total,
            successful: ref.stats.calls.successful,
            success_rate_pct: referenceRate!.rate_pct,
            success_rate_interval_pct: referenceRate!.interval_pct,
            answered_bucket_share: share(ref.answeredShare),
          }
        : null,
    },
  };
}
