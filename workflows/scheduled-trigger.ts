import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities/types';

export interface ScheduledTriggerInput {
  suiteId: string;
}

/** What one fire of a suite's schedule did (the fire's result in the Temporal UI). */
export type ScheduledTriggerResult =
  | { outcome: 'started'; runId: string }
  | { outcome: 'skipped'; reason: string };

const triggering = proxyActivities<Activities>({
  // The activity heartbeats every second: a worker that died mid-fire is noticed within 5 s and
  // the fire retried (its run is found, not started again), instead of a minute later with the
  // schedule's next fires skipped as overlapping meanwhile.
  heartbeatTimeout: '5 seconds',
  startToCloseTimeout: '30 seconds',
  // A fire that cannot trigger within a few minutes is given up: the next fire is the retry, and
  // a run started half an hour late would only overlap it.
  scheduleToCloseTimeout: '5 minutes',
  retry: { initialInterval: '2 seconds', backoffCoefficient: 2, maximumInterval: '1 minute' },
});

/**
 * One fire of a suite's Temporal Schedule (`suite-<suiteId>`). Its activity triggers the run
 * through the same service verb as POST /v1/suites/:id/runs (triggered_by "schedule"), so the
 * tenant's trigger quota and the run workflow are the API's.
 */
export async function scheduledTriggerWorkflow(input: ScheduledTriggerInput): Promise<ScheduledTriggerResult> {
  return triggering.triggerScheduledRun({ suiteId: input.suiteId });
}
