import type { ProberHealth } from './prober';
import type { BatchLimit } from '../batch-limit';
import type { CorrectnessTally } from '../correctness';
import type { Freshness } from '../freshness';
import type { CheckStatus } from '../run-model';
import type { PersistingDecision } from '../statistics/history-baseline';
import type { SortedSamples } from '../statistics/quantile-interval';
import type { PairCounts } from '../statistics/relative-difference';
import type { RunStats } from '../run-stats';
import type { CapacityReason, StepReason, StepStatus } from '../sweep';

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
  /** freshness_vs_reference (a suite with config.freshness): limits of the arrival lag's p95, the missed share and the longest stall. */
  head_lag_p95_max_ms?: number;
  missed_heads_max_pct?: number;
  stall_max_s?: number;
  /** capacity (a sweep run): the knee must be at least this many calls/s (default: the sweep's lowest rate). */
  capacity_min_rps?: number;
  /** capacity: a step's send-lag p99 may be at most this percent of its p95 (default PROBER_LAG_SHARE_MAX × 100). */
  sweep_send_lag_max_pct?: number;
}

export const DEFAULT_SUCCESS_RATE_MIN_PCT = 99;
export const DEFAULT_REGRESSION_MIN_MS = 5;

/** A check as the verdict lists it: `details` is each check's own shape, told apart by `name`. */
export interface CheckOf<N extends string, D> {
  name: N;
  status: CheckStatus;
  message: string;
  details: D;
}

/** A judged check, and what it compared the run with where the verdict reports that beside its checks. */
export interface Judged<C> {
  check: C;
  reference_comparison?: ReferenceComparison;
  baseline_comparison?: BaselineComparison;
  freshness_comparison?: FreshnessComparison;
  capacity?: CapacityComparison;
}

/**
 * One check of the verdict (the list is checks.ts): pure, judging the run from the verdict's
 * input; null when the check does not apply to this run (no reference, no baseline run, …).
 */
export type VerdictCheck<C> = (input: VerdictInput) => Judged<C> | null;

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

/** The 95 % intervals of p50, p95 and p99, ms. */
export interface PercentileIntervalsMs {
  p50: PercentileMs;
  p95: PercentileMs;
  p99: PercentileMs;
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

export interface LastHeadView {
  endpoint_name: string;
  role: 'primary' | 'reference';
  /** The head as the family reads it (a slot on Solana). */
  head: number;
  block_height: number | null;
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
  /**
   * head_lag_blocks × the reference's measured head interval (ms per block or slot over the run's
   * head reads), rounded; null when there is no lag figure or the reference's head did not move.
   * An estimate: the freshness watch measures arrival lag per head. Absent from verdicts judged
   * before it existed.
   */
  head_lag_ms?: number | null;
  /**
   * Each target's last head read when the head is not a block height (Solana: the slot at the
   * run's commitment) with the block height read beside it (null: that read failed). Absent for
   * families whose head is the height.
   */
  last_heads?: LastHeadView[];
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
    candidate_intervals_ms?: PercentileIntervalsMs;
    reference_intervals_ms?: PercentileIntervalsMs;
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
  /** history: the band's upper over lower limit (absent before it). */
  history_band_span?: number;
  /** history, band too wide: passing runs the band would need before a regression of max_pct could land above it; null: no history finalize reads would do (absent otherwise). */
  history_runs_needed?: number | null;
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
  /** baseline.window (default 10): how many runs the band centres on, for the runs a too-wide band needs. */
  window?: number;
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

/** What the verdict input carries of a run's head watch (finalize measures it from the stored arrivals). */
export interface FreshnessWatchInput {
  via: 'subscribe' | 'poll';
  duration_s: number;
  grace_ms: number;
  late_ms: number;
  poll_interval_ms: number;
  measured: Freshness;
  /** Endpoint id and name of each target id the measure names. */
  endpoints: Readonly<Record<string, { endpoint_id: string; endpoint_name: string }>>;
}

export type FreshnessReason =
  | 'nothing_judged'
  | 'missed_above_limit'
  | 'stall_above_limit'
  | 'lag_above_limit'
  | 'lag_straddles_limit'
  | 'within_limits'
  | 'flooding'
  | 'head_out_of_range';

export interface EndpointFreshness {
  endpoint_id: string;
  endpoint_name: string;
  status: CheckStatus;
  reason: FreshnessReason;
  /** Reference heads whose grace window the observer saw whole. */
  judged: number;
  /** Distinct heads the endpoint announced. */
  announced: number;
  missed: number;
  /** missed / judged, percent (one decimal); null when nothing was judged. */
  missed_pct: number | null;
  late: number;
  duplicates: number;
  reorgs: number;
  reconnects: number;
  disconnects: number;
  /** Heads the observer was too slow to take: the observer's, not the endpoint's. */
  dropped: number;
  /** Announced more distinct heads than the chain's block rate allows over the watch: fails. */
  flooding: boolean;
  /** Distinct heads beyond that bound: not stored. */
  not_stored: number;
  /** Heads announced with a number outside 0 … 2^63 − 1: not stored; fails. */
  out_of_range: number;
  longest_stall_ms: number;
  /** Reference heads not judged: their grace window fell into an observer gap or past the watch's end. */
  unjudged: number;
  /** Arrival lag behind the reference (negative: ahead), with 95 % intervals; null when no head was matched. */
  lag_ms: PercentileIntervalsMs | null;
  lags: number;
}

export interface FreshnessComparison {
  status: CheckStatus;
  via: 'subscribe' | 'poll';
  duration_s: number;
  grace_ms: number;
  late_ms: number;
  /** poll: arrival times are known to within the interval; null for subscribe. */
  resolution_ms: number | null;
  reference: {
    endpoint_id: string;
    endpoint_name: string;
    heads: number;
    reorgs: number;
    duplicates: number;
    reconnects: number;
    disconnects: number;
    longest_stall_ms: number;
    flooding: boolean;
    not_stored: number;
    out_of_range: number;
  };
  candidates: EndpointFreshness[];
  /** When the observer itself was gone (a worker lost), ms from the watch's start: nobody's heads were judged then. */
  observer_gaps: { from_ms: number; to_ms: number }[];
}

/** An item of the verdict's batch_limits: one endpoint's batch limit, as its target found it. */
export interface EndpointBatchLimit extends BatchLimit {
  endpoint_id: string;
  endpoint_name: string;
  role: 'primary' | 'reference';
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
    /** See ReferenceComparison.head_lag_ms; null when omitted. */
    headLagMs?: number | null;
    /** See ReferenceComparison.last_heads; absent: not reported. */
    lastHeads?: LastHeadView[];
    /** Paired (open loop on a shared anchor) or why not; omitted: unpaired, reason unknown. */
    pairing?: { method: 'paired'; latencies: PairedLatencies } | { method: 'unpaired'; reason: UnpairedReason };
  } | null;
  baseline: BaselineInput | null;
  /**
   * Candidate/reference answer pairs counted (computed in SQL at finalize). Judged only when a
   * reference exists and thresholds.correctness_enabled; omitted, it counts as nothing compared.
   */
  correctness?: CorrectnessTally;
  /** The run's head watch measured (config.freshness); omitted: the run watched no heads. */
  freshness?: FreshnessWatchInput;
  /** The batch limits the run found (targets whose batches were refused for their size); omitted or empty: none. */
  batchLimits?: readonly EndpointBatchLimit[];
  /** The run's capacity sweep measured per step (workload.sweep); omitted: the run swept nothing. */
  sweep?: SweepInput;
  /** What CI built (the trigger's branch and commit) and the baseline branch read; omitted: not shown. */
  source?: { branch: string | null; commit: string | null; baselineBranch: string };
  /** The prober's own health while it probed (DESIGN §17); omitted: not recorded (runs before it). */
  prober?: ProberHealth;
}

/** One endpoint's measured step, as finalize reads it from the samples (warm-up excluded). */
export interface SweepStepInput {
  step: number;
  rate: number;
  calls: number;
  successful: number;
  rate_limited: number;
  errors: Readonly<Record<string, number>>;
  achieved_rps: number | null;
  /** Pauses between sends longer than a re-anchor: the step was resumed after a lost worker. */
  interruptions: number;
  send_lag_p50_us: number | null;
  send_lag_p99_us: number | null;
  send_lag_max_us: number | null;
  /** Sorted successful latencies, µs (may be sparse: only the ranks the intervals read). */
  latencies: SortedSamples;
}

/** What the verdict input carries of a capacity sweep (workload.sweep). */
export interface SweepInput {
  step_s: number;
  warmup_s: number;
  /** Every planned rate, rising; steps after an early stop were never probed. */
  rates: readonly number[];
  endpoints: readonly { endpoint_id: string; endpoint_name: string; role: 'primary' | 'reference'; steps: readonly SweepStepInput[] }[];
}

export interface CapacityStep {
  step: number;
  offered_rps: number;
  /** Calls per second the prober actually sent; null below two calls. */
  achieved_rps: number | null;
  /** Successful calls per second. */
  throughput_rps: number | null;
  /** Times the step was interrupted (a lost worker) and resumed: its calls went out in that many more stretches. */
  interruptions: number;
  calls: number;
  successful: number;
  success_rate_pct: number | null;
  success_rate_interval_pct: { lower: number; upper: number };
  /** HTTP 429 answers, apart from the other errors. */
  rate_limited: number;
  errors: Record<string, number>;
  /** Successful calls' p50/p95/p99 with 95 % intervals; null when none succeeded. */
  latency_ms: PercentileIntervalsMs | null;
  send_lag_p50_ms: number | null;
  send_lag_p99_ms: number | null;
  send_lag_max_ms: number | null;
  status: StepStatus;
  reason: StepReason;
  /** Broken beyond doubt (its whole interval past the budget): the sweep went no higher. */
  clearly_broken: boolean;
  prober_behind: boolean;
  /** A sentence for a step the prober could not keep (null otherwise). */
  note: string | null;
}

export interface CapacityEndpoint {
  endpoint_id: string;
  endpoint_name: string;
  role: 'primary' | 'reference';
  /** Judged for candidates; the reference's is reported the same way, not judged. */
  status: CheckStatus;
  reason: CapacityReason;
  /** The knee: the highest offered rate of the unbroken run of within-budget steps; null when the first step did not hold. */
  knee_rps: number | null;
  knee_step: number | null;
  steps: CapacityStep[];
}

/** The verdict's capacity section (present for a sweep run only). */
export interface CapacityComparison {
  status: CheckStatus;
  min_rps: number;
  latency_p95_max_ms: number;
  success_rate_min_pct: number;
  step_s: number;
  warmup_s: number;
  rates: number[];
  /** Steps probed; fewer than rates when the sweep stopped early. */
  steps_probed: number;
  endpoints: CapacityEndpoint[];
}

