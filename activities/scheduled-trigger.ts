import { ApplicationFailure } from '@temporalio/activity';
import { AppError } from '../src/errors';
import { fireSchedule, type ScheduledTriggerOutcome } from '../src/services/schedules';
import type { ActivityDeps } from './deps';

/**
 * The activity of one schedule fire: triggers the suite's run through the API's trigger verb
 * (services/schedules.ts fireSchedule). Our infrastructure failing (database, Temporal) is
 * retried; a refusal of the verb itself (the suite's config no longer valid, …) is final.
 */
export async function triggerScheduledRun(deps: ActivityDeps, input: { suiteId: string }): Promise<ScheduledTriggerOutcome> {
  const { config, temporal } = deps;
  if (!config || !temporal) {
    throw ApplicationFailure.nonRetryable('this worker was started without a Temporal client for scheduled triggers', 'Misconfigured');
  }
  try {
    return await fireSchedule({ config, temporal, sql: deps.sql, box: deps.box, jwt: null }, input);
  } catch (error) {
    if (error instanceof AppError && error.code !== 'service_unavailable') {
      throw ApplicationFailure.nonRetryable(error.message, error.code);
    }
    throw error;
  }
}
