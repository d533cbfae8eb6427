import type { Context } from '@temporalio/activity';
import type { ActivityInterceptorsFactory } from '@temporalio/worker';
import { activityAttempts, activityFailures, runsFinished, type ActivityFailureOutcome } from './registry';

/** Why an attempt threw: only `failed` is the activity's own failure (registry.ts). */
export function failureOutcome(ctx: Pick<Context, 'cancellationSignal' | 'cancellationDetails'>): ActivityFailureOutcome {
  if (!ctx.cancellationSignal.aborted) return 'failed';
  const details = ctx.cancellationDetails;
  if (details?.workerShutdown) return 'worker_shutdown';
  if (details?.timedOut) return 'timed_out';
  return 'cancelled';
}

/**
 * A worker interceptor: every activity attempt is counted, and every one that throws is counted
 * by outcome (a user's cancel is not a failure). A finalized run's status and verdict are counted
 * from finalizeRun's result.
 */
export const activityMetricsInterceptor: ActivityInterceptorsFactory = (ctx) => ({
  inbound: {
    async execute(input, next) {
      const activity = ctx.info.activityType;
      activityAttempts.inc({ activity });
      try {
        const result = await next(input);
        if (activity === 'finalizeRun') {
          const { status, verdict } = result as { status: string; verdict: string };
          runsFinished.inc({ status, verdict });
        }
        return result;
      } catch (error) {
        activityFailures.inc({ activity, outcome: failureOutcome(ctx) });
        throw error;
      }
    },
  },
});
