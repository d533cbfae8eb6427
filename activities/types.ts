// Inputs and results of activities: ids and small summaries only — never samples, URLs or
// headers (Temporal keeps every payload in the workflow history and shows it in its UI).

export interface RetrySummary {
  maxAttempts: number;
  initialIntervalMs: number;
  backoffCoefficient: number;
  maxIntervalMs: number;
}

export interface ClaimRunResult {
  outcome: 'claimed' | 'already_claimed' | 'terminal';
  targets: { targetId: string; role: 'primary' | 'reference' }[];
  retry: RetrySummary;
  /** Campaign length for duration-bound workloads; null when bound by a request count. */
  durationMs: number | null;
  /** The workload's open-loop rate; null in closed loop (absent from claims recorded before it existed). */
  ratePerSecond?: number | null;
  /** The head watch's length (config.freshness); null without one (absent from claims recorded before it existed). */
  freshnessDurationS?: number | null;
  /** The suite's vantage_points; absent or null: probed on the main queue as region 'local'. */
  vantagePoints?: string[] | null;
  /** How long a region's probe task may wait for a worker of the region (vantage_start_timeout_s). */
  vantageStartTimeoutMs?: number;
  /** A capacity sweep's steps (workload.sweep): the first seq of each; absent without one. */
  sweepSteps?: number[];
  /** The suite enables the integrity step (config.integrity); absent without it. */
  integrity?: true;
}

/** One chunk of one step of a capacity sweep on one target. */
export interface ProbeSweepStepInput {
  runId: string;
  targetId: string;
  retry: RetrySummary;
  step: number;
  /** Where this chunk starts; the step's first seq for its first chunk. */
  fromSeq: number;
  /** Epoch ms at which the step's first seq is due on every target: chosen once per step by the workflow. */
  anchorMs: number;
}

/** One chunk of one shard of a sharded sweep step (seq ≡ shard mod shards) on one target. */
export interface ProbeSweepShardInput extends ProbeSweepStepInput {
  shard: number;
  shards: number;
}

/** How many shards each step of a run's sweep is split into (1: one activity per target, as unsharded). */
export interface SweepShardsPlan {
  shards: number[];
}

export interface ProbeSweepStepResult {
  nextSeq: number;
  /** The target has probed the whole step. */
  done: boolean;
}

export interface SweepStepJudged {
  /** The sweep is over: every candidate broke the budget clearly (or fell behind), or this was the last step. */
  stop: boolean;
  statuses: string[];
}

/** Heartbeat details of a head watch: where a resumed attempt continues. */
export interface WatchFreshnessProgress {
  /** Epoch ms at which the watch began: every segment's times are ms from it. */
  watchStartedAtMs: number;
  /** The observer segment (attempt) that heartbeated. */
  segment: number;
}

export interface WatchFreshnessResult {
  /** Arrivals this attempt stored (a head seen again after a resume is stored once). */
  heads: number;
  /** The segment this attempt watched as; null when there was nothing left to watch. */
  segment: number | null;
}

export interface PlanRunResult {
  pinnedBlock: number | null;
}

export interface ProbeChunkInput {
  runId: string;
  targetId: string;
  retry: RetrySummary;
  /** First sequence number of this chunk (a retried attempt may resume later, from its heartbeat). */
  fromSeq: number;
  /** Epoch ms at which a duration-bound campaign ends; null for count-bound ones. */
  campaignEndsAtMs: number | null;
  /**
   * Paired open loop: the epoch ms at which seq 0 is due on every target of the run, chosen once
   * by the workflow, so seq i is due at anchor + i / rate on the candidate and the reference
   * alike (a retried chunk too). Absent or null: each chunk schedules from its own start (unpaired).
   */
  scheduleAnchorMs?: number | null;
  /** Vantage points: the region whose probe queue this chunk was sent to; absent: 'local'. */
  region?: string;
}

export interface ProbeChunkResult {
  targetId: string;
  nextSeq: number;
  /** The target has probed everything it planned (or its campaign time is over). */
  done: boolean;
}

export interface FinalizeRunInput {
  runId: string;
  status: 'success' | 'failed' | 'cancelled';
  failureReason: string | null;
  /**
   * The workflow ran the re-check and explanation steps (recheckHeadMoved, explainMismatches)
   * before; absent from histories recorded before those steps existed, when finalizeRun runs them.
   */
  stepsDone?: boolean;
}

export interface FinalizeRunResult {
  status: 'success' | 'failed' | 'cancelled';
  verdict: 'pass' | 'fail' | 'error';
  exitCode: number;
}

/** Heartbeat details of a probe chunk: where a retried attempt resumes. */
export interface ProbeProgress {
  nextSeq: number;
  /** Added by withRetryRecording to every heartbeat. */
  retries?: RetryLedger;
}

/** A failed attempt that could not be written to retry_history yet (our database was down). */
export interface AttemptNote {
  attempt: number;
  errorType: string;
  /** Our own error messages: never URLs, headers or other secrets. */
  message: string;
  failedAtMs: number;
  nextAttemptAtMs: number | null;
}

/** Carried from attempt to attempt of one activity execution, in its heartbeat details. */
export interface RetryLedger {
  /** Failures attributed to the endpoint so far: what the suite's max_attempts counts. */
  endpointFailures: number;
  unrecorded: AttemptNote[];
}

/** One fire of a suite's schedule: a run started, or why not (services/schedules.ts). */
export type ScheduledTriggerResult = { outcome: 'started'; runId: string } | { outcome: 'skipped'; reason: string };

/**
 * The contract between the workflows and the worker: what a workflow may call, with inputs and
 * results as they cross Temporal. createActivities (activities/index.ts) implements it; workflows
 * import this interface, not the implementations, so workflow code never depends on what the
 * activities import (services, the database, the probe) and no import circle runs through a
 * workflow back into the activities that start workflows.
 */
export interface Activities {
  claimRun(input: { runId: string }): Promise<ClaimRunResult>;
  planRun(input: { runId: string; retry: RetrySummary }): Promise<PlanRunResult>;
  probeChunk(input: ProbeChunkInput): Promise<ProbeChunkResult>;
  /** Probes one chunk of one capacity-sweep step on one target (heartbeating, resumable). */
  probeSweepStep(input: ProbeSweepStepInput): Promise<ProbeSweepStepResult>;
  /** Splits each step of the run's sweep into shards by its rate and the worker's shard limits. */
  planSweepShards(input: { runId: string }): Promise<SweepShardsPlan>;
  /** Probes one chunk of one shard of a sharded sweep step on one target (heartbeating, resumable). */
  probeSweepShard(input: ProbeSweepShardInput): Promise<ProbeSweepStepResult>;
  /** Judges a probed sweep step and says whether the sweep stops (then finishes the targets). */
  judgeSweepStep(input: { runId: string; step: number }): Promise<SweepStepJudged>;
  /** Watches every target's and the reference's head at once for the suite's freshness.duration_s (heartbeating, resumable). */
  watchFreshness(input: { runId: string }): Promise<WatchFreshnessResult>;
  /** Re-sends head-moved differences at a fixed block and stores the outcomes (run_rechecks). */
  recheckHeadMoved(input: { runId: string }): Promise<{ rechecked: number }>;
  /** Asks both sides the listed mismatches' calls once more and stores what differs. */
  explainMismatches(input: { runId: string }): Promise<{ explained: number }>;
  /** Asks each candidate the run's provable calls again and proves the answers (config.integrity); stores the findings. */
  verifyIntegrity(input: { runId: string }): Promise<{ verified: number }>;
  finalizeRun(input: FinalizeRunInput): Promise<FinalizeRunResult>;
  /** A region took none of a target's probe tasks within the schedule-to-start timeout: recorded as vantage_unavailable. */
  recordVantageUnavailable(input: { runId: string; region: string; targetId: string }): Promise<void>;
  enqueueWebhooks(input: { runId: string }): Promise<{ deliveries: number }>;
  deliverWebhook(input: { deliveryId: string }): Promise<{ outcome: 'delivered' | 'gone' }>;
  markWebhookDeliveryFailed(input: { deliveryId: string }): Promise<void>;
  triggerScheduledRun(input: { suiteId: string }): Promise<ScheduledTriggerResult>;
  /** Deletes the raw samples of finished runs past their retention (the sample-expiry schedule's fires). */
  expireSamples(input: Record<string, never>): Promise<{ runs: number; samples: number; droppedPartitions: number }>;
}
