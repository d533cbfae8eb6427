/**
 * npm run bench:verdict — a Monte-Carlo study of the verdict statistics (src/domain/statistics)
 * on synthetic latency samples, beside today's point rules, plus the cost of the statistics on a
 * 1,000,000-sample run. Seeded: the same figures on every machine. No I/O beyond printing.
 *
 * Model (docs/statistics.md explains it):
 * - per call: log-normal, median 40 ms, σ_log 0.4 (p95 ≈ 77 ms), microsecond resolution;
 * - per run: the median drifts by a log-normal factor with σ = 10 % (the CI host, the network,
 *   the node's own state); a "regression" multiplies the candidate's latencies (so its p95) by 1 + r;
 * - candidate vs reference: both see the run's drift and, second by second, a shared factor
 *   (σ_log 0.15) for what the two calls of one instant have in common (the probe's host and
 *   uplink); at 20 calls/s, 2,000 calls last 100 s. A variant gives the reference a drift of its own.
 *
 * BENCH_VERDICT_RUNS (default 1000) simulated CI runs per row; BENCH_VERDICT_SEED (default 11).
 * The run-after-run study draws each run's p95 directly (below) and runs BENCH_VERDICT_STREAMS
 * (default 20000) streams for the unchanged endpoint, so a 1 % false-fail rate is resolved.
 * BENCH_VERDICT_CALIBRATE=1 re-derives the sequential rule's decision interval on its own seed
 * (BENCH_VERDICT_CALIBRATION_SEED, default 7001; never the seeds the figures are reported on).
 */
import { driftPct } from '../src/domain/verdict';
import { noncentralTUpperTail, normalCdf, normalQuantile, studentTQuantile } from '../src/domain/statistics/distributions';
import { percentileIntervals, nearestRank } from '../src/domain/statistics/quantile-interval';
import { DEFAULT_RUN_DRIFT_SD, pairedRelativeDifference, unpairedRelativeDifference } from '../src/domain/statistics/relative-difference';
import { decideLatency } from '../src/domain/statistics/latency-decision';
import {
  historyRunsToRead,
  judgeAgainstHistory,
  judgePersisting,
  BASELINE_DEFAULTS,
  PERSISTING_LEVEL,
  PERSISTING_LIMIT_SD,
  PERSISTING_LOOKBACK,
  PERSISTING_SINGLE_ALLOWANCE_SD,
  PERSISTING_RUNS,
} from '../src/domain/statistics/history-baseline';
import { smallSampleFailBound } from '../src/domain/statistics/relative-difference';
import { decideAvailability, answeredBucketShare } from '../src/domain/statistics/availability';

const RUNS = Number(process.env.BENCH_VERDICT_RUNS ?? 1000);
const SEED = Number(process.env.BENCH_VERDICT_SEED ?? 11);
const STREAMS = Number(process.env.BENCH_VERDICT_STREAMS ?? 20000);
const CALIBRATION_SEED = Number(process.env.BENCH_VERDICT_CALIBRATION_SEED ?? 7001);
/**
 * The rate h is bisected to: the 1 % budget (1 − PERSISTING_LEVEL) less a margin of about two
 * standard errors of a 200,000-run estimate, so the rate at h stays ≤ 1 % although h is itself estimated.
 */
const CALIBRATION_TARGET = 1 - PERSISTING_LEVEL - 0.0005;
const MEDIAN_MS = 40;
const SIGMA_LOG = 0.4;
const CALLS = 2000;
const RATE_PER_SECOND = 20;
const SHARED_SIGMA_LOG = 0.15;
const WINDOW = BASELINE_DEFAULTS.window;
const LOOKBACK = historyRunsToRead(WINDOW);
const REGRESSION_MAX_PCT = 20; // suite-config default of latency_regression_max_pct
const REFERENCE_MAX_PCT = 25; // suite-config default of latency_vs_reference_max_pct
const FLOOR_MS = 5;

/** xoshiro128** seeded by splitmix32: fast, good enough for a simulation, reproducible. */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  const split = () => {
    s = (s + 0x9e3779b9) >>> 0;
    let z = s;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
    return (z ^ (z >>> 16)) >>> 0;
  };
  let a = split(), b = split(), c = split(), d = split();
  return () => {
    const result = Math.imul(((Math.imul(b, 5) << 7) | (Math.imul(b, 5) >>> 25)) >>> 0, 9) >>> 0;
    const t = (b << 9) >>> 0;
    c ^= a; d ^= b; b ^= c; a ^= d; c ^= t;
    d = ((d << 11) | (d >>> 21)) >>> 0;
    return (result + 0.5) / 4294967296;
  };
}

function normalSource(uniform: () => number): () => number {
  let spare: number | null = null;
  return () => {
    if (spare !== null) {
      const v = spare;
      spare = null;
      return v;
    }
    const r = Math.sqrt(-2 * Math.log(uniform()));
    const theta = 2 * Math.PI * uniform();
    spare = r * Math.sin(theta);
    return r * Math.cos(theta);
  };
}

const normal = normalSource(rng(SEED));

/**
 * Draws of one run's p95 without drawing its calls: the nearest-rank p95 of n i.i.d. log-normal
 * calls is median · e^(σ_log · Φ⁻¹(U₍ᵣ₎)) with U₍ᵣ₎ the r-th of n uniform order statistics,
 * Beta(r, n + 1 − r) = G₁ / (G₁ + G₂) for gammas G₁ ~ Γ(r), G₂ ~ Γ(n + 1 − r) — the same
 * distribution as sorting 2,000 calls (up to the µs rounding), a thousand times faster, which is
 * what lets the false-fail rate be measured on 200,000 runs.
 */
function p95Source(seed: number) {
  const uniform = rng(seed);
  const gauss = normalSource(uniform);
  // Marsaglia–Tsang, for shape ≥ 1.
  const gamma = (shape: number) => {
    const d = shape - 1 / 3;
    const c = 1 / Math.sqrt(9 * d);
    for (;;) {
      let x: number;
      let v: number;
      do {
        x = gauss();
        v = 1 + c * x;
      } while (v <= 0);
      v = v * v * v;
      if (Math.log(uniform()) < 0.5 * x * x + d - d * v + d * Math.log(v)) return d * v;
    }
  };
  const rank = nearestRank(CALLS, 0.95);
  return {
    gauss,
    /** A run's p95 (µs) whose median drifted by e^(σ·z). */
    p95: (driftSigma: number) => {
      const g1 = gamma(rank);
      const g2 = gamma(CALLS + 1 - rank);
      return MEDIAN_MS * 1000 * Math.exp(driftSigma * gauss() + SIGMA_LOG * normalQuantile(g1 / (g1 + g2)));
    },
  };
}

/** One run's successful latencies in µs, sorted, with the run's median (ms) already drifted. */
function runSamples(medianMs: number, n = CALLS): Float64Array {
  const out = new Float64Array(n);
  for (let i = 0; i < n; i++) out[i] = Math.round(medianMs * 1000 * Math.exp(SIGMA_LOG * normal()));
  return out.sort();
}

const drift = (sigma: number) => Math.exp(sigma * normal());
const p95Of = (sorted: Float64Array) => sorted[nearestRank(sorted.length, 0.95) - 1]!;
const ms = (us: number) => Math.round(us / 1000);
const scaled = (sorted: Float64Array, factor: number) => sorted.map((v) => Math.round(v * factor));
const pct = (count: number) => `${((count / RUNS) * 100).toFixed(1)} %`;

/** Today's latency_vs_baseline (src/domain/verdict.ts baselineCheck): point p95s in whole ms. */
function todayBaselineFails(candidateP95Ms: number, baselineP95Ms: number): boolean {
  return candidateP95Ms > baselineP95Ms * (1 + REGRESSION_MAX_PCT / 100) && candidateP95Ms > baselineP95Ms + FLOOR_MS;
}

/** Today's latency_vs_reference (referenceCheck): driftPct of the point p95s, no floor. */
function todayReferenceFails(candidateP95Ms: number, referenceP95Ms: number): boolean {
  return driftPct(candidateP95Ms, referenceP95Ms) > REFERENCE_MAX_PCT;
}

function table(title: string, header: string[], rows: string[][]): void {
  console.log(`\n${title}\n`);
  console.log(`| ${header.join(' | ')} |`);
  console.log(`| ${header.map(() => '---').join(' | ')} |`);
  for (const row of rows) console.log(`| ${row.join(' | ')} |`);
}

/**
 * vs baseline. For each simulated CI run: a fresh history of WINDOW passing runs (each with its
 * own drift), then the candidate run with its own drift, slowed by each regression level in turn
 * (common random numbers: the same draws, scaled). Today's rule compares with the previous run.
 */
function baselineStudy(driftSigma: number, regressions: readonly number[]) {
  const boundaries = [0.95, 0.975, 0.99, 0.995];
  const byBoundary = boundaries.map(() => regressions.map(() => 0));
  const counts = regressions.map(() => ({ today: 0, history: 0, fallbackFail: 0, fallbackInconclusive: 0, driftFail: 0, driftInconclusive: 0, within2: 0, within3: 0 }));
  for (let run = 0; run < RUNS; run++) {
    const history: Float64Array[] = [];
    for (let h = 0; h < WINDOW; h++) history.push(runSamples(MEDIAN_MS * drift(driftSigma)));
    const historyP95s = history.map(p95Of);
    const previous = history[WINDOW - 1]!;
    // Three consecutive candidate runs: a failed run never joins the history, so the band stays put.
    const candidates = [0, 1, 2].map(() => runSamples(MEDIAN_MS * drift(driftSigma)));
    regressions.forEach((r, i) => {
      const c = counts[i]!;
      const historyFails = candidates.map((sorted) =>
        judgeAgainstHistory({
          candidateP95Us: p95Of(sorted) * (1 + r),
          candidateSamples: sorted.length,
          historyP95sUs: historyP95s,
          maxPct: REGRESSION_MAX_PCT,
          floorMs: FLOOR_MS,
        }).status === 'fail',
      );
      boundaries.forEach((upperBoundary, b) => {
        const decision = judgeAgainstHistory({
          candidateP95Us: p95Of(candidates[0]!) * (1 + r),
          candidateSamples: CALLS,
          historyP95sUs: historyP95s,
          maxPct: REGRESSION_MAX_PCT,
          floorMs: FLOOR_MS,
          upperBoundary,
        });
        if (decision.status === 'fail') byBoundary[b]![i]!++;
      });
      const first = scaled(candidates[0]!, 1 + r);
      if (todayBaselineFails(ms(p95Of(first)), ms(p95Of(previous)))) c.today++;
      if (historyFails[0]) c.history++;
      if (historyFails[0] || historyFails[1]) c.within2++;
      if (historyFails.some(Boolean)) c.within3++;
      const fallback = decideLatency(unpairedRelativeDifference(first, previous), { maxPct: REGRESSION_MAX_PCT, floorMs: FLOOR_MS });
      if (fallback.status === 'fail') c.fallbackFail++;
      if (fallback.status === 'inconclusive') c.fallbackInconclusive++;
      const allowed = decideLatency(unpairedRelativeDifference(first, previous, { runDriftSd: DEFAULT_RUN_DRIFT_SD }), {
        maxPct: REGRESSION_MAX_PCT,
        floorMs: FLOOR_MS,
      });
      if (allowed.status === 'fail') c.driftFail++;
      if (allowed.status === 'inconclusive') c.driftInconclusive++;
    });
  }
  return { counts, boundaries, byBoundary };
}

/**
 * vs reference. Request seq i reaches both at the same instant (open loop); both share the run's
 * drift and the second's shared factor. `referenceDrift` adds a drift of the reference's own.
 */
function referenceStudy(scenarios: readonly { name: string; candidate: number; reference: number; referenceDrift: number; sharedSigma?: number }[]) {
  const counts = scenarios.map(() => ({ today: 0, unpairedFail: 0, unpairedInc: 0, pairedFail: 0, pairedInc: 0, unpairedCovers: 0, pairedCovers: 0, toDecide: [] as number[] }));
  const seconds = Math.ceil(CALLS / RATE_PER_SECOND);
  const shared = new Float64Array(seconds);
  const zc = new Float64Array(CALLS);
  const zr = new Float64Array(CALLS);
  const cand = new Float64Array(CALLS);
  const ref = new Float64Array(CALLS);
  for (let run = 0; run < RUNS; run++) {
    const runDrift = drift(0.1);
    const ownDrift = normal();
    for (let s = 0; s < seconds; s++) shared[s] = normal();
    for (let i = 0; i < CALLS; i++) {
      zc[i] = normal();
      zr[i] = normal();
    }
    scenarios.forEach((sc, k) => {
      const base = MEDIAN_MS * 1000 * runDrift;
      const refOwn = Math.exp(sc.referenceDrift * ownDrift);
      for (let i = 0; i < CALLS; i++) {
        const w = Math.exp((sc.sharedSigma ?? SHARED_SIGMA_LOG) * shared[Math.floor(i / RATE_PER_SECOND)]!);
        cand[i] = Math.round(base * sc.candidate * w * Math.exp(SIGMA_LOG * zc[i]!));
        ref[i] = Math.round(base * sc.reference * refOwn * w * Math.exp(SIGMA_LOG * zr[i]!));
      }
      const cs = Float64Array.from(cand).sort();
      const rs = Float64Array.from(ref).sort();
      const c = counts[k]!;
      if (todayReferenceFails(ms(p95Of(cs)), ms(p95Of(rs)))) c.today++;
      const limits = { maxPct: REFERENCE_MAX_PCT, floorMs: FLOOR_MS };
      const unpairedDiff = unpairedRelativeDifference(cs, rs);
      const pairedDiff = pairedRelativeDifference(cand, ref, { candidateSorted: cs, referenceSorted: rs });
      const unpaired = decideLatency(unpairedDiff, limits).status;
      const pairedDecision = decideLatency(pairedDiff, limits);
      const paired = pairedDecision.status;
      if (pairedDecision.calls_to_decide !== null) c.toDecide.push(pairedDecision.calls_to_decide);
      // Where both sides share one distribution the true difference is 0 %: does the interval hold it?
      if (unpairedDiff.lower_pct <= 0 && unpairedDiff.upper_pct >= 0) c.unpairedCovers++;
      if (pairedDiff.lower_pct <= 0 && pairedDiff.upper_pct >= 0) c.pairedCovers++;
      if (unpaired === 'fail') c.unpairedFail++;
      if (unpaired === 'inconclusive') c.unpairedInc++;
      if (paired === 'fail') c.pairedFail++;
      if (paired === 'inconclusive') c.pairedInc++;
    });
  }
  return counts;
}

/**
 * A persisting regression, run after run, as the service sees it: the history starts as
 * `initialRuns` unchanged passing runs (a suite that has run a while; the band reads the newest
 * WINDOW of them); from run 1 on every run is slowed by r; each run is judged by the band (one run,
 * its spread from the whole lookback as finalize gives it) and the sequential rule, and a run that
 * passes joins the history (newest first) — so a regression that slips through one run is in the
 * history the next run is judged with. Common random numbers across regression levels.
 * `invariant`: max_pct and the floor off, leaving the two scale-free tests alone (what the
 * calibration holds to 1 %, whatever the drift).
 */
function persistingStudy(
  driftSigma: number,
  regressions: readonly number[],
  o: { runsAfter: number; initialRuns: number; streams: number; seed: number; invariant?: boolean; limitSd?: number; gaussianOnly?: boolean },
) {
  const source = p95Source(o.seed);
  const draw = o.gaussianOnly ? () => MEDIAN_MS * 1000 * Math.exp(driftSigma * source.gauss()) : () => source.p95(driftSigma);
  const maxPct = o.invariant ? -100 : REGRESSION_MAX_PCT;
  const floorMs = o.invariant ? -Infinity : FLOOR_MS;
  const out = regressions.map(() => ({ runs: 0, fails: 0, singleFails: 0, failsPerStream: [] as number[], detectedAt: [] as number[], singleDetectedAt: [] as number[] }));
  for (let sim = 0; sim < o.streams; sim++) {
    const history: number[] = [];
    for (let h = 0; h < o.initialRuns; h++) history.unshift(draw());
    const bases = Array.from({ length: o.runsAfter }, draw);
    regressions.forEach((r, i) => {
      const res = out[i]!;
      for (const withSequential of [true, false]) {
        const hist = [...history];
        let detected = Infinity;
        let streamFails = 0;
        bases.forEach((base, j) => {
          const candidate = base * (1 + r);
          const single =
            judgeAgainstHistory({
              candidateP95Us: candidate,
              candidateSamples: CALLS,
              historyP95sUs: hist.slice(0, WINDOW),
              spreadP95sUs: hist.slice(0, LOOKBACK),
              maxPct,
              floorMs,
            }).status === 'fail';
          const sequential =
            withSequential && judgePersisting({ candidateP95Us: candidate, historyP95sUs: hist.slice(0, LOOKBACK), maxPct, floorMs, limitSd: o.limitSd }).status === 'fail';
          const failed = single || sequential;
          if (withSequential) {
            res.runs++;
            if (failed) streamFails++;
            if (single) res.singleFails++;
          }
          if (failed) detected = Math.min(detected, j + 1);
          else hist.unshift(candidate);
        });
        if (withSequential) {
          res.fails += streamFails;
          res.failsPerStream.push(streamFails);
        }
        (withSequential ? res.detectedAt : res.singleDetectedAt).push(detected);
      }
    });
  }
  return out;
}

/** Wilson 95 % interval of a binomial proportion, percent. */
function wilson(successes: number, n: number): [number, number] {
  const z = 1.959964;
  const p = successes / n;
  const centre = (p + (z * z) / (2 * n)) / (1 + (z * z) / n);
  const half = (z / (1 + (z * z) / n)) * Math.sqrt((p * (1 - p)) / n + (z * z) / (4 * n * n));
  return [100 * (centre - half), 100 * (centre + half)];
}

/**
 * 95 % interval of the per-run rate with the stream as the unit: a stream's runs share a history,
 * so they are not independent trials and the binomial interval alone would be too narrow.
 */
function streamInterval(failsPerStream: readonly number[], runsPerStream: number): [number, number] {
  const n = failsPerStream.length;
  const rates = failsPerStream.map((f) => f / runsPerStream);
  const mean = rates.reduce((a, v) => a + v, 0) / n;
  const sd = Math.sqrt(rates.reduce((a, v) => a + (v - mean) ** 2, 0) / (n - 1));
  const half = (1.959964 * sd) / Math.sqrt(n);
  return [100 * (mean - half), 100 * (mean + half)];
}

const fpLine = (o: { runs: number; fails: number; failsPerStream: number[] }, runsPerStream: number) => {
  const [wl, wh] = wilson(o.fails, o.runs);
  const [sl, sh] = streamInterval(o.failsPerStream, runsPerStream);
  return `${((o.fails / o.runs) * 100).toFixed(2)} % of ${o.runs.toLocaleString('en')} runs (binomial 95 %: ${wl.toFixed(2)}–${wh.toFixed(2)} %; by stream: ${sl.toFixed(2)}–${sh.toFixed(2)} %)`;
};

/**
 * The decision interval h of the sequential rule, re-derived: i.i.d. normal ln p95s (both rules are
 * location-scale invariant, so one drift size stands for all), max_pct and the floor off, 32
 * passing runs then 10 judged per stream, bisection on h (common random numbers: the rate falls
 * monotonically in h) for band + rule ≤ CALIBRATION_TARGET per run. Its own seed, never the reported ones.
 */
function calibrate(streams: number): void {
  console.log(`calibrating h to ${(CALIBRATION_TARGET * 100).toFixed(2)} % per run (band + rule, max_pct and floor off)`);
  const rate = (limitSd: number) => {
    const [o] = persistingStudy(0.1, [0], { runsAfter: 10, initialRuns: LOOKBACK, streams, seed: CALIBRATION_SEED, invariant: true, limitSd, gaussianOnly: true });
    return o!;
  };
  let lo = 0;
  let hi = 4;
  for (let it = 0; it < 12; it++) {
    const h = (lo + hi) / 2;
    const at = rate(h);
    if (at.fails / at.runs > CALIBRATION_TARGET) lo = h;
    else hi = h;
    console.log(`  h ${h.toFixed(4)} → ${((at.fails / at.runs) * 100).toFixed(3)} %`);
  }
  const at = rate(hi);
  console.log(`calibration (seed ${CALIBRATION_SEED}, ${streams} streams, ${at.runs} judged runs): h = ${hi.toFixed(4)}, band + rule ${fpLine(at, 10)}, band alone ${((at.singleFails / at.runs) * 100).toFixed(2)} %`);
}

function smallSuiteStudy(sizes: readonly number[], factors: readonly number[]) {
  return sizes.map((n) =>
    factors.map((f) => {
      let fail = 0;
      let pass = 0;
      let oneSided = 0;
      for (let run = 0; run < RUNS; run++) {
        const runDrift = drift(0.1);
        const cand = scaled(runSamples(MEDIAN_MS * runDrift, n), f);
        const ref = runSamples(MEDIAN_MS * runDrift, n);
        const diff = unpairedRelativeDifference(cand, ref);
        const status = decideLatency(diff, { maxPct: REFERENCE_MAX_PCT, floorMs: FLOOR_MS }).status;
        if (status === 'fail') fail++;
        if (status === 'pass') pass++;
        if (status === 'fail' && diff.fail_bound === 'one_sided') oneSided++;
      }
      return { fail, pass, oneSided };
    }),
  );
}

/** How often the p95 interval holds the true p95 (median · e^(σ·z₀.₉₅)), by sample size. */
function p95Coverage(sizes: readonly number[]): string[] {
  const truth = MEDIAN_MS * 1000 * Math.exp(SIGMA_LOG * normalQuantile(0.95));
  return sizes.map((n) => {
    let covered = 0;
    for (let run = 0; run < RUNS; run++) {
      const q = percentileIntervals(runSamples(MEDIAN_MS, n)).p95;
      if (q.lower <= truth && truth <= q.upper) covered++;
    }
    return `n = ${n}: ${pct(covered)}`;
  });
}

/** Cost of every verdict statistic on one run of `n` samples per side (the ≤ 1 s budget). */
function millionSampleCost(n: number) {
  const cand = new Float64Array(n);
  const ref = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    cand[i] = Math.round(MEDIAN_MS * 1000 * Math.exp(SIGMA_LOG * normal()));
    ref[i] = Math.round(MEDIAN_MS * 1000 * Math.exp(SIGMA_LOG * normal()));
  }
  const buckets = Array.from({ length: 3600 }, (_, i) => ({ calls: 278, failed: i % 100 === 0 ? 278 : 1 }));
  let best: { sortMs: number; totalMs: number; p95: ReturnType<typeof percentileIntervals>['p95']; paired: ReturnType<typeof pairedRelativeDifference> } | null = null;
  // Best of three: the two cores are shared, and a neighbour's burst is not our cost.
  for (let round = 0; round < 3; round++) {
    const result = timeStatistics(cand, ref, buckets, n);
    if (best === null || result.totalMs < best.totalMs) best = result;
  }
  return best!;
}

function timeStatistics(cand: Float64Array, ref: Float64Array, buckets: { calls: number; failed: number }[], n: number) {
  const started = process.hrtime.bigint();
  const cs = Float64Array.from(cand).sort();
  const rs = Float64Array.from(ref).sort();
  const sorted = process.hrtime.bigint();
  const intervals = percentileIntervals(cs);
  const unpaired = unpairedRelativeDifference(cs, rs);
  const paired = pairedRelativeDifference(cand, ref, { candidateSorted: cs, referenceSorted: rs });
  decideLatency(unpaired, { maxPct: REFERENCE_MAX_PCT, floorMs: FLOOR_MS });
  decideLatency(paired, { maxPct: REFERENCE_MAX_PCT, floorMs: FLOOR_MS });
  decideAvailability(n - 1000, n, 99);
  answeredBucketShare(buckets);
  const done = process.hrtime.bigint();
  return {
    sortMs: Number(sorted - started) / 1e6,
    totalMs: Number(done - started) / 1e6,
    p95: intervals.p95,
    paired,
  };
}

function main(): void {
  const t0 = Date.now();
  if (process.env.BENCH_VERDICT_CALIBRATE === '1') {
    calibrate(STREAMS * 2);
    return;
  }
  console.log(`bench:verdict — ${RUNS} simulated CI runs per row, seed ${SEED}, node ${process.version}`);
  console.log(
    `model: log-normal per call (median ${MEDIAN_MS} ms, σ_log ${SIGMA_LOG}), ${CALLS} calls per run, run-to-run drift σ 10 %;` +
      ` vs baseline max ${REGRESSION_MAX_PCT} %, vs reference max ${REFERENCE_MAX_PCT} %, floor ${FLOOR_MS} ms`,
  );

  const regressions = [0, 0.1, 0.3, 0.5];
  for (const driftSigma of [0.1, 0.05]) {
    const { counts, boundaries, byBoundary } = baselineStudy(driftSigma, regressions);
    table(
      `vs baseline, run-to-run drift σ ${driftSigma * 100} % (history: ${WINDOW} passing runs, one-sided ${BASELINE_DEFAULTS.upperBoundary * 100} % t prediction limit)`,
      ['candidate p95', "today's rule (previous run, point)", 'history model: fail', 'history: caught within 2 runs', 'within 3 runs', 'fallback (previous run, sampling interval only): fail / inconclusive', 'fallback with 10 % drift allowance: fail / inconclusive'],
      regressions.map((r, i) => {
        const c = counts[i]!;
        return [r === 0 ? 'unchanged' : `+${r * 100} %`, pct(c.today), pct(c.history), pct(c.within2), pct(c.within3), `${pct(c.fallbackFail)} / ${pct(c.fallbackInconclusive)}`, `${pct(c.driftFail)} / ${pct(c.driftInconclusive)}`];
      }),
    );
    table(
      `history model, drift σ ${driftSigma * 100} %: the upper prediction limit trades false fails for catches`,
      ['one-sided level', ...regressions.map((r) => (r === 0 ? 'unchanged' : `+${r * 100} %`))],
      boundaries.map((b, k) => [`${b * 100} %`, ...byBoundary[k]!.map(pct)]),
    );
  }
  // The best any single-run rule can do when each run's p95 wanders by σ (log) around the truth:
  // holding false fails to 1 % needs a limit at z₀.₉₉·σ; a shift δ is then caught with Φ(δ/σ − z₀.₉₉).
  const z99 = normalQuantile(0.99);
  const bound = (sigmaLog: number, shift: number) => {
    // + the sampling noise of one 2,000-call p95: σ_log·√(p(1−p)/n)/φ(z_p) ≈ 0.019
    const sigma = Math.sqrt(sigmaLog ** 2 + 0.0189 ** 2);
    return `${(100 * normalCdf(Math.log(1 + shift) / sigma - z99)).toFixed(0)} %`;
  };
  console.log(
    `\nceiling for any one-run rule at ≤ 1 % false fails (even with a perfectly known history): +30 % caught at most ` +
      `${bound(0.1, 0.3)} with drift σ 10 %, ${bound(0.05, 0.3)} with σ 5 %`,
  );

  // Against an estimated history no rule reaches that ceiling: a rule whose false-fail rate must
  // hold whatever the drift's size is location-scale invariant in ln p95, and among those the
  // one-sided t prediction test of one new run against r earlier ones is uniformly most powerful
  // (Lehmann, two-sample t). Its power is a noncentral t tail: ncp = δ/σ/√(1 + 1/r), df r − 1.
  // σ of ln p95 from run to run: the drift as simulated (e^(0.1·z), σ_log 0.1 — the issue's "ln 1.3 / 0.1"; this
  // once read ln 1.1 = 0.095, a ceiling of 64.6 % for a model that draws 0.1) and one run's p95 sampling noise.
  const sigma10 = Math.sqrt(0.1 ** 2 + 0.0189 ** 2);
  const ceiling30 = normalCdf(Math.log(1.3) / sigma10 - z99);
  const invariantBest = (alpha: number, r: number) => noncentralTUpperTail(studentTQuantile(1 - alpha, r - 1), r - 1, Math.log(1.3) / sigma10 / Math.sqrt(1 + 1 / r));
  const best32 = invariantBest(0.01, LOOKBACK);
  // The share of the 1 % a single-run rule must spend to reach 0.9 × the ceiling (the power rises with α).
  let needLo = 0.001;
  let needHi = 0.01;
  for (let it = 0; it < 40; it++) {
    const mid = (needLo + needHi) / 2;
    if (invariantBest(mid, LOOKBACK) < 0.9 * ceiling30) needLo = mid;
    else needHi = mid;
  }
  const needed = invariantBest(needHi, LOOKBACK) >= 0.9 * ceiling30 ? needHi : null;
  // The band centres on the window (10 runs) and takes its spread from the lookback: ≈ the same test with √(1 + 1/10).
  const bandBest = noncentralTUpperTail(studentTQuantile(BASELINE_DEFAULTS.upperBoundary, LOOKBACK - 1), LOOKBACK - 1, Math.log(1.3) / sigma10 / Math.sqrt(1 + 1 / WINDOW));
  const bandShare = invariantBest(1 - BASELINE_DEFAULTS.upperBoundary, LOOKBACK);
  console.log(
    `best one-run rule that holds ≤ 1 % false fails whatever the drift (t prediction test, ${LOOKBACK} earlier runs): +30 % caught at most ` +
      `${(100 * best32).toFixed(1)} % = ${(best32 / ceiling30).toFixed(3)} × the ceiling (${(100 * ceiling30).toFixed(1)} %)` +
      `${best32 < 0.9 * ceiling30 ? ' — 0.9 × the ceiling is out of reach for any such rule, even one spending the whole 1 % on a single run' : ''}; ` +
      `with the band's share (${((1 - BASELINE_DEFAULTS.upperBoundary) * 100).toFixed(1)} %): ${(100 * bandShare).toFixed(1)} % = ${(bandShare / ceiling30).toFixed(3)} ×`,
  );
  console.log(
    needed === null
      ? 'single run ≥ 0.9 × the ceiling: out of reach at any share of the 1 %'
      : `single run ≥ 0.9 × the ceiling needs ≥ ${(needed * 100).toFixed(2)} % of the 1 % false-fail budget spent on the one run, ` +
          `leaving ≤ ${((0.01 - needed) * 100).toFixed(2)} % for every rule that looks at more runs; ` +
          `the band (centre from its ${WINDOW}-run window) at ${BASELINE_DEFAULTS.upperBoundary * 100} % is expected to catch ≈ ${(100 * bandBest).toFixed(1)} % = ${(bandBest / ceiling30).toFixed(3)} ×`,
  );

  const detectionLevels = [0, 0.1, 0.2, 0.3, 0.5];
  const runsAfter = 10;
  // A seed none of the rule's choices (κ, h, the band's level) was explored or calibrated on.
  const evaluationSeed = SEED * 7919 + 104_729;
  const rule = `band (one run, one-sided ${BASELINE_DEFAULTS.upperBoundary * 100} %) + scan of the last 1–${PERSISTING_RUNS} runs (Σz/√k > h ${PERSISTING_LIMIT_SD} sd, the candidate alone > h − ${PERSISTING_SINGLE_ALLOWANCE_SD}) against up to ${PERSISTING_LOOKBACK} earlier runs`;
  for (const [driftSigma, initialRuns, streams] of [[0.1, LOOKBACK, STREAMS], [0.1, 30, RUNS * 5], [0.1, WINDOW, RUNS * 5], [0.05, LOOKBACK, RUNS * 5]] as const) {
    const persisting = persistingStudy(driftSigma, detectionLevels, { runsAfter, initialRuns, streams, seed: evaluationSeed });
    const within = (at: number[], k: number) => `${((at.filter((d) => d <= k).length / at.length) * 100).toFixed(1)} %`;
    const median = (at: number[]) => {
      const sorted = [...at].sort((a, b) => a - b);
      const m = sorted[Math.floor(sorted.length / 2)]!;
      return Number.isFinite(m) ? String(m) : `> ${runsAfter}`;
    };
    table(
      `persisting regression, drift σ ${driftSigma * 100} %, ${initialRuns} passing runs before it, ${streams} streams of ${runsAfter} runs: ${rule}; passing runs join the history`,
      ['candidate p95 from run 1 on', 'false fails per run (unchanged only)', 'caught in run 1', 'within 2 runs', 'within 3 runs', 'median runs to detection', 'band alone: within 3 runs', 'band alone: median runs'],
      detectionLevels.map((r, i) => {
        const o = persisting[i]!;
        const perRun = r === 0 ? `${((o.fails / o.runs) * 100).toFixed(2)} % (band alone ${((o.singleFails / o.runs) * 100).toFixed(2)} %)` : '–';
        return [r === 0 ? 'unchanged' : `+${r * 100} %`, perRun, within(o.detectedAt, 1), within(o.detectedAt, 2), within(o.detectedAt, 3), median(o.detectedAt), within(o.singleDetectedAt, 3), median(o.singleDetectedAt)];
      }),
    );
    if (driftSigma === 0.1 && initialRuns === LOOKBACK) {
      const [invariant] = persistingStudy(driftSigma, [0], { runsAfter, initialRuns, streams, seed: evaluationSeed + 1, invariant: true });
      const at30 = persisting[detectionLevels.indexOf(0.3)]!;
      const caught1 = at30.detectedAt.filter((d) => d <= 1).length / at30.detectedAt.length;
      const [c3l, c3h] = wilson(at30.detectedAt.filter((d) => d <= 3).length, at30.detectedAt.length);
      console.log(`
false fails per run, unchanged endpoint, band + sequential rule: ${fpLine(persisting[0]!, runsAfter)}`);
      console.log(`  the same with max_pct and the floor off (the two tests alone, what the calibration holds ≤ 1 % for any drift): ${fpLine(invariant!, runsAfter)}`);
      console.log(`+30 % within three runs: 95 % interval ${c3l.toFixed(1)}–${c3h.toFixed(1)} %`);
      console.log(`single run: +30 % caught in run 1 ${(100 * caught1).toFixed(1)} % = ${(caught1 / ceiling30).toFixed(3)} × the ceiling (${(100 * ceiling30).toFixed(1)} %)`);
      console.log(`median runs to detection: ${detectionLevels.slice(1).map((r, i) => `+${r * 100} % ${median(persisting[i + 1]!.detectedAt)}`).join(', ')}`);
    }
  }

  const sizes = [30, 60, 100, 300];
  const factors = [1, 1.3, 5];
  const small = smallSuiteStudy(sizes, factors);
  table(
    `small suites: candidate vs reference at n calls a side (closed loop, unpaired; max ${REFERENCE_MAX_PCT} %, floor ${FLOOR_MS} ms): fail / pass (fails on the one-sided small-sample bound)`,
    ['calls a side', ...factors.map((f) => (f === 1 ? 'unchanged' : `candidate ${f}×`))],
    sizes.map((n, i) => [String(n), ...small[i]!.map((c) => `${pct(c.fail)} / ${pct(c.pass)}${c.oneSided > 0 ? ` (${pct(c.oneSided)})` : ''}`)]),
  );
  const boundSmall = smallSampleFailBound(runSamples(MEDIAN_MS * 5, 60), runSamples(MEDIAN_MS, 60), 0.95);
  console.log(`one 60-call draw, candidate 5×: one-sided 95 % lower bound of the p95 difference ${boundSmall.toFixed(0)} %`);

  const scenarios = [
    { name: 'same distribution', candidate: 1, reference: 1, referenceDrift: 0 },
    { name: 'reference 30 % faster (candidate +43 %)', candidate: 1, reference: 0.7, referenceDrift: 0 },
    { name: 'candidate +30 % (limit 25 %)', candidate: 1.3, reference: 1, referenceDrift: 0 },
    { name: 'candidate +50 %', candidate: 1.5, reference: 1, referenceDrift: 0 },
    { name: 'same distribution, shared factor σ_log 0.4', candidate: 1, reference: 1, referenceDrift: 0, sharedSigma: 0.4 },
    { name: 'candidate +30 %, shared factor σ_log 0.4', candidate: 1.3, reference: 1, referenceDrift: 0, sharedSigma: 0.4 },
    { name: 'same distribution, reference drifts on its own (σ 10 %)', candidate: 1, reference: 1, referenceDrift: 0.1 },
    { name: 'reference 30 % faster, reference drifts on its own', candidate: 1, reference: 0.7, referenceDrift: 0.1 },
  ];
  const ref = referenceStudy(scenarios);
  table(
    `vs reference, ${CALLS} calls each, open loop ${RATE_PER_SECOND}/s (shared per-second factor σ_log ${SHARED_SIGMA_LOG})`,
    ['scenario', "today's rule (point): fail", 'unpaired interval: fail', 'unpaired: inconclusive', 'paired interval: fail', 'paired: inconclusive', 'paired: median calls to decide'],
    scenarios.map((s, i) => {
      const c = ref[i]!;
      const sorted = [...c.toDecide].sort((a, b) => a - b);
      const median = sorted.length > 0 ? String(sorted[Math.floor(sorted.length / 2)]) : '–';
      return [s.name, pct(c.today), pct(c.unpairedFail), pct(c.unpairedInc), pct(c.pairedFail), pct(c.pairedInc), median];
    }),
  );
  const covered = scenarios
    .map((s, i) => ({ s, c: ref[i]! }))
    .filter(({ s }) => s.candidate === s.reference && s.referenceDrift === 0)
    .map(({ s, c }) => `${s.name}: unpaired ${pct(c.unpairedCovers)}, paired ${pct(c.pairedCovers)}`);
  console.log(`\ncoverage of the 95 % difference interval (true difference 0 %): ${covered.join('; ')}`);
  console.log(`p95 interval coverage, i.i.d. log-normal: ${p95Coverage([5, 20, 59, 100, 500, 2000]).join(', ')}`);

  const cost = millionSampleCost(1_000_000);
  const p95 = cost.p95;
  console.log(
    `\n1,000,000 samples per side: every verdict statistic (2 sorts, p50/p95/p99 intervals, unpaired and paired p95 difference, availability) ` +
      `${cost.totalMs.toFixed(0)} ms, of which sorting ${cost.sortMs.toFixed(0)} ms (best of 3; target ≤ 1,000 ms); ` +
      `p95 ${(p95.point / 1000).toFixed(2)} ms [${(p95.lower / 1000).toFixed(2)}–${(p95.upper / 1000).toFixed(2)}], ` +
      `paired difference ${cost.paired.point_pct.toFixed(2)} % [${cost.paired.lower_pct.toFixed(2)}, ${cost.paired.upper_pct.toFixed(2)}]`,
  );
  console.log(`\nbench:verdict done in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
}

main();
