import { emptyTally, judgeCorrectness, type CorrectnessDetails, type CorrectnessTally } from './correctness';
import { decideAvailability } from './statistics/availability';
import {
  chooseBaselineModel,
  judgeAgainstHistory,
  judgePersisting,
  BASELINE_DEFAULTS,
  PERSISTING_LEVEL,
  type PersistingDecision,
} from './statistics/history-baseline';
import { decideLatency, type LatencyDecision } from './statistics/latency-decision';
import { showMsInterval } from './interval-display';
import { nearestRank, orderStatisticRanks, percentileIntervals, quantileInterval, type QuantileInterval, type SortedSamples } from './statistics/quantile-interval';
import {
  DEFAULT_RUN_DRIFT_SD,
  fewestCallsToDecide,
  pairedRelativeDifferenceFromCounts,
  smallSampleRanks,
  unpairedRelativeDifference,
  type PairCounts,
  type RelativeDifference,
} from './statistics/relative-difference';
import type { CheckStatus } from './run-model';
import type { RunStats } from './stats';

export interface Thresholds {
  latency_p95_max_ms: number;
  latency_regression_max_pct: number;
  latency_vs_reference_max_pct: number;
  correctness_min_pct: number;
  correctness_enabled: boolean;
  /** An inconclusive check fails the verdict too (default false; absent from suites stored before it existed). */
  fail_on_inconclusive?: boolean;
  /** The availability check's minimum success rate, percent (default 99). */
  success_rate_min_pct?: number;
  /**
   * The latency checks' floor: a slower p95 fails only when it is also more than this many ms
   * slower, whatever its percentage (default 5; absent from suites stored before it existed).
   */
  latency_regression_min_ms?: number;
}

export const DEFAULT_SUCCESS_RATE_MIN_PCT = 99;
export const DEFAULT_REGRESSION_MIN_MS = 5;

function regressionFloorMs(input: VerdictInput): number {
  return input.thresholds.latency_regression_min_ms ?? DEFAULT_REGRESSION_MIN_MS;
}

export interface Check {
  name: 'latency_p95' | 'latency_vs_reference' | 'correctness' | 'latency_vs_baseline' | 'availability';
  status: CheckStatus;
  message: string;
  details: Record<string, unknown>;
}

/** Per-method latency of the candidates (all primary targets together) and the reference. */
export interface MethodLatency {
  method: string;
  /** Candidate calls of this method, and how many of them failed. */
  calls: number;
  failed: number;
  /** Successful calls of this method on each side: the p95s below are over these. */
  candidate_successful: number;
  reference_successful: number;
  /** Nearest-rank p95 over successful calls, whole ms; 0 when that side has none. */
  candidate_p95_ms: number;
  reference_p95_ms: number;
}

/** An item of reference_comparison.latency.by_method. */
export interface MethodComparison {
  method: string;
  calls: number;
  failed: number;
  candidate_p95_ms: number;
  reference_p95_ms: number;
  /** driftPct of the two p95s; null when either side has no successful call of the method. */
  vs_reference_pct: number | null;
}

/** A 95 % confidence interval, ms (one decimal); `upper` null when too few samples bound that side. */
export interface IntervalMs {
  lower: number;
  upper: number | null;
}

/** A percentile with its 95 % interval, ms. */
export interface PercentileMs {
  point: number;
  lower: number;
  upper: number | null;
}

/** A relative difference's 95 % interval, percent (one decimal); `upper` null when unbounded. */
export interface IntervalPct {
  lower: number;
  upper: number | null;
}

/** Why a reference comparison is unpaired. */
export type UnpairedReason =
  | 'closed_loop' // concurrency-driven: no schedule to share, the calls of one seq are sent whenever a caller is free
  | 'several_candidates' // more than one primary target: a reference call would pair with several candidate calls
  | 'not_anchored'; // open loop, but probed without a shared anchor (a run begun before paired probing)

/**
 * How candidate and reference were compared, and how well the pairing held: the skew is
 * |candidate send time − reference send time| of one seq, over the seqs sent to both on the
 * shared anchor (failed calls included). Null fields do not apply to the method.
 */
export interface Pairing {
  method: 'paired' | 'unpaired';
  /** Unpaired only: why; null when paired (or unknown, for inputs that do not say). */
  reason: UnpairedReason | null;
  /** Seqs sent to both sides on the shared anchor. */
  pairs: number | null;
  /** Of those, seqs that succeeded on both sides: the paired difference is over these. */
  compared: number | null;
  skew_p50_ms: number | null;
  skew_p95_ms: number | null;
  skew_max_ms: number | null;
  /** Estimated correlation of the two sample p95s (what pairing cancels), 3 decimals. */
  correlation: number | null;
}

/** A paired run's latencies and skew, from PostgreSQL (db/paired-samples.ts). */
export interface PairedLatencies {
  /** Seqs sent to both sides on the shared anchor, failed calls included. */
  pairs: number;
  /** Sorted latencies, µs, of each side over the seqs that succeeded on both (may be sparse: the p95 interval's ranks). */
  candidate: SortedSamples;
  reference: SortedSamples;
  /** Indicator counts at each side's p95 over the same seqs (relative-difference.ts). */
  counts: PairCounts;
  /** |candidate send lag − reference send lag| over the pairs, µs. */
  skew_us: { p50: number; p95: number; max: number };
}

export interface ReferenceComparison {
  endpoint_id: string;
  endpoint_name: string;
  status: CheckStatus;
  /**
   * Median over the candidates' head observations of (candidate head − reference head observed
   * nearest in time), in blocks; positive = candidate ahead. Null when nothing was observed.
   */
  head_lag_blocks: number | null;
  latency: {
    candidate_p50_ms: number;
    candidate_p95_ms: number;
    candidate_p99_ms: number;
    reference_p95_ms: number;
    vs_reference_pct: number;
    by_method: MethodComparison[];
    status: CheckStatus;
    message: string;
    /** The 95 % intervals behind the decision (absent from verdicts stored before they existed). */
    method?: 'unpaired' | 'paired';
    candidate_intervals_ms?: { p50: PercentileMs; p95: PercentileMs; p99: PercentileMs };
    reference_intervals_ms?: { p50: PercentileMs; p95: PercentileMs; p99: PercentileMs };
    vs_reference_interval_pct?: IntervalPct;
  };
  /** Paired or unpaired, and the pairing skew (absent from verdicts stored before paired probing). */
  pairing?: Pairing;
}

export type BaselineModelUsed = 'history' | 'previous_run' | 'run';

export interface BaselineComparison {
  run_id: string;
  candidate_p95_ms: number;
  baseline_p95_ms: number;
  vs_baseline_pct: number;
  status: CheckStatus;
  message: string;
  /** Absent from verdicts stored before the history model existed. */
  model?: BaselineModelUsed;
  run_ids?: string[];
  limits?: BaselineLimits;
  candidate_p95_interval_ms?: IntervalMs;
}

/**
 * The limits a baseline comparison applied. history: the band's upper limit (99 % one-sided t
 * prediction interval over the runs' p95s) and the median the pct and the floor are measured from;
 * previous_run / run: the interval of the difference (with the run-drift allowance).
 */
export interface BaselineLimits {
  max_pct: number;
  floor_ms: number;
  history_median_ms?: number;
  history_upper_ms?: number;
  history_lower_ms?: number;
  history_log_sd?: number;
  /** history: passing runs the spread (history_log_sd) was estimated from — the window, or up to 30 more (absent before it). */
  history_spread_runs?: number;
  upper_boundary?: number;
  /** history: the sequential rule over the candidate and the newest passing runs (absent from verdicts judged before it). */
  persisting?: PersistingLimits;
  vs_baseline_interval_pct?: IntervalPct;
  run_drift_sd?: number;
}

export interface PersistingLimits {
  status: 'pass' | 'fail';
  reason: PersistingDecision['reason'];
  /** The candidate and the passing runs pooled with it, newest first (the oldest is where the streak starts). */
  run_ids: string[];
  reference_runs: number;
  t: number | null;
  limit: number | null;
  vs_median_pct: number | null;
  level: number;
}

export type VerdictValue = 'pass' | 'fail' | 'error';

/** Everything of the spec's Verdict except dashboard_url, which is signed per request. */
export interface ComputedVerdict {
  verdict: VerdictValue;
  summary: string;
  checks: Check[];
  reference_comparison: ReferenceComparison | null;
  baseline_comparison: BaselineComparison | null;
  thresholds: Thresholds;
  markdown_summary: string;
  exit_code: 0 | 1 | 2;
}

/** An earlier run the baseline may use: its p95 in µs (for the history), and its calls (for the fallback). */
export interface BaselineRun {
  run_id: string;
  stats: RunStats;
  /** Sorted successful latencies, µs (may be sparse: only the ranks the p95 interval reads). */
  latencies: SortedSamples;
}

export interface BaselineInput {
  /** The suite's baseline mode (a per-run baseline_run_id counts as `run`). */
  mode: 'history' | 'previous_success' | 'run';
  /** baseline.min_runs: fewer passing runs in the window fall back to the previous run. */
  minRuns?: number;
  /** history mode: per-run candidate p95 (µs) of the last `window` passing runs, newest first. */
  history?: readonly { run_id: string; p95_us: number }[];
  /**
   * history mode: the same runs and older ones, up to historyRunsToRead(window), newest first —
   * what the sequential rule (judgePersisting) pools and compares with. Absent: `history`.
   */
  lookback?: readonly { run_id: string; p95_us: number }[];
  /** The run compared sample by sample: the previous passing run, or the chosen one. */
  previous: BaselineRun | null;
}

export interface VerdictInput {
  run: { id: string; status: 'success' | 'failed' | 'cancelled'; failure_reason: string | null };
  suiteName: string;
  thresholds: Thresholds;
  candidate: RunStats;
  /** The candidates' sorted successful latencies, µs (may be sparse: only the ranks the intervals read). */
  candidateLatencies?: SortedSamples;
  /**
   * Each primary target on its own (a suite may have several candidates): its sorted successful
   * latencies (sparse as above) and, when known, its stats. Omitted, only the candidates together are reported.
   */
  targets?: readonly { endpoint_id: string; endpoint_name: string; stats?: RunStats['calls'] | null; latencies: SortedSamples }[];
  /** Share of the run's 1 s buckets in which the candidates answered at least once; null when unknown. */
  candidateAnsweredShare?: number | null;
  reference: {
    endpoint_id: string;
    endpoint_name: string;
    stats: RunStats;
    latencies?: SortedSamples;
    answeredShare?: number | null;
    /** Per-method latency of both sides; none when omitted. */
    byMethod?: readonly MethodLatency[];
    /** See ReferenceComparison.head_lag_blocks; null when omitted. */
    headLagBlocks?: number | null;
    /** Paired (open loop on a shared anchor) or why not; omitted: unpaired, reason unknown. */
    pairing?: { method: 'paired'; latencies: PairedLatencies } | { method: 'unpaired'; reason: UnpairedReason };
  } | null;
  baseline: BaselineInput | null;
  /**
   * Candidate/reference answer pairs counted (computed in SQL at finalize). Judged only when a
   * reference exists and thresholds.correctness_enabled; omitted, it counts as nothing compared.
   */
  correctness?: CorrectnessTally;
  /** What CI built (the trigger's branch and commit) and the baseline branch read; omitted: not shown. */
  source?: { branch: string | null; commit: string | null; baselineBranch: string };
}

/** Percent drift of `value` against `base`, one decimal; a base of 0 ms counts as 1 ms. */
export function driftPct(value: number, base: number): number {
  // `|| 0` turns -0 into 0 so a tiny improvement never prints as "-0%".
  return Math.round(((value - base) / Math.max(base, 1)) * 1000) / 10 || 0;
}

const EMPTY: SortedSamples = [];

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
const round1 = (x: number) => Math.round(x * 10) / 10 || 0;
const usToMs = (us: number) => round1(us / 1000);

function percentileMs(q: QuantileInterval): PercentileMs {
  return {
    point: Number.isNaN(q.point) ? 0 : usToMs(q.point),
    lower: usToMs(q.lower),
    upper: q.upper === Infinity ? null : usToMs(q.upper),
  };
}

function intervalsMs(sorted: SortedSamples) {
  const q = percentileIntervals(sorted);
  return { p50: percentileMs(q.p50), p95: percentileMs(q.p95), p99: percentileMs(q.p99) };
}

function intervalPct(diff: RelativeDifference): IntervalPct {
  return { lower: round1(diff.lower_pct), upper: diff.upper_pct === Infinity ? null : round1(diff.upper_pct) };
}

/** "120 ms [112–131]": whole ms from 10 ms up, one decimal below. */
function showMs(ms: number | null): string {
  if (ms === null) return '∞';
  return ms >= 10 ? String(Math.round(ms)) : String(round1(ms));
}

/**
 * A percentile with its interval, as measured: the interval's own point (the same order statistic
 * as its bounds, one decimal). The run's whole-ms statistic beside one-decimal bounds could fall
 * outside them ("2 ms [1.5–1.6]"); it is shown only where there were no samples to bound.
 */
function showPercentile(p: PercentileMs, samples: number, statisticMs: number): string {
  return showMsInterval(samples > 0 ? p : { ...p, point: statisticMs });
}

function showIntervalPct(i: IntervalPct): string {
  return `${formatPct(i.lower)}…${i.upper === null ? '∞' : formatPct(i.upper)}`;
}

function showCalls(n: number | null): string {
  return n === null ? 'more calls would be needed to decide' : `about ${n.toLocaleString('en-US')} calls would decide`;
}

function latencyP95Check(input: VerdictInput, latencies: SortedSamples): Check {
  const { candidate, thresholds: t } = input;
  const p95 = candidate.latency.successful.p95_ms;
  const q = quantileInterval(latencies, 0.95);
  const details = {
    p95,
    threshold: t.latency_p95_max_ms,
    // The candidate's p95 in µs: what the history baseline of later runs reads.
    p95_us: Number.isNaN(q.point) ? null : q.point,
    intervals_ms: intervalsMs(latencies),
    // Every primary target on its own, so a suite with several candidates shows which one is slow.
    targets: (input.targets ?? []).map((target) => ({
      endpoint_id: target.endpoint_id,
      endpoint_name: target.endpoint_name,
      successful: target.latencies.length,
      intervals_ms: intervalsMs(target.latencies),
    })),
  };
  if (candidate.calls.successful === 0) {
    return { name: 'latency_p95', status: 'fail', message: 'no successful calls to measure', details };
  }
  const pass = p95 <= t.latency_p95_max_ms;
  return {
    name: 'latency_p95',
    status: pass ? 'pass' : 'fail',
    message: `p95 ${showPercentile(details.intervals_ms.p95, latencies.length, p95)} ${pass ? '<=' : '>'} ${t.latency_p95_max_ms} ms`,
    details,
  };
}

/** One sentence on a latency decision, for the message and the Markdown summary. */
function decisionClause(decision: LatencyDecision, floorMs: number, diff: RelativeDifference): string {
  const fewest = fewestCallsToDecide(diff.p);
  const calls = Math.min(diff.candidate_n, diff.reference_n);
  switch (decision.reason) {
    case 'under_floor':
      return `pass: the difference is under the ${floorMs} ms floor`;
    case 'within_limit':
      return 'pass: the whole interval is at or below the limit';
    case 'above_limit':
      return diff.fail_bound === 'one_sided'
        ? `fail: too few calls for a two-sided interval (${fewest.toPass} a side), but the one-sided 95% lower bound, ${formatPct(round1(diff.fail_lower_pct))}, is above the limit`
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
  const check: Check = {
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

/** The bound a fail decision read, for a check's details. */
function failBound(diff: RelativeDifference) {
  return { fail_bound: diff.fail_bound, fail_lower_pct: Number.isFinite(diff.fail_lower_pct) ? round1(diff.fail_lower_pct) : -100 };
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

/** Which baseline model judges this run, and with what (see chooseBaselineModel). */
export function baselineModel(baseline: BaselineInput): BaselineModelUsed | null {
  if (baseline.mode === 'history') {
    const model = chooseBaselineModel({
      historyRuns: baseline.history?.length ?? 0,
      hasPreviousRun: baseline.previous !== null,
      minRuns: baseline.minRuns ?? BASELINE_DEFAULTS.minRuns,
    });
    return model === 'none' ? null : model;
  }
  if (!baseline.previous) return null;
  return baseline.mode === 'run' ? 'run' : 'previous_run';
}

function historyBaselineCheck(input: VerdictInput, baseline: BaselineInput) {
  const history = baseline.history ?? [];
  const candidateLatencies = input.candidateLatencies ?? EMPTY;
  const q = quantileInterval(candidateLatencies, 0.95);
  const candidateP95 = input.candidate.latency.successful.p95_ms;
  const max = input.thresholds.latency_regression_max_pct;
  const floor = regressionFloorMs(input);
  const judged = judgeAgainstHistory({
    candidateP95Us: Number.isNaN(q.point) ? 0 : q.point,
    candidateSamples: q.n,
    historyP95sUs: history.map((h) => h.p95_us),
    spreadP95sUs: (baseline.lookback ?? history).map((h) => h.p95_us),
    maxPct: max,
    floorMs: floor,
  });
  const { band } = judged;
  const medianMs = usToMs(band.median_us);
  const upperMs = usToMs(band.upper_us);
  const baselineP95 = Math.round(band.median_us / 1000);
  const pct = driftPct(candidateP95, baselineP95);
  const overMedian = Number.isNaN(judged.vs_median_pct) ? null : round1(judged.vs_median_pct);
  const what = `candidate p95 ${showPercentile(percentileMs(q), q.n, candidateP95)} vs the history of ${band.runs} passing runs (median ${showMs(medianMs)} ms, upper limit ${showMs(upperMs)} ms, ${overMedian === null ? 'n/a' : formatPct(overMedian)} over the median, max ${formatPct(max)})`;
  const why = {
    no_samples: 'inconclusive: no successful call to compare',
    within_band: 'pass: within the band of the history',
    under_pct: `pass: above the band but not more than ${formatPct(max)} over the median`,
    under_floor: `pass: above the band but less than the ${floor} ms floor over the median`,
    above_band: `fail: above the band, more than ${formatPct(max)} and more than ${floor} ms over the median`,
  }[judged.reason];
  // A regression a single run hid shows when the candidate is pooled with the newest passing runs.
  const lookback = baseline.lookback ?? history;
  const persisting = judgePersisting({ candidateP95Us: Number.isNaN(q.point) ? 0 : q.point, historyP95sUs: lookback.map((h) => h.p95_us), maxPct: max, floorMs: floor });
  const pooledIds = [input.run.id, ...lookback.slice(0, persisting.runs - 1).map((h) => h.run_id)];
  const persists = judged.status !== 'fail' && judged.reason !== 'no_samples' && persisting.status === 'fail';
  const status = persists ? 'fail' : judged.status;
  const message = persists
    ? `${what} — fail: regression persisting over ${persisting.runs} runs since run ${pooledIds.at(-1)} ` +
      `(their p95s ${formatPct(round1(persisting.vs_median_pct))} over the median of the ${persisting.reference_runs} runs before, ` +
      `CUSUM ${persisting.t.toFixed(2)} sd > ${persisting.limit.toFixed(2)}; this run alone was ${why.replace(/^pass: /, '')})`
    : `${what} — ${why}`;
  const runIds = history.map((h) => h.run_id);
  const finite = (x: number, digits: number) => (Number.isFinite(x) ? Math.round(x * 10 ** digits) / 10 ** digits : null);
  const limits: BaselineLimits = {
    max_pct: max,
    floor_ms: floor,
    history_median_ms: medianMs,
    history_upper_ms: upperMs,
    history_lower_ms: usToMs(band.lower_us),
    history_log_sd: Math.round(band.log_sd * 10_000) / 10_000,
    history_spread_runs: band.spread_runs,
    upper_boundary: band.upper_boundary,
    persisting: {
      status: persisting.status,
      reason: persisting.reason,
      run_ids: pooledIds,
      reference_runs: persisting.reference_runs,
      t: finite(persisting.t, 3),
      limit: finite(persisting.limit, 3),
      vs_median_pct: finite(persisting.vs_median_pct, 1),
      level: PERSISTING_LEVEL,
    },
  };
  const check: Check = {
    name: 'latency_vs_baseline',
    status,
    message,
    details: {
      baseline_run_id: runIds[0]!,
      candidate_p95_ms: candidateP95,
      baseline_p95_ms: baselineP95,
      vs_baseline_pct: pct,
      max_pct: max,
      model: 'history',
      run_ids: runIds,
      candidate_p95_interval_ms: { lower: usToMs(q.lower), upper: q.upper === Infinity ? null : usToMs(q.upper) },
      vs_history_median_pct: overMedian,
      limits,
      reason: persists ? 'persisting' : judged.reason,
    },
  };
  const comparison: BaselineComparison = {
    run_id: runIds[0]!,
    candidate_p95_ms: candidateP95,
    baseline_p95_ms: baselineP95,
    vs_baseline_pct: pct,
    status: check.status,
    message,
    model: 'history',
    run_ids: runIds,
    limits,
    candidate_p95_interval_ms: { lower: usToMs(q.lower), upper: q.upper === Infinity ? null : usToMs(q.upper) },
  };
  return { check, comparison };
}

function runBaselineCheck(input: VerdictInput, baseline: BaselineInput, previous: BaselineRun, model: 'previous_run' | 'run') {
  const candidateP95 = input.candidate.latency.successful.p95_ms;
  const baselineP95 = previous.stats.latency.successful.p95_ms;
  const pct = driftPct(candidateP95, baselineP95);
  const max = input.thresholds.latency_regression_max_pct;
  const floor = regressionFloorMs(input);
  const candidateLatencies = input.candidateLatencies ?? EMPTY;
  // Another run's p95 drifts from this one's even when nothing changed: the allowance keeps that drift from reading as a regression.
  const diff = unpairedRelativeDifference(candidateLatencies, previous.latencies, { runDriftSd: DEFAULT_RUN_DRIFT_SD });
  const decision = decideLatency(diff, { maxPct: max, floorMs: floor });
  const candidateInterval = percentileMs(quantileInterval(candidateLatencies, 0.95));
  const baselineInterval = percentileMs(quantileInterval(previous.latencies, 0.95));
  const interval = intervalPct(diff);
  const history = baseline.history?.length ?? 0;
  const fallback =
    baseline.mode === 'history'
      ? `only ${history} passing run${history === 1 ? '' : 's'} in the history (min_runs ${baseline.minRuns ?? BASELINE_DEFAULTS.minRuns}), so compared with the previous passing run's calls: `
      : '';
  const message =
    decision.reason === 'no_samples'
      ? `${fallback}no successful calls on the candidate or the baseline run — inconclusive: nothing to compare`
      : `${fallback}candidate p95 ${showPercentile(candidateInterval, candidateLatencies.length, candidateP95)} vs baseline ` +
        `${showPercentile(baselineInterval, previous.latencies.length, baselineP95)} (${formatPct(pct)}, 95% interval ${showIntervalPct(interval)} ` +
        `with a 10% run-drift allowance, max ${formatPct(max)}) — ${decisionClause(decision, floor, diff)}`;
  const limits: BaselineLimits = {
    max_pct: max,
    floor_ms: floor,
    vs_baseline_interval_pct: interval,
    run_drift_sd: Math.round(DEFAULT_RUN_DRIFT_SD * 10_000) / 10_000,
  };
  const check: Check = {
    name: 'latency_vs_baseline',
    status: decision.status,
    message,
    details: {
      baseline_run_id: previous.run_id,
      candidate_p95_ms: candidateP95,
      baseline_p95_ms: baselineP95,
      vs_baseline_pct: pct,
      max_pct: max,
      model,
      run_ids: [previous.run_id],
      candidate_p95_interval_ms: { lower: candidateInterval.lower, upper: candidateInterval.upper },
      baseline_p95_interval_ms: { lower: baselineInterval.lower, upper: baselineInterval.upper },
      vs_baseline_interval_pct: interval,
      difference_ms: Number.isNaN(decision.difference_ms) ? null : round1(decision.difference_ms),
      floor_ms: floor,
      reason: decision.reason,
      calls_to_decide: decision.calls_to_decide,
      ...failBound(diff),
      history_runs: baseline.mode === 'history' ? history : null,
    },
  };
  const comparison: BaselineComparison = {
    run_id: previous.run_id,
    candidate_p95_ms: candidateP95,
    baseline_p95_ms: baselineP95,
    vs_baseline_pct: pct,
    status: check.status,
    message,
    model,
    run_ids: [previous.run_id],
    limits,
    candidate_p95_interval_ms: { lower: candidateInterval.lower, upper: candidateInterval.upper },
  };
  return { check, comparison };
}

function baselineCheck(input: VerdictInput, baseline: BaselineInput) {
  const model = baselineModel(baseline);
  if (model === 'history') return historyBaselineCheck(input, baseline);
  if (model === null || !baseline.previous) return null;
  return runBaselineCheck(input, baseline, baseline.previous, model);
}

function availabilityCheck(input: VerdictInput): Check {
  const minPct = input.thresholds.success_rate_min_pct ?? DEFAULT_SUCCESS_RATE_MIN_PCT;
  const { calls } = input.candidate;
  const decision = decideAvailability(calls.successful, calls.total, minPct);
  const rate = (r: typeof decision.rate) => ({
    rate_pct: Number.isNaN(r.rate_pct) ? null : Math.round(r.rate_pct * 100) / 100,
    interval_pct: { lower: Math.round(r.lower_pct * 100) / 100, upper: Math.round(r.upper_pct * 100) / 100 },
  });
  const share = (s: number | null | undefined) => (s === null || s === undefined ? null : Math.round(s * 10_000) / 10_000);
  const candidate = rate(decision.rate);
  const ref = input.reference;
  const referenceRate = ref ? rate(decideAvailability(ref.stats.calls.successful, ref.stats.calls.total, minPct).rate) : null;
  const answered = share(input.candidateAnsweredShare);
  const what =
    calls.total === 0
      ? 'no calls made'
      : `${calls.successful} of ${calls.total} calls succeeded (${candidate.rate_pct}%, 95% interval ${candidate.interval_pct.lower}–${candidate.interval_pct.upper}%, min ${minPct}%)` +
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

function formatPct(pct: number): string {
  return `${pct > 0 ? '+' : ''}${pct}%`;
}

const STATUS_CELL: Record<CheckStatus, string> = { pass: '✅ pass', fail: '❌ fail', inconclusive: '❔ inconclusive' };

/**
 * "Branch `feature/x` @ `1a2b3c4` · baseline branch `main` (compared with it; never joins it)".
 * A branch is named by whoever pushed it: inside code spans, with backticks and line breaks
 * (git allows the first) taken out, it cannot become a link or markup in a pull-request comment.
 */
function sourceMarkdown(source: NonNullable<VerdictInput['source']>): string | null {
  if (source.branch === null && source.commit === null) return null;
  const code = (text: string) => `\`${text.replace(/[`\r\n]/g, '\'')}\``;
  const parts = [
    source.branch === null ? 'No branch' : `Branch ${code(source.branch)}`,
    ...(source.commit === null ? [] : [`@ ${code(source.commit.slice(0, 12))}`]),
  ];
  const other = source.branch !== null && source.branch !== source.baselineBranch;
  return `${parts.join(' ')} · baseline branch ${code(source.baselineBranch)}${other ? ' (compared with it; never joins it)' : ''}`;
}

function markdown(input: VerdictInput, verdict: VerdictValue, summary: string, checks: Check[]): string {
  const icon = { pass: '✅', fail: '❌', error: '⚠️' }[verdict];
  const lines = [`### ${icon} ${input.suiteName}: ${verdict.toUpperCase()}`, '', summary, ''];
  const escape = (text: string) => text.replace(/\|/g, '\\|');
  const sourceLine = input.source && sourceMarkdown(input.source);
  if (sourceLine) lines.push(sourceLine, '');
  if (checks.length > 0) {
    lines.push('| Check | Status | Result |', '| --- | --- | --- |');
    for (const check of checks) {
      lines.push(`| ${check.name} | ${STATUS_CELL[check.status]} | ${escape(check.message)} |`);
    }
    lines.push('');
    for (const check of checks.filter((c) => c.status === 'inconclusive')) {
      // Every three-valued message ends in " — <status>: <why>"; the sentence is the why.
      const because = check.message.split(' — ').pop()!.replace(/^inconclusive: /, '');
      lines.push(
        `> **${check.name} is inconclusive**: ${because}` +
          `${input.thresholds.fail_on_inconclusive ? ' (thresholds.fail_on_inconclusive: this fails the verdict)' : ' (this does not fail the verdict)'}.`,
        '',
      );
    }
  }
  const cell = (point: number, latencies: SortedSamples | undefined, p: 'p50' | 'p95' | 'p99') =>
    latencies ? showPercentile(intervalsMs(latencies)[p], latencies.length, point) : `${point} ms`;
  const row = (name: string, s: RunStats, latencies: SortedSamples | undefined) =>
    `| ${name} | ${s.calls.total} | ${s.calls.failed} | ${cell(s.latency.successful.p50_ms, latencies, 'p50')} | ` +
    `${cell(s.latency.successful.p95_ms, latencies, 'p95')} | ${cell(s.latency.successful.p99_ms, latencies, 'p99')} |`;
  lines.push(
    '| Endpoint | Calls | Failed | p50 [95% interval] | p95 [95% interval] | p99 [95% interval] |',
    '| --- | --- | --- | --- | --- | --- |',
    row('candidate', input.candidate, input.candidateLatencies),
  );
  const targets = input.targets ?? [];
  if (targets.length > 1) {
    for (const target of targets) {
      const intervals = intervalsMs(target.latencies);
      const calls = target.stats ? `${target.stats.total} | ${target.stats.failed}` : `– | –`;
      lines.push(
        `| candidate (${escape(target.endpoint_name)}) | ${calls} | ${showMsInterval(intervals.p50)} | ${showMsInterval(intervals.p95)} | ${showMsInterval(intervals.p99)} |`,
      );
    }
  }
  if (input.reference) lines.push(row(`reference (${escape(input.reference.endpoint_name)})`, input.reference.stats, input.reference.latencies));
  const correctness = checks.find((c) => c.name === 'correctness')?.details as Partial<CorrectnessDetails> | undefined;
  const mismatches = correctness?.mismatches ?? [];
  const byMethod = correctness?.mismatches_by_method ?? [];
  if (byMethod.length > 0) {
    const counts = byMethod.map((m) => `\`${m.method}\` ${m.mismatched} of ${m.compared}`).join(', ');
    lines.push('', `Mismatches by method: ${counts}.`);
  }
  if (mismatches.length > 0) {
    lines.push('', '<details><summary>Top mismatches</summary>', '');
    const code = (text: string) => `\`${text.replace(/`/g, "'")}\``;
    for (const m of mismatches.slice(0, 5)) {
      const params = JSON.stringify(m.params ?? null).slice(0, 120);
      const times = (m.occurrences ?? 1) > 1 ? ` (×${m.occurrences})` : '';
      // What differs, where it is known: each path with both values; else the two fingerprints.
      const what =
        m.differences_status === 'shown' && m.differences && m.differences.length > 0
          ? m.differences.map((d) => `${code(d.path)} candidate ${code(d.candidate)} ≠ reference ${code(d.reference)}`).join('; ') +
            (m.more_differences ? '; …' : '')
          : `candidate ${code(m.candidate_hash.slice(0, 12))} ≠ reference ${code(m.reference_hash.slice(0, 12))}`;
      lines.push(`- ${code(m.method)} ${code(params)}${times}: ${what}`);
    }
    lines.push('', '</details>');
  }
  return lines.join('\n');
}

/** Pure: judges a finished run. No I/O, so every boundary is a table-driven unit test. */
export function computeVerdict(input: VerdictInput): ComputedVerdict {
  const { run, thresholds } = input;
  if (run.status !== 'success') {
    const summary = `Run ${run.status}: ${run.failure_reason ?? 'no reason recorded'}; nothing to judge.`;
    return {
      verdict: 'error',
      summary,
      checks: [],
      reference_comparison: null,
      baseline_comparison: null,
      thresholds,
      markdown_summary: markdown(input, 'error', summary, []),
      exit_code: 2,
    };
  }
  const checks: Check[] = [latencyP95Check(input, input.candidateLatencies ?? EMPTY)];
  let referenceComparison: ReferenceComparison | null = null;
  if (input.reference) {
    const { check, comparison } = referenceCheck(input, input.reference);
    checks.push(check);
    referenceComparison = comparison;
    if (thresholds.correctness_enabled) {
      checks.push(judgeCorrectness(input.correctness ?? emptyTally(), thresholds.correctness_min_pct));
    }
  }
  let baselineComparison: BaselineComparison | null = null;
  const judgedBaseline = input.baseline ? baselineCheck(input, input.baseline) : null;
  if (judgedBaseline) {
    checks.push(judgedBaseline.check);
    baselineComparison = judgedBaseline.comparison;
  }
  checks.push(availabilityCheck(input));
  const failOnInconclusive = thresholds.fail_on_inconclusive === true;
  const failing = checks.filter((c) => c.status === 'fail' || (failOnInconclusive && c.status === 'inconclusive'));
  const inconclusive = checks.filter((c) => c.status === 'inconclusive');
  const verdict: VerdictValue = failing.length === 0 ? 'pass' : 'fail';
  const p95 = `p95 ${input.candidate.latency.successful.p95_ms} ms over ${input.candidate.calls.total} calls`;
  const summary =
    verdict === 'fail'
      ? `${failing.length} of ${checks.length} checks failed: ${failing.map((c) => (c.status === 'inconclusive' ? `${c.name} (inconclusive, fail_on_inconclusive)` : c.name)).join(', ')}.`
      : inconclusive.length === 0
        ? `All ${checks.length} checks passed (${p95}).`
        : `${checks.length - inconclusive.length} of ${checks.length} checks passed, ${inconclusive.length} inconclusive (${inconclusive.map((c) => c.name).join(', ')}); none failed (${p95}).`;
  return {
    verdict,
    summary,
    checks,
    reference_comparison: referenceComparison,
    baseline_comparison: baselineComparison,
    thresholds,
    markdown_summary: markdown(input, verdict, summary, checks),
    exit_code: verdict === 'pass' ? 0 : 1,
  };
}
