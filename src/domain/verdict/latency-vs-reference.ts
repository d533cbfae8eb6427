import { decideLatency, type LatencyDecision } from '../statistics/latency-decision';
import { pairedRelativeDifferenceFromCounts, unpairedRelativeDifference, type RelativeDifference } from '../statistics/relative-difference';
import type { CheckModule, MarkdownContext } from './check-module';
import { driftPct, EMPTY, formatPct, intervalPct, intervalsMs, round1, showIntervalPct, showPercentile } from './format';
import { decisionClause, failBound, regressionFloorMs, type FailBound } from './latency-comparison';
import type {
  CheckOf,
  IntervalMs,
  IntervalPct,
  MethodComparison,
  MethodLatency,
  Pairing,
  ReferenceComparison,
  UnpairedReason,
  VerdictInput,
} from './types';

export interface LatencyVsReferenceDetails extends FailBound {
  candidate_p95_ms: number;
  reference_p95_ms: number;
  vs_reference_pct: number;
  max_pct: number;
  method: Pairing['method'];
  pairing: Pairing;
  candidate_p95_interval_ms: IntervalMs;
  reference_p95_interval_ms: IntervalMs;
  vs_reference_interval_pct: IntervalPct;
  difference_ms: number | null;
  floor_ms: number;
  reason: LatencyDecision['reason'];
  calls_to_decide: number | null;
}

export type LatencyVsReferenceCheck = CheckOf<'latency_vs_reference', LatencyVsReferenceDetails>;

/** The candidates' p95 against the reference's (paired when probed on a shared schedule): when the suite has a reference. */
export const latencyVsReference: CheckModule<LatencyVsReferenceCheck> = {
  name: 'latency_vs_reference',
  judge: (input) => {
    if (!input.reference) return null;
    const { check, comparison } = referenceCheck(input, input.reference);
    return { check, reference_comparison: comparison };
  },
  markdown: { rank: 20, lines: lastHeadsMarkdown },
};

/** Each target's last head read beside its block height, and the head lag, where the head is not the height (Solana's slot). */
function lastHeadsMarkdown({ input, escape }: MarkdownContext): string[] {
  const heads = input.reference?.lastHeads;
  if (!heads || heads.length === 0) return [];
  const one = (h: (typeof heads)[number]) => `${h.role === 'reference' ? 'reference' : 'candidate'} (${escape(h.endpoint_name)}) ${h.head} · ${h.block_height ?? '–'}`;
  const lag = input.reference?.headLagBlocks;
  const ms = input.reference?.headLagMs;
  return ['', `Last heads read (slot · block height): ${heads.map(one).join('; ')}.${lag === null || lag === undefined ? '' : ` Head lag ${lag} slots${ms === null || ms === undefined ? '' : ` (≈ ${ms} ms)`}.`}`];
}

const usToMs3 = (us: number) => Math.round(us) / 1000;

function pairingOf(input: NonNullable<VerdictInput['reference']>['pairing'], diff: RelativeDifference): Pairing {
  if (input?.method !== 'paired') {
    const none = { pairs: null, compared: null, skew_p50_ms: null, skew_p95_ms: null, skew_max_ms: null, correlation: null };
    return { method: 'unpaired', reason: input?.reason ?? null, ...none };
  }
  const { latencies } = input;
  return {
    method: 'paired',
    reason: null,
    pairs: latencies.pairs,
    compared: latencies.counts.n,
    skew_p50_ms: usToMs3(latencies.skew_us.p50),
    skew_p95_ms: usToMs3(latencies.skew_us.p95),
    skew_max_ms: usToMs3(latencies.skew_us.max),
    correlation: Math.round(diff.correlation * 1000) / 1000,
  };
}

const UNPAIRED_WHY: Record<UnpairedReason, string> = {
  closed_loop: 'unpaired: closed loop',
  several_candidates: 'unpaired: several candidates',
  not_anchored: 'unpaired: probed without a shared schedule',
};

/** "paired over 1,980 seqs, skew p95 0.4 ms" or "unpaired: closed loop", inside the check's message. */
function showPairing(pairing: Pairing): string {
  if (pairing.method === 'unpaired') return pairing.reason ? UNPAIRED_WHY[pairing.reason] : 'unpaired';
  return `paired over ${pairing.compared!.toLocaleString('en-US')} seqs, send skew p95 ${pairing.skew_p95_ms} ms`;
}

function referenceCheck(input: VerdictInput, reference: NonNullable<VerdictInput['reference']>) {
  const candidateP95 = input.candidate.latency.successful.p95_ms;
  const referenceP95 = reference.stats.latency.successful.p95_ms;
  const pct = driftPct(candidateP95, referenceP95);
  const max = input.thresholds.latency_vs_reference_max_pct;
  const candidateLatencies = input.candidateLatencies ?? EMPTY;
  const referenceLatencies = reference.latencies ?? EMPTY;
  // Paired: the interval of the p95 ratio over the seqs both sides answered, with the correlation
  // the shared instants give; otherwise the two sides count as independent samples.
  const paired = reference.pairing?.method === 'paired' ? reference.pairing.latencies : null;
  const diff = paired
    ? pairedRelativeDifferenceFromCounts(paired.candidate, paired.reference, paired.counts)
    : unpairedRelativeDifference(candidateLatencies, referenceLatencies);
  const pairing = pairingOf(reference.pairing, diff);
  const decision = decideLatency(diff, { maxPct: max, floorMs: regressionFloorMs(input) });
  const candidateIntervals = intervalsMs(candidateLatencies);
  const referenceIntervals = intervalsMs(referenceLatencies);
  const interval = intervalPct(diff);
  const measurable = decision.reason !== 'no_samples';
  const message = measurable
    ? `candidate p95 ${showPercentile(candidateIntervals.p95, candidateLatencies.length, candidateP95)} vs reference ` +
      `${showPercentile(referenceIntervals.p95, referenceLatencies.length, referenceP95)} (${formatPct(pct)}, 95% interval ` +
      `${showIntervalPct(interval)}, max ${formatPct(max)}, ${showPairing(pairing)}) — ${decisionClause(decision, regressionFloorMs(input), diff)}`
    : 'no successful calls on the candidate or the reference — inconclusive: nothing to compare (the availability check judges failed calls)';
  const check: LatencyVsReferenceCheck = {
    name: 'latency_vs_reference',
    status: decision.status,
    message,
    details: {
      candidate_p95_ms: candidateP95,
      reference_p95_ms: referenceP95,
      vs_reference_pct: pct,
      max_pct: max,
      method: pairing.method,
      pairing,
      candidate_p95_interval_ms: { lower: candidateIntervals.p95.lower, upper: candidateIntervals.p95.upper },
      reference_p95_interval_ms: { lower: referenceIntervals.p95.lower, upper: referenceIntervals.p95.upper },
      vs_reference_interval_pct: interval,
      difference_ms: Number.isNaN(decision.difference_ms) ? null : round1(decision.difference_ms),
      floor_ms: regressionFloorMs(input),
      reason: decision.reason,
      calls_to_decide: decision.calls_to_decide,
      ...failBound(diff),
    },
  };
  const comparison: ReferenceComparison = {
    endpoint_id: reference.endpoint_id,
    endpoint_name: reference.endpoint_name,
    status: check.status,
    head_lag_blocks: reference.headLagBlocks ?? null,
    head_lag_ms: reference.headLagMs ?? null,
    ...(reference.lastHeads ? { last_heads: reference.lastHeads } : {}),
    latency: {
      candidate_p50_ms: input.candidate.latency.successful.p50_ms,
      candidate_p95_ms: candidateP95,
      candidate_p99_ms: input.candidate.latency.successful.p99_ms,
      reference_p95_ms: referenceP95,
      vs_reference_pct: pct,
      by_method: (reference.byMethod ?? []).map(methodComparison),
      status: check.status,
      message,
      method: pairing.method,
      candidate_intervals_ms: candidateIntervals,
      reference_intervals_ms: referenceIntervals,
      vs_reference_interval_pct: interval,
    },
    pairing,
  };
  return { check, comparison };
}

function methodComparison(m: MethodLatency): MethodComparison {
  const measurable = m.candidate_successful > 0 && m.reference_successful > 0;
  return {
    method: m.method,
    calls: m.calls,
    failed: m.failed,
    candidate_p95_ms: m.candidate_p95_ms,
    reference_p95_ms: m.reference_p95_ms,
    vs_reference_pct: measurable ? driftPct(m.candidate_p95_ms, m.reference_p95_ms) : null,
  };
}
