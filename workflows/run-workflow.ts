import {
  ActivityFailure,
  ApplicationFailure,
  CancellationScope,
  continueAsNew,
  isCancellation,
  patched,
  proxyActivities,
  TimeoutFailure,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type { Activities } from '../activities/types';
import type { ClaimRunResult, FinalizeRunResult, RetrySummary } from '../activities/types';
import { RETRIES_EXHAUSTED } from '../src/domain/retry-policy';
import { probeTaskQueueForRegion, SEARCH_ATTRIBUTE_KEYS } from '../src/temporal/constants';
import { BOOKKEEPING_OPTIONS, INFRASTRUCTURE_RETRY, PROBE_OPTIONS } from './activity-options';
import { CHECK_STEPS } from './check-steps';
import { runSweep, SWEEP_PATCH } from './sweep';

export interface RunWorkflowInput {
  runId: string;
  /**
   * Carried across continue-as-new: where each target resumes, when the campaign ends, and the
   * paired schedule's anchor (absent: unpaired).
   */
  resume?: { nextSeq: Record<string, number>; campaignEndsAtMs: number | null; scheduleAnchorMs?: number };
  /** History length at which the workflow continues as new (lowered by tests). */
  maxHistoryEvents?: number;
}

const DEFAULT_MAX_HISTORY_EVENTS = 2_000;

/** Where a vantage point's progress on a target is kept in nextSeq (carried across continue-as-new). */
const vantageKey = (targetId: string, region: string): string => `${targetId}@${region}`;

/** Marks executions that enqueue the run's webhooks after finalizing. */
export const WEBHOOKS_PATCH = 'webhooks';

/**
 * Marks executions that run the re-check of head-moved differences and the explanation of the
 * listed mismatches as activities of their own before finalize (executions before it: finalize
 * runs them).
 */
export const RUN_STEPS_PATCH = 'run-steps';

/**
 * Marks executions whose re-check, explanation and finalize of a run not yet cancelled are
 * cancellable: a cancel then ends the run as cancelled instead of waiting for (or, when its
 * worker keeps dying, never getting) the judged verdict.
 */
export const CANCELLABLE_END_PATCH = 'cancellable-end';

/** Marks executions that give an open-loop run with a reference one shared schedule anchor. */
export const PAIRED_ANCHOR_PATCH = 'paired-anchor';
/**
 * How far ahead of the decision seq 0 is due: time for both first probe activities to start,
 * open their connections (warm-up) and read the head. A target not ready by then sends its first
 * calls late, and the pairing skew in the verdict shows it.
 */
export const PAIRED_ANCHOR_LEAD_MS = 1_500;

/**
 * Marks executions that probe a suite's vantage_points: each target once per region, on the
 * region's probe queue (rvs-probe-<region>). A region whose worker takes no task within the
 * schedule-to-start timeout is recorded as vantage_unavailable and the others go on.
 */
export const VANTAGE_POINTS_PATCH = 'vantage-points';
/** Schedule-to-start of a region's probe task when the claim names none. */
export const VANTAGE_START_TIMEOUT_MS = 60_000;

const bookkeeping = proxyActivities<Activities>(BOOKKEEPING_OPTIONS);

// Finalize aggregates and compares every sample of the run: seconds for a million, but it may
// take longer on a loaded database, so it heartbeats instead of racing a short timeout (a second
// finalize started while the first still works would only wait for its lock).
const finalizing = proxyActivities<Activities>({
  startToCloseTimeout: '30 minutes',
  heartbeatTimeout: '30 seconds',
  retry: INFRASTRUCTURE_RETRY,
});

// The same steps where a cancel may end them (CANCELLABLE_END_PATCH): the workflow waits for the
// activity to stop (its transaction rolled back) before finalizing the run as cancelled.
const ending = proxyActivities<Activities>({
  startToCloseTimeout: '30 minutes',
  heartbeatTimeout: '30 seconds',
  cancellationType: 'WAIT_CANCELLATION_COMPLETED',
  retry: INFRASTRUCTURE_RETRY,
});

const probes = proxyActivities<Activities>(PROBE_OPTIONS);

/**
 * A region's probe activities: on its queue, and failing with a schedule-to-start timeout when no
 * worker of the region takes one in time (Temporal does not retry that timeout: a retry would wait
 * on the same queue). It applies to each attempt, so a region whose worker dies mid-chunk ends the
 * same way once the heartbeat timeout has sent the chunk back to the queue.
 */
const regionalProbes = (region: string, startTimeoutMs: number) =>
  proxyActivities<Activities>({ ...PROBE_OPTIONS, taskQueue: probeTaskQueueForRegion(region), scheduleToStartTimeout: startTimeoutMs });

function isVantageUnavailable(error: unknown): boolean {
  return error instanceof ActivityFailure && error.cause instanceof TimeoutFailure && error.cause.timeoutType === 'SCHEDULE_TO_START';
}

/**
 * A failure_reason a person understands, and free of secrets (activities never put URLs in errors).
 * "Exhausted its retries" only when the suite's budget was spent (the activity marks that failure);
 * a failure final at once (a refused address, a row gone) says so instead.
 */
function failureReason(error: unknown): string {
  let cause: unknown = error;
  while (cause instanceof ActivityFailure && cause.cause) cause = cause.cause;
  const message = cause instanceof ApplicationFailure || cause instanceof Error ? cause.message : String(cause);
  const detail: unknown = cause instanceof ApplicationFailure ? cause.details?.[0] : undefined;
  const exhausted = typeof detail === 'object' && detail !== null && RETRIES_EXHAUSTED in detail;
  return `${exhausted ? 'a probe exhausted its retries' : 'a probe failed and cannot be retried'}: ${message}`.slice(0, 1000);
}

function setStatus(result: { status: string; verdict?: string }): void {
  upsertSearchAttributes([
    { key: SEARCH_ATTRIBUTE_KEYS.status, value: result.status },
    ...(result.verdict ? [{ key: SEARCH_ATTRIBUTE_KEYS.verdict, value: result.verdict }] : []),
  ]);
}

/**
 * One workflow per run (id run-<runId>): claim → plan → probe every target concurrently, chunk
 * by chunk → finalize. Long campaigns continue as new between chunks, carrying each target's
 * next sequence number. Only ids and small summaries cross this boundary.
 */
export async function runWorkflow(input: RunWorkflowInput): Promise<FinalizeRunResult> {
  const { runId } = input;
  const maxHistoryEvents = input.maxHistoryEvents ?? DEFAULT_MAX_HISTORY_EVENTS;
  const nextSeq: Record<string, number> = { ...input.resume?.nextSeq };
  let campaignEndsAtMs = input.resume?.campaignEndsAtMs ?? null;
  let scheduleAnchorMs = input.resume?.scheduleAnchorMs ?? null;
  let rollover = false;
  const historyFull = () => {
    const info = workflowInfo();
    return info.continueAsNewSuggested || info.historyLength >= maxHistoryEvents;
  };
  // A vantage point probes the target on its region's queue, its progress kept under its own key.
  const probeTarget = async (retry: RetrySummary, targetId: string, vantage?: { region: string; startTimeoutMs: number }) => {
    const key = vantage ? vantageKey(targetId, vantage.region) : targetId;
    const activities = vantage ? regionalProbes(vantage.region, vantage.startTimeoutMs) : probes;
    for (;;) {
      if (rollover) return;
      const chunk = await activities.probeChunk({
        runId,
        targetId,
        retry,
        fromSeq: nextSeq[key] ?? 0,
        campaignEndsAtMs,
        ...(scheduleAnchorMs === null ? {} : { scheduleAnchorMs }),
        ...(vantage ? { region: vantage.region } : {}),
      });
      nextSeq[key] = chunk.nextSeq;
      if (chunk.done) {
        nextSeq[key] = Number.MAX_SAFE_INTEGER;
        return;
      }
      if (historyFull()) rollover = true;
    }
  };
  // A region without a worker is its own outcome, never the endpoint's failure: recorded, and done.
  const probeFromRegion = async (retry: RetrySummary, targetId: string, region: string, startTimeoutMs: number) => {
    try {
      await probeTarget(retry, targetId, { region, startTimeoutMs });
    } catch (error) {
      if (!isVantageUnavailable(error)) throw error;
      nextSeq[vantageKey(targetId, region)] = Number.MAX_SAFE_INTEGER;
      await bookkeeping.recordVantageUnavailable({ runId, region, targetId });
    }
  };

  let outcome: { status: FinalizeRunResult['status']; failureReason: string | null } = {
    status: 'success',
    failureReason: null,
  };
  // The claim of this execution, read by the checks' steps before finalize (null: the run was never claimed here).
  let claimed: ClaimRunResult | null = null;
  try {
    // Everything up to finalizing is cancellable, the claim included: a run cancelled while
    // queued still ends as a cancelled run with a verdict.
    await CancellationScope.cancellable(async () => {
      const claim = await bookkeeping.claimRun({ runId });
      claimed = claim;
      if (claim.outcome === 'terminal') throw ApplicationFailure.nonRetryable('run was already finished', 'RunFinished');
      setStatus({ status: 'running' });
      campaignEndsAtMs ??= claim.durationMs === null ? null : Date.now() + claim.durationMs;
      if (!input.resume) await probes.planRun({ runId, retry: claim.retry });
      // Paired probing: in open loop, candidate and reference share one schedule — seq i is due
      // on both at anchor + i / rate. Chosen once (workflow time is deterministic on replay) and
      // carried across continue-as-new; runs begun before the patch stay unpaired.
      const hasReference = claim.targets.some((t) => t.role === 'reference');
      if (!input.resume && claim.ratePerSecond && hasReference && patched(PAIRED_ANCHOR_PATCH)) {
        scheduleAnchorMs = Date.now() + PAIRED_ANCHOR_LEAD_MS;
        // A duration-bound campaign lasts its duration from the first scheduled call.
        if (claim.durationMs !== null) campaignEndsAtMs = scheduleAnchorMs + claim.durationMs;
      }
      const regions = claim.vantagePoints && patched(VANTAGE_POINTS_PATCH) ? claim.vantagePoints : null;
      const startTimeoutMs = claim.vantageStartTimeoutMs ?? VANTAGE_START_TIMEOUT_MS;
      const pending = claim.targets.filter((t) => (nextSeq[t.targetId] ?? 0) !== Number.MAX_SAFE_INTEGER);
      // A capacity sweep steps every target through its rates instead (workflows/sweep.ts).
      const sweeping = claim.sweepSteps !== undefined && pending.length > 0 && patched(SWEEP_PATCH);
      const running = sweeping
        ? [runSweep({ runId, retry: claim.retry, targetIds: pending.map((t) => t.targetId), steps: claim.sweepSteps! })]
        : regions
          ? claim.targets.flatMap((t) =>
              regions
                .filter((region) => (nextSeq[vantageKey(t.targetId, region)] ?? 0) !== Number.MAX_SAFE_INTEGER)
                .map((region) => probeFromRegion(claim.retry, t.targetId, region, startTimeoutMs)),
            )
          : pending.map((t) => probeTarget(claim.retry, t.targetId));
      // Checks' steps beside the probes, started once per run (never again after continue-as-new).
      if (!input.resume) running.push(...Object.values(CHECK_STEPS).flatMap((step) => step.besideProbes?.({ runId, claim }) ?? []));
      try {
        await Promise.all(running);
      } catch (error) {
        // One target failed for good: stop the others rather than let them probe for nothing.
        CancellationScope.current().cancel();
        await Promise.allSettled(running);
        throw error;
      }
    });
  } catch (error) {
    // A cancel request surfaces as a cancellation; a target that failed for good is rethrown as
    // itself. Once the run was asked to stop, though, any failure is the cancel's: a probe whose
    // worker died while the cancel was being delivered ends in a heartbeat timeout (Temporal does
    // not retry an activity whose cancel was requested), and the user's cancel is still a cancel.
    const cancelRequested = CancellationScope.current().consideredCancelled;
    outcome =
      isCancellation(error) || cancelRequested
        ? { status: 'cancelled', failureReason: 'cancelled by request' }
        : { status: 'failed', failureReason: failureReason(error) };
  }
  if (outcome.status === 'success' && rollover) {
    // Every target stopped at a chunk boundary; the next execution resumes them from nextSeq.
    const resume = { nextSeq, campaignEndsAtMs, ...(scheduleAnchorMs === null ? {} : { scheduleAnchorMs }) };
    return continueAsNew<typeof runWorkflow>({ runId, resume, maxHistoryEvents });
  }
  const result =
    outcome.status !== 'cancelled' && !CancellationScope.current().consideredCancelled && patched(CANCELLABLE_END_PATCH)
      ? await endCancellably(runId, outcome, claimed)
      : await endShielded(runId, outcome, claimed);
  setStatus(result);
  // Webhooks of the finished run (their own workflows deliver them); a cancelled run notifies too.
  if (patched(WEBHOOKS_PATCH)) await CancellationScope.nonCancellable(() => bookkeeping.enqueueWebhooks({ runId }));
  return result;
}

/**
 * Judges and ends a run that was not cancelled while probing; a cancel meanwhile stops the step
 * under way (each waits until its activity has stopped) and ends the run as cancelled instead.
 */
async function endCancellably(runId: string, outcome: { status: FinalizeRunResult['status']; failureReason: string | null }, claim: ClaimRunResult | null): Promise<FinalizeRunResult> {
  try {
    return await CancellationScope.cancellable(async () => {
      if (outcome.status === 'success') await beforeFinalize(ending, runId, claim);
      return ending.finalizeRun({ runId, ...outcome, ...(outcome.status === 'success' ? { stepsDone: true } : {}) });
    });
  } catch (error) {
    if (!isCancellation(error) && !CancellationScope.current().consideredCancelled) throw error;
    return CancellationScope.nonCancellable(() => finalizing.finalizeRun({ runId, status: 'cancelled', failureReason: 'cancelled by request' }));
  }
}

/** Ends the run whatever happens to the workflow (executions before CANCELLABLE_END_PATCH, and cancelled runs). */
async function endShielded(runId: string, outcome: { status: FinalizeRunResult['status']; failureReason: string | null }, claim: ClaimRunResult | null): Promise<FinalizeRunResult> {
  // Finalizing must happen even when the workflow itself is being cancelled — and so must the
  // checks' steps of a successful run that talk to the endpoints before it, each an activity of
  // its own (finalize then only works on the database). Histories recorded before them take the
  // old path (finalize runs them).
  let stepsDone = false;
  if (outcome.status === 'success' && patched(RUN_STEPS_PATCH)) {
    await CancellationScope.nonCancellable(() => beforeFinalize(finalizing, runId, claim));
    stepsDone = true;
  }
  return CancellationScope.nonCancellable(() => finalizing.finalizeRun({ runId, ...outcome, ...(stepsDone ? { stepsDone } : {}) }));
}

/** Every check's steps before finalize (CHECK_STEPS), one after the other. */
async function beforeFinalize(activities: Pick<Activities, 'recheckHeadMoved' | 'explainMismatches' | 'verifyIntegrity'>, runId: string, claim: ClaimRunResult | null): Promise<void> {
  for (const step of Object.values(CHECK_STEPS)) await step.beforeFinalize?.(activities, runId, claim);
}
