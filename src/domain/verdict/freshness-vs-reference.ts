import { showMsInterval } from '../interval-display';
import type { Freshness } from '../freshness';
import type { CheckStatus } from '../run-model';
import { quantileInterval } from '../statistics/quantile-interval';
import type { CheckJson, CheckModule, VerdictJson } from './check-module';
import { freshnessMarkdownTable, freshnessOf, freshnessTextTable, missedText } from './freshness-table';
import { thresholdDefault } from '../thresholds';
import { intervalsMs, percentileMs, round1 } from './format';
import { markdownTable, textTable } from './table-block';
import type { CheckOf, EndpointFreshness, FreshnessComparison, FreshnessReason, PercentileMs, VerdictInput } from './types';
import { num, type PercentileJson } from './verdict-json';

export const DEFAULT_HEAD_LAG_P95_MAX_MS = thresholdDefault('head_lag_p95_max_ms');
export const DEFAULT_MISSED_HEADS_MAX_PCT = thresholdDefault('missed_heads_max_pct');
export const DEFAULT_STALL_MAX_S = thresholdDefault('stall_max_s');

export interface FreshnessDetails {
  head_lag_p95_max_ms: number;
  missed_heads_max_pct: number;
  stall_max_s: number;
  candidates: {
    endpoint_id: string;
    endpoint_name: string;
    status: CheckStatus;
    reason: FreshnessReason;
    lag_p95_ms: PercentileMs | null;
    missed_pct: number | null;
    longest_stall_s: number;
    flooding: boolean;
  }[];
}

export type FreshnessVsReferenceCheck = CheckOf<'freshness_vs_reference', FreshnessDetails>;

const worst = (statuses: readonly CheckStatus[]): CheckStatus =>
  statuses.includes('fail') ? 'fail' : statuses.includes('inconclusive') || statuses.length === 0 ? 'inconclusive' : 'pass';

/**
 * One candidate: a missed share or a stall above its limit fails (counts, not estimates); the
 * lag's p95 fails when its whole 95 % interval is above the limit, passes when the whole interval
 * is at or below it, and is inconclusive in between (a short watch has too few heads to bound a
 * p95 from above: 72 are needed).
 */
function judgeCandidate(
  c: Freshness['candidates'][number],
  limits: { lagMs: number; missedPct: number; stallS: number },
): { status: CheckStatus; reason: FreshnessReason; missedPct: number | null; lagP95: PercentileMs | null } {
  const judged = judgeHeads(c, limits);
  // Flooding, or a head number no chain reaches, fails the endpoint whatever its stored heads say
  // (a failure its heads show already keeps its own reason).
  if (judged.status === 'fail') return judged;
  if (c.outOfRange > 0) return { ...judged, status: 'fail', reason: 'head_out_of_range' };
  if (c.flooding) return { ...judged, status: 'fail', reason: 'flooding' };
  return judged;
}

function judgeHeads(
  c: Freshness['candidates'][number],
  limits: { lagMs: number; missedPct: number; stallS: number },
): { status: CheckStatus; reason: FreshnessReason; missedPct: number | null; lagP95: PercentileMs | null } {
  const missedPct = c.judged === 0 ? null : round1((c.missed / c.judged) * 100);
  const lagP95 = c.lagsUs.length === 0 ? null : percentileMs(quantileInterval(c.lagsUs, 0.95));
  if (c.judged === 0) return { status: 'inconclusive', reason: 'nothing_judged', missedPct, lagP95 };
  if ((c.missed / c.judged) * 100 > limits.missedPct) return { status: 'fail', reason: 'missed_above_limit', missedPct, lagP95 };
  if (c.longestStallMs / 1000 > limits.stallS) return { status: 'fail', reason: 'stall_above_limit', missedPct, lagP95 };
  if (lagP95 === null) return { status: 'inconclusive', reason: 'nothing_judged', missedPct, lagP95 };
  if (lagP95.lower > limits.lagMs) return { status: 'fail', reason: 'lag_above_limit', missedPct, lagP95 };
  if (lagP95.upper !== null && lagP95.upper <= limits.lagMs) return { status: 'pass', reason: 'within_limits', missedPct, lagP95 };
  return { status: 'inconclusive', reason: 'lag_straddles_limit', missedPct, lagP95 };
}

/** Each reason as the check's message ends its candidate's part (its JUnit testcases say it too). */
export const FRESHNESS_REASON_TEXT: Record<FreshnessReason, string> = {
  nothing_judged: 'inconclusive: no reference head could be judged',
  missed_above_limit: 'fail: missed more heads than allowed',
  stall_above_limit: 'fail: stalled longer than allowed',
  lag_above_limit: 'fail: the lag p95 is above the limit',
  lag_straddles_limit: 'inconclusive: the lag p95 interval straddles the limit (a longer watch would decide)',
  within_limits: 'pass',
  flooding: 'fail: announced more heads than the chain\'s block rate allows (flooding; the excess was not stored)',
  head_out_of_range: 'fail: announced a head number above 2^63 − 1',
};

/** What an endpoint's message says of a flood or out-of-range heads it sent; empty when none. */
function boundsNote(e: { flooding?: boolean; not_stored?: number; out_of_range?: number }): string {
  const notes = [
    ...(e.flooding ? [`flooding: ${e.not_stored} heads beyond the chain's block rate not stored`] : []),
    ...((e.out_of_range ?? 0) > 0 ? [`${e.out_of_range} heads numbered above 2^63 − 1 not stored`] : []),
  ];
  return notes.length === 0 ? '' : ` (${notes.join('; ')})`;
}

/** Each candidate's head arrivals against the reference's: when the run watched heads (config.freshness). */
export const freshnessVsReference: CheckModule<FreshnessVsReferenceCheck> = {
  name: 'freshness_vs_reference',
  judge: judgeFreshness,
  markdown: { rank: 40, lines: ({ freshness, escape }) => (freshness ? ['', ...markdownTable(freshnessMarkdownTable(freshness, escape), escape)] : []) },
  text: {
    rank: 30,
    lines: (verdict) => {
      const table = freshnessTextTable(verdict);
      return table ? textTable(table) : [];
    },
  },
  junitCases: candidateCases,
};

function judgeFreshness(input: VerdictInput): { check: FreshnessVsReferenceCheck; freshness_comparison: FreshnessComparison } | null {
  const watch = input.freshness;
  if (!watch || !input.reference) return null;
  const t = input.thresholds;
  const limits = {
    lagMs: t.head_lag_p95_max_ms ?? DEFAULT_HEAD_LAG_P95_MAX_MS,
    missedPct: t.missed_heads_max_pct ?? DEFAULT_MISSED_HEADS_MAX_PCT,
    stallS: t.stall_max_s ?? DEFAULT_STALL_MAX_S,
  };
  const nameOf = (targetId: string) => watch.endpoints[targetId] ?? { endpoint_id: targetId, endpoint_name: targetId };
  // Required: a verdict judged now has every field (the schema's optional ones are absent only from older stored verdicts).
  const candidates: Required<EndpointFreshness>[] = watch.measured.candidates.map((c) => {
    const judged = judgeCandidate(c, limits);
    return {
      ...nameOf(c.targetId),
      status: judged.status,
      reason: judged.reason,
      judged: c.judged,
      announced: c.announced,
      missed: c.missed,
      missed_pct: judged.missedPct,
      late: c.late,
      duplicates: c.duplicates,
      reorgs: c.reorgs,
      reconnects: c.reconnects,
      disconnects: c.disconnects,
      dropped: c.dropped,
      flooding: c.flooding,
      not_stored: c.notStored,
      out_of_range: c.outOfRange,
      longest_stall_ms: c.longestStallMs,
      unjudged: c.unjudged,
      lag_ms: c.lagsUs.length === 0 ? null : intervalsMs(c.lagsUs),
      lags: c.lagsUs.length,
    };
  });
  const status = worst(candidates.map((c) => c.status));
  const ref = watch.measured.reference;
  const comparison: FreshnessComparison = {
    status,
    via: watch.via,
    duration_s: watch.duration_s,
    grace_ms: watch.grace_ms,
    late_ms: watch.late_ms,
    resolution_ms: watch.via === 'poll' ? watch.poll_interval_ms : null,
    reference: {
      ...nameOf(ref.targetId),
      heads: ref.heads,
      reorgs: ref.reorgs,
      duplicates: ref.duplicates,
      reconnects: ref.reconnects,
      disconnects: ref.disconnects,
      longest_stall_ms: ref.longestStallMs,
      flooding: ref.flooding,
      not_stored: ref.notStored,
      out_of_range: ref.outOfRange,
    },
    candidates,
    observer_gaps: watch.measured.observerGaps.map((g) => ({ from_ms: Math.round(g.fromMs), to_ms: Math.round(g.toMs) })),
  };
  const parts = candidates.map((c) => {
    const p95 = c.lag_ms === null ? 'no lag measured' : `lag p95 ${showMsInterval(c.lag_ms.p95)}`;
    return `${c.endpoint_name}: ${p95}, missed ${c.missed} of ${c.judged}, longest stall ${round1(c.longest_stall_ms / 1000)} s${boundsNote(c)} — ${FRESHNESS_REASON_TEXT[c.reason]}`;
  });
  const referenceNote = boundsNote(comparison.reference);
  if (referenceNote) parts.push(`reference ${comparison.reference.endpoint_name}${referenceNote}`);
  const details: FreshnessDetails = {
    head_lag_p95_max_ms: limits.lagMs,
    missed_heads_max_pct: limits.missedPct,
    stall_max_s: limits.stallS,
    candidates: candidates.map((c) => ({
      endpoint_id: c.endpoint_id,
      endpoint_name: c.endpoint_name,
      status: c.status,
      reason: c.reason,
      lag_p95_ms: c.lag_ms?.p95 ?? null,
      missed_pct: c.missed_pct,
      longest_stall_s: round1(c.longest_stall_ms / 1000),
      flooding: c.flooding,
    })),
  };
  return {
    check: {
      name: 'freshness_vs_reference',
      status,
      message: `${parts.join('; ')} (limits: lag p95 ${limits.lagMs} ms, missed ${limits.missedPct}%, stall ${limits.stallS} s)`,
      details,
    },
    freshness_comparison: comparison,
  };
}

interface FreshnessDetailsJson {
  head_lag_p95_max_ms?: unknown;
  missed_heads_max_pct?: unknown;
  stall_max_s?: unknown;
  candidates?: { endpoint_id?: unknown; endpoint_name?: unknown; status?: unknown; reason?: unknown; lag_p95_ms?: unknown; missed_pct?: unknown; longest_stall_s?: unknown }[];
}

/**
 * Each candidate is judged on its own: one JUnit testcase per candidate, so a red build names the
 * endpoint and the figure that failed it ("lag p95 …", "missed 2 of 7", "longest stall 41.0 s"),
 * each beside its limit. A verdict without per-candidate details stays one testcase.
 */
function candidateCases(own: CheckJson, verdict: VerdictJson): CheckJson[] | null {
  const details = (own.details ?? {}) as FreshnessDetailsJson;
  if (!Array.isArray(details.candidates) || details.candidates.length === 0) return null;
  const counts = new Map((freshnessOf(verdict)?.candidates ?? []).map((c) => [c.endpoint_id, c]));
  return details.candidates.map((c) => {
    const measured = counts.get(c.endpoint_id) ?? {};
    const p95 = c.lag_p95_ms as PercentileJson | null | undefined;
    const lag = p95 && typeof p95.point === 'number' ? `lag p95 ${showMsInterval(p95)}` : 'no lag measured';
    const stall = num(c.longest_stall_s) === null ? '–' : `${num(c.longest_stall_s)!.toFixed(1)} s`;
    const reason = FRESHNESS_REASON_TEXT[c.reason as FreshnessReason] ?? String(c.status);
    const message =
      `${String(c.endpoint_name)}: ${lag} (limit ${String(details.head_lag_p95_max_ms)} ms), ` +
      `missed ${missedText({ ...measured, missed_pct: c.missed_pct }, `limit ${String(details.missed_heads_max_pct)}%`)}, ` +
      `longest stall ${stall} (limit ${String(details.stall_max_s)} s) — ${reason}`;
    return { name: `${own.name}: ${String(c.endpoint_name)}`, status: c.status, message, details: { ...c, ...measured } };
  });
}
