import {
  chooseBaselineModel,
  judgeAgainstHistory,
  judgePersisting,
  BASELINE_DEFAULTS,
  PERSISTING_LEVEL,
  historyRunsToRead,
  type HistoryDecision,
} from '../statistics/history-baseline';
import { decideLatency, type LatencyDecision } from '../statistics/latency-decision';
import { quantileInterval } from '../statistics/quantile-interval';
import { DEFAULT_RUN_DRIFT_SD, unpairedRelativeDifference } from '../statistics/relative-difference';
import type { CheckModule } from './check-module';
import { driftPct, EMPTY, formatPct, intervalPct, percentileMs, round1, showIntervalPct, showMs, showPercentile, usToMs } from './format';
import { decisionClause, failBound, regressionFloorMs, type FailBound } from './latency-comparison';
import type {
  BaselineComparison,
  BaselineInput,
  BaselineLimits,
  BaselineModelUsed,
  BaselineRun,
  CheckOf,
  IntervalMs,
  IntervalPct,
  VerdictInput,
} from './types';

interface BaselineDetailsCommon {
  baseline_run_id: string;
  candidate_p95_ms: number;
  /** history: the median of the history's p95s, rounded. */
  baseline_p95_ms: number;
  vs_baseline_pct: number;
  max_pct: number;
  run_ids: string[];
  candidate_p95_interval_ms: IntervalMs;
}

/** Judged against the band of the last passing runs' p95s, and the sequential rule over the newest of them. */
export interface HistoryBaselineDetails extends BaselineDetailsCommon {
  model: 'history';
  vs_history_median_pct: number | null;
  limits: BaselineLimits;
  reason: HistoryDecision['reason'] | 'persisting';
}

/** Judged sample by sample against one earlier run, with the run-drift allowance. */
export interface RunBaselineDetails extends BaselineDetailsCommon, FailBound {
  model: 'previous_run' | 'run';
  baseline_p95_interval_ms: IntervalMs;
  vs_baseline_interval_pct: IntervalPct;
  difference_ms: number | null;
  floor_ms: number;
  reason: LatencyDecision['reason'];
  calls_to_decide: number | null;
  /** history mode fallen back to the previous run: the passing runs it had; null in the other modes. */
  history_runs: number | null;
}

export type LatencyVsBaselineDetails = HistoryBaselineDetails | RunBaselineDetails;

export type LatencyVsBaselineCheck = CheckOf<'latency_vs_baseline', LatencyVsBaselineDetails>;

/** The candidates' p95 against earlier runs: when the suite has a baseline and its mode finds what to compare with. */
export const latencyVsBaseline: CheckModule<LatencyVsBaselineCheck> = {
  name: 'latency_vs_baseline',
  judge: (input) => {
    const judged = input.baseline ? baselineCheck(input, input.baseline) : null;
    return judged && { check: judged.check, baseline_comparison: judged.comparison };
  },
};

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
    window: baseline.window,
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
    band_too_wide: `inconclusive: ${bandTooWide(band.runs, judged.band_span, judged.runs_needed, max)}`,
  }[judged.reason];
  // A regression a single run hid shows when the candidate is pooled with the newest passing runs.
  const lookback = baseline.lookback ?? history;
  const persisting = judgePersisting({ candidateP95Us: Number.isNaN(q.point) ? 0 : q.point, historyP95sUs: lookback.map((h) => h.p95_us), maxPct: max, floorMs: floor });
  const pooledIds = [input.run.id, ...lookback.slice(0, persisting.runs - 1).map((h) => h.run_id)];
  const persists = judged.status !== 'fail' && judged.reason !== 'no_samples' && persisting.status === 'fail';
  const status = persists ? 'fail' : judged.status;
  const message = persists
    ? persisting.runs === 1
      ? `${what} — fail: ${formatPct(round1(persisting.vs_median_pct))} over the median of the ${persisting.reference_runs} passing runs before ` +
        `the two newest (z ${persisting.t.toFixed(2)} sd > ${persisting.limit.toFixed(2)}; against its ${band.runs}-run window alone it was ${why.replace(/^pass: /, '')})`
      : `${what} — fail: regression persisting over ${persisting.runs} runs since run ${pooledIds.at(-1)} ` +
        `(their p95s ${formatPct(round1(persisting.vs_median_pct))} over the median of the ${persisting.reference_runs} runs before, ` +
        `Σz/√${persisting.runs} ${persisting.t.toFixed(2)} sd > ${persisting.limit.toFixed(2)}; this run alone was ${why.replace(/^pass: /, '')})`
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
    history_band_span: finite(judged.band_span, 2) ?? undefined,
    ...(judged.reason === 'band_too_wide' ? { history_runs_needed: judged.runs_needed } : {}),
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
  const check: LatencyVsBaselineCheck = {
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

/** ×15 for a wide band, ×1.4 for a narrow one. */
const showSpan = (span: number) => (!Number.isFinite(span) ? '∞' : span >= 10 ? span.toFixed(0) : span.toFixed(1));

/** Why a band too wide to catch max_pct cannot judge the run, and how much history would (runsNeededForBand). */
function bandTooWide(runs: number, span: number, runsNeeded: number | null, maxPct: number): string {
  const head = `${runs} runs of history: the band spans ×${showSpan(span)}, so a regression of ${formatPct(maxPct)} would pass inside it`;
  return runsNeeded === null
    ? `${head}; at this run-to-run spread no history of up to ${historyRunsToRead(BASELINE_DEFAULTS.window)} runs would narrow it enough (a larger max_pct, or a quieter endpoint, would)`
    : `${head}; about ${runsNeeded} runs are needed`;
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
  const check: LatencyVsBaselineCheck = {
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
