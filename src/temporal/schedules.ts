import {
  ScheduleAlreadyRunning,
  ScheduleNotFoundError,
  ScheduleOverlapPolicy,
  type Client,
  type ScheduleOptions,
  type ScheduleSpec,
} from '@temporalio/client';
import type { ScheduleRow } from '../db/schedules';
import { scheduledTriggerWorkflow } from '../../workflows/scheduled-trigger';
import { SEARCH_ATTRIBUTE_KEYS, scheduleIdForSuite } from './constants';

/** What the Temporal Schedule of a suite is built from: its stored schedule and a few suite facts. */
export interface SuiteScheduleTarget {
  suiteId: string;
  suiteName: string;
  tenantId: string;
  taskQueue: string;
  schedule: Pick<ScheduleRow, 'cron' | 'timezone' | 'interval_s' | 'paused'>;
}

function specOf(schedule: SuiteScheduleTarget['schedule']): ScheduleSpec {
  if (schedule.interval_s !== null) return { intervals: [{ every: `${schedule.interval_s}s` }] };
  return { cronExpressions: [schedule.cron!], timezone: schedule.timezone ?? 'UTC' };
}

/** Shown in the Temporal UI next to the schedule: which suite it runs. */
const noteOf = (target: SuiteScheduleTarget) =>
  `suite "${target.suiteName}" (${target.suiteId})${target.schedule.paused ? ', paused' : ''}`;

function actionOf(target: SuiteScheduleTarget): ScheduleOptions['action'] {
  return {
    type: 'startWorkflow',
    workflowType: scheduledTriggerWorkflow,
    // Temporal appends the fire time to it, so every fire has an id of its own.
    workflowId: `${scheduleIdForSuite(target.suiteId)}-fire`,
    taskQueue: target.taskQueue,
    args: [{ suiteId: target.suiteId }],
    memo: { suite_name: target.suiteName },
    typedSearchAttributes: [
      { key: SEARCH_ATTRIBUTE_KEYS.tenantId, value: target.tenantId },
      { key: SEARCH_ATTRIBUTE_KEYS.suiteId, value: target.suiteId },
    ],
  };
}

const POLICIES = {
  // A fire while the previous one still runs is skipped (the fire's activity also skips while the
  // previous scheduled *run* is unfinished, see services/schedules.ts).
  overlap: ScheduleOverlapPolicy.SKIP,
  // After an outage, at most the fires of the last minute are made up, not a burst of all of them.
  catchupWindow: '1 minute',
} as const;

/**
 * Makes the suite's Temporal Schedule (id `suite-<suiteId>`) match its stored schedule: created
 * if absent, else updated in place (spec, action, note and paused state).
 */
export async function upsertSuiteSchedule(client: Client, target: SuiteScheduleTarget): Promise<void> {
  const scheduleId = scheduleIdForSuite(target.suiteId);
  try {
    await client.schedule.create({
      scheduleId,
      spec: specOf(target.schedule),
      action: actionOf(target),
      policies: POLICIES,
      state: { paused: target.schedule.paused, note: noteOf(target) },
      memo: { suite_name: target.suiteName },
      typedSearchAttributes: [
        { key: SEARCH_ATTRIBUTE_KEYS.tenantId, value: target.tenantId },
        { key: SEARCH_ATTRIBUTE_KEYS.suiteId, value: target.suiteId },
      ],
    });
    return;
  } catch (error) {
    if (!(error instanceof ScheduleAlreadyRunning)) throw error;
  }
  await client.schedule.getHandle(scheduleId).update((previous) => ({
    ...previous,
    spec: specOf(target.schedule),
    action: actionOf(target),
    policies: { ...previous.policies, ...POLICIES },
    state: { ...previous.state, paused: target.schedule.paused, note: noteOf(target) },
  }));
}

/** Deletes the suite's Temporal Schedule; one that is already gone is fine. */
export async function deleteSuiteSchedule(client: Client, suiteId: string): Promise<void> {
  try {
    await client.schedule.getHandle(scheduleIdForSuite(suiteId)).delete();
  } catch (error) {
    if (!(error instanceof ScheduleNotFoundError)) throw error;
  }
}

/** Fires the schedule's action now (it then goes through the same trigger path as every fire). */
export async function triggerSuiteSchedule(client: Client, suiteId: string): Promise<void> {
  await client.schedule.getHandle(scheduleIdForSuite(suiteId)).trigger(ScheduleOverlapPolicy.ALLOW_ALL);
}

/** The next `count` fire times Temporal has computed, or null when the schedule is not there. */
export async function nextFireTimes(client: Client, suiteId: string, count = 3): Promise<Date[] | null> {
  try {
    const description = await client.schedule.getHandle(scheduleIdForSuite(suiteId)).describe();
    return description.info.nextActionTimes.slice(0, count);
  } catch (error) {
    if (error instanceof ScheduleNotFoundError) return null;
    throw error;
  }
}
