import {
  ActivityFailure,
  ApplicationFailure,
  CancellationScope,
  isCancellation,
  proxyActivities,
  upsertSearchAttributes,
} from '@temporalio/workflow';
import type { Activities } from '../activities';
import { SEARCH_ATTRIBUTE_KEYS } from '../src/temporal/constants';
import type { FinalizeRunResult, RetrySummary } from '../activities/types';

export interface RunWorkflowInput {
  runId: string;
}

// Bookkeeping activities are short database work: retried generously on infrastructure errors.
const bookkeeping = proxyActivities<Activities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '30 seconds', maximumAttempts: 20 },
});

function probeActivities(retry: RetrySummary) {
  // The probe retry policy is the suite's, so this proxy is built per run rather than per module.
  return proxyActivities<Activities>({
    startToCloseTimeout: '6 hours',
    heartbeatTimeout: '15 seconds',
    cancellationType: 'WAIT_CANCELLATION_COMPLETED',
    retry: {
      maximumAttempts: retry.maxAttempts,
      initialInterval: retry.initialIntervalMs,
      backoffCoefficient: retry.backoffCoefficient,
      maximumInterval: retry.maxIntervalMs,
      nonRetryableErrorTypes: ['OutboundAddressRefused', 'NotFound'],
    },
  });
}

/** A failure_reason a person understands, and free of secrets (activities never put URLs in errors). */
function failureReason(error: unknown): string {
  let cause: unknown = error;
  while (cause instanceof ActivityFailure && cause.cause) cause = cause.cause;
  const message = cause instanceof ApplicationFailure || cause instanceof Error ? cause.message : String(cause);
  return `a probe exhausted its retries: ${message}`.slice(0, 1000);
}

function setStatus(result: { status: string; verdict?: string }): void {
  upsertSearchAttributes([
    { key: SEARCH_ATTRIBUTE_KEYS.status, value: result.status },
    ...(result.verdict ? [{ key: SEARCH_ATTRIBUTE_KEYS.verdict, value: result.verdict }] : []),
  ]);
}

/**
 * One workflow per run (id run-<runId>): claim → probe every target concurrently → finalize.
 * Only ids and small summaries cross this boundary; samples and secrets stay in Postgres.
 */
export async function runWorkflow(input: RunWorkflowInput): Promise<FinalizeRunResult> {
  const { runId } = input;
  const claim = await bookkeeping.claimRun({ runId });
  if (claim.outcome === 'terminal') {
    const result = await bookkeeping.finalizeRun({ runId, status: 'failed', failureReason: 'run was already finished' });
    setStatus(result);
    return result;
  }
  setStatus({ status: 'running' });
  const probes = probeActivities(claim.retry);

  let outcome: { status: FinalizeRunResult['status']; failureReason: string | null } = {
    status: 'success',
    failureReason: null,
  };
  try {
    await CancellationScope.cancellable(async () => {
      const running = claim.targets.map((t) => probes.probeTarget({ runId, targetId: t.targetId, retry: claim.retry }));
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
    // A cancel request surfaces as a cancellation; a target that failed for good is rethrown as itself.
    outcome = isCancellation(error)
      ? { status: 'cancelled', failureReason: 'cancelled by request' }
      : { status: 'failed', failureReason: failureReason(error) };
  }
  // Finalizing must happen even when the workflow itself is being cancelled.
  const result = await CancellationScope.nonCancellable(() => bookkeeping.finalizeRun({ runId, ...outcome }));
  setStatus(result);
  return result;
}
