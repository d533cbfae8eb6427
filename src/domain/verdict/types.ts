import type { IntegrityInput } from './integrity-input';
import type { ProberHealth } from './prober';
import type { BatchLimit } from '../batch-limit';
import type { CorrectnessTally } from '../correctness';
import type { Freshness } from '../freshness';
import type { CheckStatus } from '../run-model';
import { thresholdDefault, type Thresholds } from '../thresholds';
import type { SortedSamples } from '../statistics/quantile-interval';
import type { PairCounts } from '../statistics/relative-difference';
import type { RunStats } from '../run-stats';
import type { BaselineComparison, CapacityComparison, FreshnessComparison, LastHeadView, ReferenceComparison, UnpairedReason } from './shapes';

// The verdict's returned and stored sections are declared once, as zod schemas (shapes.ts), their
// types inferred there; this file holds what the checks read (the verdict's input) and nothing returned.
export type {
  BaselineComparison,
  BaselineLimits,
  BaselineModelUsed,
  CapacityComparison,
  CapacityEndpoint,
  CapacityStep,
  EndpointFreshness,
  FreshnessComparison,
  FreshnessReason,
  IntervalMs,
  IntervalPct,
  LastHeadView,
  MethodComparison,
  Pairing,
  PercentileIntervalsMs,
  PercentileMs,
  PersistingLimits,
  ReferenceComparison,
  UnpairedReason,
  VerdictValue,
} from './shapes';

export type { Thresholds } from '../thresholds';
export const DEFAULT_SUCCESS_RATE_MIN_PCT = thresholdDefault('success_rate_min_pct');
export const DEFAULT_REGRESSION_MIN_MS = thresholdDefault('latency_regression_min_ms');

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
  /** What the integrity step proved of each candidate (config.integrity); omitted: the suite does not enable it. */
  integrity?: IntegrityInput;
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

