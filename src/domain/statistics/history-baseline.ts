import { studentTQuantile } from './distributions';

/** t quantiles by (level, df): the verdict asks for a handful, bench:verdict for millions. */
const tQuantiles = new Map<string, number>();
const tQuantile = (p: number, df: number) => {
  const key = `${p}:${df}`;
  let q = tQuantiles.get(key);
  if (q === undefined) {
    q = studentTQuantile(p, df);
    tQuantiles.set(key, q);
  }
  return q;
};

export type BaselineModel = 'history' | 'previous_run' | 'none';

/**
 * upperBoundary: the band's one-sided level. 99.5 %, not bencher's 99 %: the band and the sequential
 * rule share the 1 % false-fail budget per run (PERSISTING_LIMIT_SD is calibrated with this level).
 */
export const BASELINE_DEFAULTS = { window: 10, minRuns: 5, upperBoundary: 0.995 } as const;

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
  const spread = tQuantile(upperBoundary, n - 1) * sd * Math.sqrt(1 + 1 / k);
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
  reason: 'no_samples' | 'within_band' | 'under_pct' | 'under_floor' | 'above_band' | 'band_too_wide';
  band: HistoryBand;
  /** Candidate p95 over the history median, percent. */
  vs_median_pct: number;
  difference_ms: number;
  /** The band's reach: its upper limit over the history median (×). */
  band_span: number;
  /**
   * band_too_wide: passing runs the check would need (at the same spread) before a regression of
   * max_pct could land above the band or the sequential rule's limit; null when no history finalize reads would do.
   */
  runs_needed: number | null;
}

/**
 * The smallest regression the check means to catch, µs: max_pct over the median, or the floor over
 * it when that is larger (a change under the floor passes whatever the band says).
 */
const smallestRegressionUs = (medianUs: number, maxPct: number, floorMs: number) =>
  Math.max(medianUs * (1 + maxPct / 100), medianUs + floorMs * 1000);

/**
 * Passing runs n (the window and the lookback together) before the check could catch a regression
 * that lifts a run from the history's centre to `targetUs`, assuming the run-to-run spread (log sd)
 * and the centre stay as they are. Caught means the expected run lands past a limit: the band's —
 * t(boundary, n − 1) · sd · √(1 + 1/min(n, window)) ≤ ln(targetUs / geometric mean) — or, from
 * PERSISTING_RUNS − 1 + PERSISTING_MIN_REFERENCE runs on, the sequential rule's over three such
 * runs: √3 · ln(targetUs / geometric mean) / (sd · c) > h, with c its small-reference widening.
 * Searched from the runs there are up to `maxRuns` (what finalize reads); null past it.
 */
export function historyRunsNeeded(input: { band: HistoryBand; targetUs: number; window: number; maxRuns: number }): number | null {
  const { band } = input;
  const room = Math.log(input.targetUs / band.geometric_mean_us);
  if (!(room > 0)) return null;
  if (band.log_sd === 0) return band.spread_runs;
  for (let n = Math.max(2, band.spread_runs); n <= input.maxRuns; n++) {
    if (tQuantile(band.upper_boundary, n - 1) * band.log_sd * Math.sqrt(1 + 1 / Math.min(n, input.window)) <= room) return n;
    const reference = Math.min(n - (PERSISTING_RUNS - 1), PERSISTING_LOOKBACK);
    if (reference >= PERSISTING_MIN_REFERENCE) {
      const c = tQuantile(0.99, reference - 1) / tQuantile(0.99, PERSISTING_LOOKBACK - 1);
      if ((Math.sqrt(PERSISTING_RUNS) * room) / (band.log_sd * c) > PERSISTING_LIMIT_SD) return n;
    }
  }
  return null;
}

/**
 * Fails only when the candidate's p95 is above the band's upper limit AND more than max_pct over
 * the history median AND more than the floor over it. Any one of the three missing is a pass: the
 * band says "unusual", max_pct says "big enough to matter", the floor says "not a rounding effect".
 * Except that a candidate inside a band wider than max_pct (or the floor) over the median is
 * inconclusive (band_too_wide), never a pass, unless the history is long enough for the sequential
 * rule to catch that regression (historyRunsNeeded): otherwise the check could not have caught it.
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
  /** The suite's baseline.window: how many runs the band centres on as the history grows (runs_needed). */
  window?: number;
}): HistoryDecision {
  const band = historyBand(input.historyP95sUs, input.upperBoundary, input.spreadP95sUs);
  const vsMedianPct = (input.candidateP95Us / Math.max(band.median_us, 1) - 1) * 100;
  const differenceMs = (input.candidateP95Us - band.median_us) / 1000;
  const bandSpan = band.upper_us / Math.max(band.median_us, 1);
  const base = { band, vs_median_pct: vsMedianPct, difference_ms: differenceMs, band_span: bandSpan, runs_needed: null };
  if (input.candidateSamples === 0) return { status: 'inconclusive', reason: 'no_samples', ...base, vs_median_pct: NaN, difference_ms: NaN };
  if (input.candidateP95Us <= band.upper_us) {
    // A band so wide that a regression of max_pct (or the floor) would land inside it, with too few
    // runs for the sequential rule to catch it either, cannot pass anything: such a pass would say
    // nothing about the regression the suite asks about.
    const targetUs = smallestRegressionUs(band.median_us, input.maxPct, input.floorMs);
    const window = input.window ?? BASELINE_DEFAULTS.window;
    if (band.upper_us > targetUs) {
      const runsNeeded = historyRunsNeeded({ band, targetUs, window, maxRuns: historyRunsToRead(window) });
      if (runsNeeded !== band.spread_runs) return { status: 'inconclusive', reason: 'band_too_wide', ...base, runs_needed: runsNeeded };
    }
    return { status: 'pass', reason: 'within_band', ...base };
  }
  if (vsMedianPct <= input.maxPct) return { status: 'pass', reason: 'under_pct', ...base };
  if (differenceMs <= input.floorMs) return { status: 'pass', reason: 'under_floor', ...base };
  return { status: 'fail', reason: 'above_band', ...base };
}

/** Most runs the sequential rule sums over: the candidate and the two newest passing runs. */
export const PERSISTING_RUNS = 3;
/**
 * Per-run false-fail rate the band and the sequential rule are calibrated to hold together on an
 * unchanged endpoint (whatever its drift: both rules are invariant to the scale of ln p95).
 */
export const PERSISTING_LEVEL = 0.99;
/**
 * The decision limit h for the sums over 2 and 3 runs, in standard deviations of the earlier runs
 * (the sum of k z-scores over √k). Not a textbook figure: the earlier runs only estimate the mean
 * and sd, the three windows overlap, and a failed run never joins the history, so the per-run
 * false-fail rate was calibrated by simulation — `BENCH_VERDICT_CALIBRATE=1 npm run bench:verdict`:
 * i.i.d. normal ln p95s (both rules are location-scale invariant, so no drift size is assumed),
 * PERSISTING_LOOKBACK + 2 passing runs then 10 judged ones per stream, the band at its 99.5 %
 * default, max_pct and the floor off, bisection on h for band + rule ≤ 0.95 % per run (the 1 % less
 * about two standard errors of the estimate, so that an estimated h still holds 1 %), on a seed
 * (7001) the bench never reports on; docs/statistics.md gives the calibration's figures.
 */
export const PERSISTING_LIMIT_SD = 2.86;
/**
 * How much lower the limit of the candidate alone is than h: a run judged alone against the long
 * lookback is the rule's single-run test (the band centres on its 10-run window only), and one run
 * is where most of a large regression is caught, so it gets the larger share of the budget.
 * Chosen on exploration seeds (0 to 0.4 sd tried): 0.3 balances "caught in run 1" against
 * "caught within three runs" (docs/statistics.md).
 */
export const PERSISTING_SINGLE_ALLOWANCE_SD = 0.3;
/** Fewest earlier runs the windows are compared with. */
const PERSISTING_MIN_REFERENCE = 8;
/**
 * Most earlier runs they are compared with: many more than the band's window, because the rule's
 * power rests on how well the earlier runs pin down the drift (t at 99 % is 2.36 with 99 degrees of
 * freedom, 2.82 with 9) and the centre (√(1 + 1/100), not √(1 + 1/10)).
 */
export const PERSISTING_LOOKBACK = 100;
/** Passing runs finalize reads for the two rules: the band's window and the sequential rule's windows and lookback. */
export const historyRunsToRead = (window: number) => Math.max(window, PERSISTING_RUNS - 1 + PERSISTING_LOOKBACK);

export const PERSISTING_REASONS = ['too_few_runs', 'not_slower', 'within_limit', 'under_pct', 'under_floor', 'persisting'] as const;

export interface PersistingDecision {
  /** `fail` when a window's statistic is above its limit and its runs are slower by enough to matter; `pass` otherwise. */
  status: 'pass' | 'fail';
  reason: (typeof PERSISTING_REASONS)[number];
  /** Runs in the window shown (the candidate and the newest passing runs before it, 1 to 3): the longest failing one, else the nearest its limit. */
  runs: number;
  /** How many earlier runs they were compared with. */
  reference_runs: number;
  /** The window's Σz/√k, in sd of the earlier runs; NaN when not computed. */
  t: number;
  /** The limit it is compared with (h, or h − PERSISTING_SINGLE_ALLOWANCE_SD for the candidate alone). */
  limit: number;
  /** exp(mean ln p95) of the window over the earlier runs' median, percent; NaN when not computed. */
  vs_median_pct: number;
}

/**
 * A regression that persists shows in every run after it, but a single run of it can pass the
 * band (run-to-run drift hides ~40 % of 30 % regressions, docs/statistics.md). Runs that passed
 * join the history, so the rule scans the windows ending at the candidate — the candidate alone,
 * with the newest passing run, with the two newest — standardised against the up to
 * PERSISTING_LOOKBACK runs before them: z = (ln p95 − mean) / (sd · c), a window's statistic Σz/√k
 * (a standard normal for an unchanged endpoint whose drift were known). c = t(0.99, r − 1) /
 * t(0.99, PERSISTING_LOOKBACK − 1) widens the scale when fewer earlier runs estimate the sd.
 * A window fails when its statistic is above its limit and its geometric mean is more than max_pct
 * and the floor over the earlier median; the candidate must itself be above that median (a run back
 * to normal ends a regression). The history is newest first, up to PERSISTING_RUNS − 1 + PERSISTING_LOOKBACK runs.
 */
export function judgePersisting(input: {
  candidateP95Us: number;
  historyP95sUs: readonly number[];
  maxPct: number;
  floorMs: number;
  /** Limit override (h), for calibration only. */
  limitSd?: number;
}): PersistingDecision {
  const k = PERSISTING_RUNS;
  const h = input.limitSd ?? PERSISTING_LIMIT_SD;
  const recent = [input.candidateP95Us, ...input.historyP95sUs.slice(0, k - 1)];
  const earlier = input.historyP95sUs.slice(k - 1, k - 1 + PERSISTING_LOOKBACK);
  const base = { runs: 1, reference_runs: earlier.length, t: NaN, limit: h - PERSISTING_SINGLE_ALLOWANCE_SD, vs_median_pct: NaN };
  if (recent.length < k || earlier.length < PERSISTING_MIN_REFERENCE) return { status: 'pass', reason: 'too_few_runs', ...base };
  const band = historyBand(earlier);
  const log = (v: number) => Math.log(Math.max(v, 1));
  const earlierMean = earlier.reduce((a, v) => a + log(v), 0) / earlier.length;
  const scale = band.log_sd * (tQuantile(0.99, earlier.length - 1) / tQuantile(0.99, PERSISTING_LOOKBACK - 1));
  // A constant history has no spread: any run above it is infinitely unusual, and max_pct and the floor decide.
  const z = (v: number) => (scale > 0 ? (log(v) - earlierMean) / scale : log(v) > earlierMean ? Infinity : log(v) < earlierMean ? -Infinity : 0);
  const windows = [1, 2, 3].map((runs) => {
    const pooled = recent.slice(0, runs);
    const t = pooled.reduce((a, v) => a + z(v), 0) / Math.sqrt(runs);
    const limit = runs === 1 ? h - PERSISTING_SINGLE_ALLOWANCE_SD : h;
    const pooledUs = Math.exp(pooled.reduce((a, v) => a + log(v), 0) / runs);
    const vsMedianPct = (pooledUs / Math.max(band.median_us, 1) - 1) * 100;
    const reason: PersistingDecision['reason'] = !(t > limit)
      ? 'within_limit'
      : vsMedianPct <= input.maxPct
        ? 'under_pct'
        : (pooledUs - band.median_us) / 1000 <= input.floorMs
          ? 'under_floor'
          : 'persisting';
    return { runs, t, limit, vs_median_pct: vsMedianPct, reason };
  });
  // The longest failing window, else the one nearest its limit.
  const margin = (w: { t: number; limit: number }) => (Number.isNaN(w.t) ? -Infinity : w.t - w.limit);
  const shown = windows.filter((w) => w.reason === 'persisting').at(-1) ?? windows.reduce((a, w) => (margin(w) > margin(a) ? w : a));
  const judged = { ...base, runs: shown.runs, t: shown.t, limit: shown.limit, vs_median_pct: shown.vs_median_pct };
  if (input.candidateP95Us <= band.median_us) return { status: 'pass', reason: 'not_slower', ...judged };
  return { status: shown.reason === 'persisting' ? 'fail' : 'pass', reason: shown.reason, ...judged };
}
