import { ScheduleAlreadyRunning, ScheduleOverlapPolicy, type Client } from '@temporalio/client';
import { sampleExpiryWorkflow } from '../../workflows/sample-expiry';
import { SAMPLE_EXPIRY_SCHEDULE_ID } from './constants';

/**
 * Creates the service's own Temporal Schedule that expires raw samples (hourly), unless it exists:
 * every worker calls this at start, the first creates it. Overlapping fires are skipped.
 */
export async function ensureSampleExpirySchedule(client: Client, taskQueue: string): Promise<void> {
  try {
    await client.schedule.create({
      scheduleId: SAMPLE_EXPIRY_SCHEDULE_ID,
      spec: { intervals: [{ every: '1 hour' }] },
      action: { type: 'startWorkflow', workflowType: sampleExpiryWorkflow, workflowId: `${SAMPLE_EXPIRY_SCHEDULE_ID}-fire`, taskQueue, args: [] },
      policies: { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: '1 hour' },
      state: { note: 'deletes the raw samples of finished runs past their retention (RVS_SAMPLE_RETENTION_DAYS)' },
    });
  } catch (error) {
    if (!(error instanceof ScheduleAlreadyRunning)) throw error;
  }
}
