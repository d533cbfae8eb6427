import { ScheduleAlreadyRunning, ScheduleOverlapPolicy, type Client } from '@temporalio/client';
import { sampleExpiryWorkflow } from '../../workflows/sample-expiry';
import { SAMPLE_EXPIRY_SCHEDULE_ID } from './constants';

const POLICIES = { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: '1 hour' } as const;
const NOTE = 'deletes the raw samples of finished runs past their retention (RVS_SAMPLE_RETENTION_DAYS)';

const actionOf = (taskQueue: string) =>
  ({ type: 'startWorkflow', workflowType: sampleExpiryWorkflow, workflowId: `${SAMPLE_EXPIRY_SCHEDULE_ID}-fire`, taskQueue, args: [] }) as const;

/**
 * The service's own Temporal Schedule that expires raw samples (hourly): every worker calls this
 * at start; the first creates it, the others bring its action to their task queue. One schedule id
 * per namespace, so a schedule left by a deployment on another task queue (a renamed
 * RVS_TEMPORAL_TASK_QUEUE, or an earlier test's worker) would otherwise start its fires where no
 * worker polls, and samples would never expire. Overlapping fires are skipped.
 */
export async function ensureSampleExpirySchedule(client: Client, taskQueue: string): Promise<void> {
  try {
    await client.schedule.create({
      scheduleId: SAMPLE_EXPIRY_SCHEDULE_ID,
      spec: { intervals: [{ every: '1 hour' }] },
      action: actionOf(taskQueue),
      policies: POLICIES,
      state: { note: NOTE },
    });
    return;
  } catch (error) {
    if (!(error instanceof ScheduleAlreadyRunning)) throw error;
  }
  const handle = client.schedule.getHandle(SAMPLE_EXPIRY_SCHEDULE_ID);
  const current = await handle.describe();
  if (current.action.type === 'startWorkflow' && current.action.taskQueue === taskQueue) return;
  await handle.update((previous) => ({
    ...previous,
    action: actionOf(taskQueue),
    policies: { ...previous.policies, ...POLICIES },
    state: { ...previous.state, note: NOTE },
  }));
}
