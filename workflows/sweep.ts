import { proxyActivities } from '@temporalio/workflow';
import type { Activities, RetrySummary } from '../activities/types';
import { INFRASTRUCTURE_BACKOFF } from '../src/domain/retry-policy';

/** Marks executions that run a capacity sweep (workload.sweep) instead of the one-rate probes. */
export const SWEEP_PATCH = 'capacity-sweep';

/**
 * How far ahead of the decision a step's first call is due: time for every target's activity to
 * start (and, on the first step, open its pool). The step's warm-up absorbs what is left.
 */
export const SWEEP_STEP_LEAD_MS = 1_000;

const INFRASTRUCTURE_RETRY = {
  initialInterval: INFRASTRUCTURE_BACKOFF.initialIntervalMs,
  backoffCoefficient: INFRASTRUCTURE_BACKOFF.backoffCoefficient,
  maximumInterval: INFRASTRUCTURE_BACKOFF.maxIntervalMs,
};

// As the run workflow's probes: a chunk probes for at most 30 s and heartbeats every second.
const sweepProbes = proxyActivities<Activities>({
  startToCloseTimeout: '5 minutes',
  heartbeatTimeout: '15 seconds',
  cancellationType: 'WAIT_CANCELLATION_COMPLETED',
  retry: { ...INFRASTRUCTURE_RETRY, nonRetryableErrorTypes: ['OutboundAddressRefused', 'NotFound'] },
});

const sweepBookkeeping = proxyActivities<Activities>({
  startToCloseTimeout: '1 minute',
  retry: INFRASTRUCTURE_RETRY,
});

/**
 * A capacity sweep (DESIGN §14): step by step, every target (candidates and the reference alike)
 * probes the step's seqs at its rate on one anchor chosen here, chunk by chunk; then the step is
 * judged, and the sweep stops once every candidate broke the budget by a clear margin. Only
 * seqs and a stop flag cross this boundary. Samples carry their step; a lost worker's chunk is
 * retried from its last committed seq.
 */
export async function runSweep(input: {
  runId: string;
  retry: RetrySummary;
  targetIds: readonly string[];
  /** The first seq of each step. */
  steps: readonly number[];
}): Promise<void> {
  const { runId, retry } = input;
  for (let step = 0; step < input.steps.length; step++) {
    const anchorMs = Date.now() + SWEEP_STEP_LEAD_MS;
    await Promise.all(
      input.targetIds.map(async (targetId) => {
        let fromSeq = input.steps[step]!;
        for (;;) {
          const chunk = await sweepProbes.probeSweepStep({ runId, targetId, retry, step, fromSeq, anchorMs });
          if (chunk.done) return;
          fromSeq = chunk.nextSeq;
        }
      }),
    );
    const judged = await sweepBookkeeping.judgeSweepStep({ runId, step });
    if (judged.stop) return;
  }
}
