import type { ActivityInterceptorsFactory } from '@temporalio/worker';
import { activityAttempts, activityFailures, runsFinished } from './registry';

/**
 * A worker interceptor: every activity attempt is counted, and every one that throws (a retry is
 * coming, or it failed for good, or it was cancelled) is counted as a failure. A finalized run's
 * status and verdict are counted from finalizeRun's result.
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
        activityFailures.inc({ activity });
        throw error;
      }
    },
  },
});
