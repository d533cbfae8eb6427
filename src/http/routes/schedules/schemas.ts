import { z } from 'zod';
import { component, int, timestamp } from '../shared/schemas';

/** A suite's `schedule` as the suite resource shows it (services/schedules.ts presentSchedule). */
export const SuiteSchedule = component(
  'SuiteSchedule',
  z
    .object({
      cron: z.string().optional().describe('a five-field cron expression, with `timezone`'),
      timezone: z.string().optional().describe('IANA time zone of `cron`'),
      interval_s: int.optional().describe('seconds between fires, instead of `cron`'),
      paused: z.boolean(),
      next_fire_times: z
        .array(timestamp)
        .nullable()
        .describe('the next three fire times Temporal computed (empty while paused; null when Temporal could not be asked)'),
    })
    .describe('A Temporal Schedule (id suite-<suiteId>) that triggers the suite with triggered_by "schedule"; overlapping fires are skipped.'),
);

export const ScheduleTriggered = component('ScheduleTriggered', z.object({ triggered: z.literal(true) }));
