import { binomialCdfTable, incompleteBeta, normalQuantile } from './distributions';
import { EXACT_RANKS_MAX_N, nearestRank, orderStatisticRanks, quantileInterval, type QuantileInterval, type SortedSamples } from './quantile-interval';

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
  /**
   * The lower confidence bound a `fail` decision reads, percent: `lower_pct` when the two-sided
   * interval is bounded; otherwise the one-sided small-sample bound (smallSampleFailBound), or −100
   * when even that cannot be had.
   */
  fail_lower_pct: number;
  /** Which bound fail_lower_pct is: the two-sided interval's, or the one-sided small-sample one. */
  fail_bound: 'interval' | 'one_sided';
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
  smallSampleLowerPct: number,
): RelativeDifference {
  const z = normalQuantile(1 - (1 - confidence) / 2);
  const empty = candidate.n === 0 || reference.n === 0;
  const logRatio = empty ? 0 : Math.log(Math.max(candidate.point, MIN_US)) - Math.log(Math.max(reference.point, MIN_US));
  const se = empty ? Infinity : logSe;
  const pct = (x: number) => (Math.exp(x) - 1) * 100;
  const lowerPct = se === Infinity ? -100 : pct(logRatio - z * se);
  const bounded = se !== Infinity;
  return {
    method,
    p,
    confidence,
    candidate_n: candidate.n,
    reference_n: reference.n,
    candidate_us: candidate.point,
    reference_us: reference.point,
    point_pct: empty ? NaN : pct(logRatio),
    lower_pct: lowerPct,
    upper_pct: se === Infinity ? Infinity : pct(logRatio + z * se),
    log_se: se,
    correlation,
    fail_lower_pct: bounded || empty ? lowerPct : smallSampleLowerPct,
    fail_bound: bounded || empty ? 'interval' : 'one_sided',
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
  const small = smallSampleFailBound(candidateSorted, referenceSorted, p, runDriftSd);
  return fromLogScale('unpaired', p, confidence, candidate, reference, Math.sqrt(sc * sc + sr * sr + 2 * runDriftSd ** 2), 0, small);
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
  // The pairing's correlation is left out of the small-sample bound: it only makes the bound conservative.
  return fromLogScale('paired', p, confidence, cq, rq, Math.sqrt(variance), correlation, smallSampleFailBound(candidateSorted, referenceSorted, p, 0));
}

/** One-sided level of the small-sample fail bound: 95 %, the level a one-sided "slower than" claim needs. */
export const SMALL_SAMPLE_FAIL_ALPHA = 0.05;

/**
 * Ranks of the small-sample fail bound for n candidate and m reference samples, or null when
 * the samples cannot bound the ratio from below at all. The reference's p-th percentile is bounded
 * from above by its order statistic u, missing it with probability b = P(B ≥ u) (B ~ Bin(m, p)):
 * u is the rank the two-sided interval uses when it exists, else the largest sample, which bounds
 * a p95 from 59 samples on (0.95⁵⁹ < 0.05). The candidate's percentile is bounded from below by
 * its order statistic l, missing it with probability P(B' ≤ l − 1) ≤ α − b. Both hold together
 * with probability ≥ 1 − α (Bonferroni), so X_c(l) / X_r(u) bounds the ratio from below with
 * 95 % confidence, with no assumption on either distribution. The ranks depend on n, m and p
 * only — never on the data — so choosing them is no look at the answer.
 */
export function smallSampleFailRanks(n: number, m: number, p: number, alpha = SMALL_SAMPLE_FAIL_ALPHA): { candidateLower: number; referenceUpper: number } | null {
  if (n === 0 || m === 0) return null;
  const { rank: referenceUpper, miss } = referenceUpperRank(m, p, alpha);
  const left = alpha - miss;
  if (!(left > 0)) return null;
  const candidateLower = lowerRankAt(n, p, left);
  return candidateLower === 0 ? null : { candidateLower, referenceUpper };
}

/**
 * The reference's upper rank (smallSampleFailRanks) and the probability that it misses. The rank is
 * orderStatisticRanks' own (beyond EXACT_RANKS_MAX_N its normal approximation, which can be a rank
 * off the exact one): verdictRanks fetches only that rank of a large sample. The miss is exact,
 * P(B ≥ u) = I_p(u, m − u + 1), so the Bonferroni split holds whichever rank the approximation gave.
 */
function referenceUpperRank(m: number, p: number, alpha: number): { rank: number; miss: number } {
  const { upper } = orderStatisticRanks(m, p, 1 - alpha);
  if (upper > m) return { rank: m, miss: Math.pow(p, m) };
  return { rank: upper, miss: m > EXACT_RANKS_MAX_N ? incompleteBeta(p, upper, m - upper + 1) : 1 - binomialCdfTable(m, p)[upper - 1]! };
}

/** The largest rank l with P(X(l) > ξp) = P(B ≤ l − 1) ≤ tail (0: none); normal approximation beyond EXACT_RANKS_MAX_N. */
function lowerRankAt(n: number, p: number, tail: number): number {
  if (n > EXACT_RANKS_MAX_N) {
    return Math.max(0, Math.floor(n * p - normalQuantile(1 - tail) * Math.sqrt(n * p * (1 - p)) + 0.5));
  }
  const cdf = binomialCdfTable(n, p);
  let rank = 0;
  while (rank < n && cdf[rank]! <= tail) rank++;
  return rank;
}

/** Up to this many samples a side's every rank is fetched for the verdict (cheap, and any bound can read them). */
export const ALL_RANKS_MAX_N = 200;

/**
 * The ranks of n samples that a small-sample fail bound at percentile p may read, whatever the
 * other side's size: all of them up to ALL_RANKS_MAX_N; beyond, the candidate's lower rank for each
 * reference size too small for a two-sided upper bound (59 to 71 samples for p95).
 */
export function smallSampleRanks(n: number, p: number): number[] {
  if (n <= ALL_RANKS_MAX_N) return Array.from({ length: n }, (_, i) => i + 1);
  const ranks: number[] = [];
  for (let m = 1; m <= ALL_RANKS_MAX_N; m++) {
    const upper = referenceUpperRank(m, p, SMALL_SAMPLE_FAIL_ALPHA);
    if (upper.miss <= SMALL_SAMPLE_FAIL_ALPHA / 2) break;
    const ranksOf = smallSampleFailRanks(n, m, p);
    if (ranksOf) ranks.push(ranksOf.candidateLower);
  }
  return ranks;
}

/**
 * The one-sided small-sample lower bound of (candidate p-th percentile / reference's − 1) × 100
 * (smallSampleFailRanks), −100 when none exists. A run-drift allowance (comparing with another
 * run) widens it by z₀.₉₅ · √2 · sd on the log scale, as the interval's drift term does.
 */
export function smallSampleFailBound(candidateSorted: SortedSamples, referenceSorted: SortedSamples, p: number, runDriftSd = 0): number {
  const ranks = smallSampleFailRanks(candidateSorted.length, referenceSorted.length, p);
  if (ranks === null) return -100;
  const lower = Math.max(candidateSorted[ranks.candidateLower - 1]!, MIN_US);
  const upper = Math.max(referenceSorted[ranks.referenceUpper - 1]!, MIN_US);
  const allowance = runDriftSd > 0 ? normalQuantile(1 - SMALL_SAMPLE_FAIL_ALPHA) * Math.SQRT2 * runDriftSd : 0;
  return (Math.exp(Math.log(lower) - Math.log(upper) - allowance) - 1) * 100;
}

/**
 * The fewest calls a side at which a comparison of p-th percentiles can pass on its interval
 * (both sides need a two-sided bound) and can fail (the small-sample bound exists with the same
 * number of calls on both sides). For p95: 72 and 59. With fewer, only the ms floor can decide.
 */
export function fewestCallsToDecide(p: number): { toPass: number; toFail: number } {
  const cached = fewestCache.get(p);
  if (cached) return cached;
  let toPass = 1;
  while (Math.pow(p, toPass) > SMALL_SAMPLE_FAIL_ALPHA / 2) toPass++;
  let toFail = 1;
  while (smallSampleFailRanks(toFail, toFail, p) === null) toFail++;
  const result = { toPass, toFail };
  fewestCache.set(p, result);
  return result;
}
const fewestCache = new Map<number, { toPass: number; toFail: number }>();
