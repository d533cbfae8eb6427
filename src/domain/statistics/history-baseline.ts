import { studentTQuantile } from './distributions';

export type BaselineModel = 'history' | 'previous_run' | 'none';

export const BASELINE_DEFAULTS = { window: 10, minRuns: 5, upperBoundary: 0.99 } as const;

/**
 * Which baseline model judges the run: the suite's history when at least `minRuns` passing runs
 * are in the window, else the previous run's samples under the interval rule (decideLatency),
 * else nothing.
 */
export function chooseBaselineModel(input: { historyRuns: number; hasPreviousRun: boolean; minRuns?: number }): BaselineModel {
  const minRuns = Math.max(2, input.minRuns ?? BASELINE_DEFAULTS.minRuns);
  if (input.historyRuns >= minRuns) return 'history';
  return input.hasPreviousRun ? 'previous_run' : 'none';
}

/** A one-sided t prediction interval for the next run's p95, on the log scale (bencher's t-test model). */
export interface HistoryBand {
  runs: number;
  /** Runs whose spread the band uses: the window, or the longer lookback when given. */
  spread_runs: number;
  /** Median of the history's p95s, µs: what max_pct and the floor are measured against. */
  median_us: number;
  /** exp(mean of ln p95), µs. */
  geometric_mean_us: number;
  /** Standard deviation of ln p95 across the runs (0 for a constant history). */
  log_sd: number;
  /** The upper prediction limit for the next run's p95, µs. */
  upper_us: number;
  /** The matching lower limit (reported, never judged: a faster run is no regression). */
  lower_us: number;
  upper_boundary: number;
}

/**
 * Prediction interval from the per-run p95s (µs) of the last `window` passing runs. Per-run p95s
 * already carry each run's sampling noise and the run-to-run drift, so no per-sample term is added:
 * the spread of the history is the noise the next run is judged against.
 */
export function historyBand(
  p95sUs: readonly number[],
  upperBoundary: number = BASELINE_DEFAULTS.upperBoundary,
  spreadP95sUs: readonly number[] = p95sUs,
): HistoryBand {
  const k = p95sUs.length;
  if (k < 2) throw new RangeError(`historyBand needs at least 2 runs, got ${k} (chooseBaselineModel decides first)`);
  const logOf = (v: number) => Math.log(Math.max(v, 1));
  const mean = p95sUs.reduce((a, v) => a + logOf(v), 0) / k;
  // The spread comes from the longer lookback when there is one: ten runs pin down a drift's sd
  // only loosely (t₉ at 99 % is 2.82), thirty much better (t₂₉: 2.46), while the centre follows
  // the recent window. A constant history has a spread of exactly 0, not the rounding residue of its logs.
  const spreadSource = spreadP95sUs.length > k ? spreadP95sUs : p95sUs;
  const n = spreadSource.length;
  const spreadMean = spreadSource.reduce((a, v) => a + logOf(v), 0) / n;
  const constant = spreadSource.every((v) => v === spreadSource[0]) && p95sUs.every((v) => v === p95sUs[0]);
  const sd = constant ? 0 : Math.sqrt(spreadSource.reduce((a, v) => a + (logOf(v) - spreadMean) ** 2, 0) / (n - 1));
  const spread = studentTQuantile(upperBoundary, n - 1) * sd * Math.sqrt(1 + 1 / k);
  const sorted = [...p95sUs].sort((a, b) => a - b);
  const median = k % 2 === 1 ? sorted[(k - 1) / 2]! : (sorted[k / 2 - 1]! + sorted[k / 2]!) / 2;
  return {
    runs: k,
    spread_runs: n,
    median_us: median,
    geometric_mean_us: constant ? p95sUs[0]! : Math.exp(mean),
    log_sd: sd,
    upper_us: constant ? p95sUs[0]! : Math.exp(mean + spread),
    lower_us: constant ? p95sUs[0]! : Math.exp(mean - spread),
    upper_boundary: upperBoundary,
  };
}

export interface HistoryDecision {
  status: 'pass' | 'fail' | 'inconclusive';
  reason: 'no_samples' | 'within_band' | 'under_pct' | 'under_floor' | 'above_band';
  band: HistoryBand;
  /** Candidate p95 over the history median, percent. */
  vs_median_pct: number;
  difference_ms: number;
}

/**
 * Fails only when the candidate's p95 is above the band's upper limit AND more than max_pct over
 * the history median AND more than the floor over it. Any one of the three missing is a pass: the
 * band says "unusual", max_pct says "big enough to matter", the floor says "not a rounding effect".
 */
export function judgeAgainstHistory(input: {
  candidateP95Us: number;
  candidateSamples: number;
  historyP95sUs: readonly number[];
  /** The longer lookback the band's spread is estimated from (newest first, the window included). */
  spreadP95sUs?: readonly number[];
  maxPct: number;
  floorMs: number;
  upperBoundary?: number;
}): HistoryDecision {
  const band = historyBand(input.historyP95sUs, input.upperBoundary, input.spreadP95sUs);
  const vsMedianPct = (input.candidateP95Us / Math.max(band.median_us, 1) - 1) * 100;
  const differenceMs = (input.candidateP95Us - band.median_us) / 1000;
  const base = { band, vs_median_pct: vsMedianPct, difference_ms: differenceMs };
  if (input.candidateSamples === 0) return { status: 'inconclusive', reason: 'no_samples', ...base, vs_median_pct: NaN, difference_ms: NaN };
  if (input.candidateP95Us <= band.upper_us) return { status: 'pass', reason: 'within_band', ...base };
  if (vsMedianPct <= input.maxPct) return { status: 'pass', reason: 'under_pct', ...base };
  if (differenceMs <= input.floorMs) return { status: 'pass', reason: 'under_floor', ...base };
  return { status: 'fail', reason: 'above_band', ...base };
}

/** Runs the sequential rule pools (the candidate and the newest passing runs before it). */
export const PERSISTING_RUNS = 3;
/** One-sided level of the sequential rule's t limit (bench:verdict: with the band's 99 %, about 1 % false fails per run together). */
export const PERSISTING_LEVEL = 0.999;
/** Fewest earlier runs the pooled runs are compared with. */
const PERSISTING_MIN_REFERENCE = 4;
/**
 * Most earlier runs they are compared with: more than the band's window, because the rule's power
 * rests on how well the earlier runs pin down the drift (a t with 29 degrees of freedom, not 9).
 */
export const PERSISTING_LOOKBACK = 30;
/** Passing runs finalize reads for the two rules: the band's window and the sequential rule's pool and lookback. */
export const historyRunsToRead = (window: number) => Math.max(window, PERSISTING_RUNS - 1 + PERSISTING_LOOKBACK);

export interface PersistingDecision {
  /** `fail` when the pooled runs are above the earlier ones beyond the t limit and by enough to matter; `pass` otherwise. */
  status: 'pass' | 'fail';
  reason: 'too_few_runs' | 'not_slower' | 'within_limit' | 'under_pct' | 'under_floor' | 'persisting';
  /** The candidate and the newest passing runs pooled with it. */
  runs: number;
  /** How many earlier runs they were compared with. */
  reference_runs: number;
  /** (mean ln p95 of the pooled runs − mean of the earlier ones) / (sd · √(1/k + 1/r)); NaN when not computed. */
  t: number;
  limit: number;
  /** exp(mean ln p95) of the pooled runs over the earlier runs' median, percent; NaN when not computed. */
  vs_median_pct: number;
}

/**
 * A regression that persists shows in every run after it, but a single run of it can pass the
 * band (run-to-run drift hides ~40 % of 30 % regressions, docs/statistics.md). Runs that passed
 * join the history, so the newest `k − 1` passing runs and the candidate are pooled and their mean
 * ln p95 compared with the earlier runs' by a one-sided t prediction test for the mean of k new
 * runs (variance s²(1/k + 1/r)). It fails when that test fails, the pooled runs are more than
 * max_pct and the floor over the earlier median, and the candidate itself is above that median —
 * a run back to normal ends the streak. The history is newest first, up to k − 1 + PERSISTING_LOOKBACK runs.
 */
export function judgePersisting(input: {
  candidateP95Us: number;
  historyP95sUs: readonly number[];
  maxPct: number;
  floorMs: number;
  k?: number;
  level?: number;
}): PersistingDecision {
  const k = input.k ?? PERSISTING_RUNS;
  const level = input.level ?? PERSISTING_LEVEL;
  const recent = [input.candidateP95Us, ...input.historyP95sUs.slice(0, k - 1)];
  const earlier = input.historyP95sUs.slice(k - 1, k - 1 + PERSISTING_LOOKBACK);
  const base = { runs: recent.length, reference_runs: earlier.length, t: NaN, limit: NaN, vs_median_pct: NaN };
  if (recent.length < k || earlier.length < PERSISTING_MIN_REFERENCE) return { status: 'pass', reason: 'too_few_runs', ...base };
  const band = historyBand(earlier);
  const limit = studentTQuantile(level, earlier.length - 1);
  const log = (v: number) => Math.log(Math.max(v, 1));
  const recentMean = recent.reduce((a, v) => a + log(v), 0) / k;
  const earlierMean = earlier.reduce((a, v) => a + log(v), 0) / earlier.length;
  const spread = band.log_sd * Math.sqrt(1 / k + 1 / earlier.length);
  const t = spread > 0 ? (recentMean - earlierMean) / spread : recentMean > earlierMean ? Infinity : 0;
  const pooledUs = Math.exp(recentMean);
  const judged = { ...base, t, limit, vs_median_pct: (pooledUs / Math.max(band.median_us, 1) - 1) * 100 };
  if (input.candidateP95Us <= band.median_us) return { status: 'pass', reason: 'not_slower', ...judged };
  if (t <= limit) return { status: 'pass', reason: 'within_limit', ...judged };
  if (judged.vs_median_pct <= input.maxPct) return { status: 'pass', reason: 'under_pct', ...judged };
  if ((pooledUs - band.median_us) / 1000 <= input.floorMs) return { status: 'pass', reason: 'under_floor', ...judged };
  return { status: 'fail', reason: 'persisting', ...judged };
}
