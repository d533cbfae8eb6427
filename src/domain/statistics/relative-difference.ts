import { normalQuantile } from './distributions';
import { nearestRank, quantileInterval, type QuantileInterval, type SortedSamples } from './quantile-interval';

/**
 * The relative difference of the candidate's p-th percentile over the reference's (or the
 * baseline's), (candidate / reference − 1) × 100, with its confidence interval. The bounds are
 * −100 / Infinity when a side has too few samples to bound its percentile.
 */
export interface RelativeDifference {
  method: 'unpaired' | 'paired';
  p: number;
  confidence: number;
  candidate_n: number;
  reference_n: number;
  /** Point percentiles (nearest rank), microseconds; NaN when that side has no sample. */
  candidate_us: number;
  reference_us: number;
  point_pct: number;
  lower_pct: number;
  upper_pct: number;
  /**
   * Standard error of ln(candidate / reference): the interval is ln ratio ± z·se. Infinity when
   * a side is unbounded; it scales as 1/√n, which is how an inconclusive check estimates the
   * calls it would need.
   */
  log_se: number;
  /** Paired only: estimated correlation of the two sample percentiles (0 when unpaired). */
  correlation: number;
}

// Latencies are clamped to 1 µs (the samples' resolution) before logs, so a 0 µs percentile
// (a mocked or cached endpoint) gives a large but finite ratio; the ms floor then decides.
const MIN_US = 1;

/**
 * Standard error of ln(percentile) from its order-statistic interval (Price & Bonett 2002, who
 * did this for the median): the interval's half-width on the log scale divided by z. No density
 * estimate and no resampling, so O(1) once the sample is sorted.
 */
export function logStandardError(q: QuantileInterval, confidence: number): number {
  if (q.n === 0 || q.lower_rank === 0 || q.upper === Infinity) return Infinity;
  const z = normalQuantile(1 - (1 - confidence) / 2);
  return (Math.log(Math.max(q.upper, MIN_US)) - Math.log(Math.max(q.lower, MIN_US))) / (2 * z);
}

function fromLogScale(
  method: RelativeDifference['method'],
  p: number,
  confidence: number,
  candidate: QuantileInterval,
  reference: QuantileInterval,
  logSe: number,
  correlation: number,
): RelativeDifference {
  const z = normalQuantile(1 - (1 - confidence) / 2);
  const empty = candidate.n === 0 || reference.n === 0;
  const logRatio = empty ? 0 : Math.log(Math.max(candidate.point, MIN_US)) - Math.log(Math.max(reference.point, MIN_US));
  const se = empty ? Infinity : logSe;
  const pct = (x: number) => (Math.exp(x) - 1) * 100;
  return {
    method,
    p,
    confidence,
    candidate_n: candidate.n,
    reference_n: reference.n,
    candidate_us: candidate.point,
    reference_us: reference.point,
    point_pct: empty ? NaN : pct(logRatio),
    lower_pct: se === Infinity ? -100 : pct(logRatio - z * se),
    upper_pct: se === Infinity ? Infinity : pct(logRatio + z * se),
    log_se: se,
    correlation,
  };
}

/** ln(1.1): the run-to-run drift of an unchanged endpoint's p95 that DESIGN §6a budgets for. */
export const DEFAULT_RUN_DRIFT_SD = Math.log(1.1);

export interface DifferenceOptions {
  /** The percentile compared (default 0.95). */
  p?: number;
  /** Two-sided level of the interval (default 0.95). */
  confidence?: number;
  /**
   * Log-scale sd of one run's drift, added once per side (variance + 2·sd²). 0 (default) when both
   * sides were measured in the same run; DEFAULT_RUN_DRIFT_SD when comparing with another run's
   * samples, whose sampling interval alone would read every drift as a regression.
   */
  runDriftSd?: number;
}

/**
 * Unpaired: candidate and reference sampled independently (closed loop, or a baseline run). The
 * log-scale standard errors of the two order-statistic intervals add in quadrature.
 */
export function unpairedRelativeDifference(
  candidateSorted: SortedSamples,
  referenceSorted: SortedSamples,
  options: DifferenceOptions = {},
): RelativeDifference {
  const { p = 0.95, confidence = 0.95, runDriftSd = 0 } = options;
  const candidate = quantileInterval(candidateSorted, p, confidence);
  const reference = quantileInterval(referenceSorted, p, confidence);
  const sc = logStandardError(candidate, confidence);
  const sr = logStandardError(reference, confidence);
  return fromLogScale('unpaired', p, confidence, candidate, reference, Math.sqrt(sc * sc + sr * sr + 2 * runDriftSd ** 2), 0);
}

/**
 * Paired: `candidate[i]` and `reference[i]` are the latencies of request seq i, sent to both at the
 * same intended instant (open loop, shared schedule anchor; pairs where either side failed left
 * out by the caller). Same percentile ratio as the unpaired version — that is what
 * `max_pct` limits — but the two sample percentiles are correlated through what both calls
 * shared (the network, the probe's host, the moment), and that part cancels in the ratio. The
 * correlation comes from the Bahadur representation of a sample quantile: it equals the
 * correlation of the indicators [c_i ≤ q_c] and [r_i ≤ q_r], counted in one pass.
 * O(n log n) for the two sorts (none when the caller passes the sorted copies it already has),
 * deterministic (no resampling, no seed).
 */
export function pairedRelativeDifference(
  candidate: ArrayLike<number>,
  reference: ArrayLike<number>,
  options: Omit<DifferenceOptions, 'runDriftSd'> & { candidateSorted?: SortedSamples; referenceSorted?: SortedSamples } = {},
): RelativeDifference {
  const { p = 0.95, confidence = 0.95 } = options;
  if (candidate.length !== reference.length) {
    throw new RangeError(`pairedRelativeDifference: ${candidate.length} candidate vs ${reference.length} reference latencies`);
  }
  const n = candidate.length;
  const candidateSorted = options.candidateSorted ?? Float64Array.from(candidate).sort();
  const referenceSorted = options.referenceSorted ?? Float64Array.from(reference).sort();
  if (candidateSorted.length !== n || referenceSorted.length !== n) {
    throw new RangeError('pairedRelativeDifference: the sorted copies must hold the same samples');
  }
  const counts: PairCounts = { n, below: 0, candidateBelow: 0, referenceBelow: 0 };
  if (n > 0) {
    const qc = candidateSorted[nearestRank(n, p) - 1]!;
    const qr = referenceSorted[nearestRank(n, p) - 1]!;
    for (let i = 0; i < n; i++) {
      const c = candidate[i]! <= qc;
      const r = reference[i]! <= qr;
      if (c) counts.candidateBelow++;
      if (r) counts.referenceBelow++;
      if (c && r) counts.below++;
    }
  }
  return pairedRelativeDifferenceFromCounts(candidateSorted, referenceSorted, counts, { p, confidence });
}

/**
 * What the paired interval needs from the pairs besides the two sorted samples: with q_c and q_r
 * the nearest-rank p-th percentiles of each side over the n pairs, how many pairs have
 * c ≤ q_c, r ≤ q_r, and both. Counted in one pass (pairedRelativeDifference) or in SQL.
 */
export interface PairCounts {
  n: number;
  below: number;
  candidateBelow: number;
  referenceBelow: number;
}

/** The Bahadur correlation of the two sample percentiles from the indicator counts, in [−1, 1]. */
export function indicatorCorrelation(counts: PairCounts): number {
  const { n } = counts;
  if (n === 0) return 0;
  const fc = counts.candidateBelow / n;
  const fr = counts.referenceBelow / n;
  const denominator = Math.sqrt(fc * (1 - fc) * fr * (1 - fr));
  return denominator > 0 ? Math.max(-1, Math.min(1, (counts.below / n - fc * fr) / denominator)) : 0;
}

/**
 * pairedRelativeDifference from its sufficient statistics: the two sides' sorted latencies over
 * the same n pairs (sparse is fine: only the ranks the p-th percentile's interval reads) and the
 * pair counts. Finalize gets both from PostgreSQL without loading the pairs.
 */
export function pairedRelativeDifferenceFromCounts(
  candidateSorted: SortedSamples,
  referenceSorted: SortedSamples,
  counts: PairCounts,
  options: Omit<DifferenceOptions, 'runDriftSd'> = {},
): RelativeDifference {
  const { p = 0.95, confidence = 0.95 } = options;
  if (candidateSorted.length !== counts.n || referenceSorted.length !== counts.n) {
    throw new RangeError(`pairedRelativeDifference: ${counts.n} pairs, ${candidateSorted.length} and ${referenceSorted.length} sorted latencies`);
  }
  const cq = quantileInterval(candidateSorted, p, confidence);
  const rq = quantileInterval(referenceSorted, p, confidence);
  const sc = logStandardError(cq, confidence);
  const sr = logStandardError(rq, confidence);
  const correlation = indicatorCorrelation(counts);
  const variance = Number.isFinite(sc) && Number.isFinite(sr) ? Math.max(0, sc * sc + sr * sr - 2 * correlation * sc * sr) : Infinity;
  return fromLogScale('paired', p, confidence, cq, rq, Math.sqrt(variance), correlation);
}
