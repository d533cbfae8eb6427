import { ApplicationFailure, Context } from '@temporalio/activity';
import { AppError } from '../src/errors';
import { fireSchedule, type ScheduledTriggerOutcome } from '../src/services/schedules';
import type { ActivityDeps } from './deps';
import { heartbeating } from './heartbeating';

/**
 * The activity of one schedule fire: triggers the suite's run through the API's trigger verb
 * (services/schedules.ts fireSchedule). The fire is named by its workflow's id (Temporal gives
 * every fire its own, carrying the fire time), so a retried attempt finds the run an earlier one
 * started. It heartbeats: a worker lost mid-fire is noticed within seconds, not at the
 * start-to-close timeout. Our infrastructure failing (database, Temporal) is retried; a refusal of
 * the verb itself (the suite's config no longer valid, …) is final.
 */
export async function triggerScheduledRun(deps: ActivityDeps, input: { suiteId: string }): Promise<ScheduledTriggerOutcome> {
  const { config, temporal } = deps;
  if (!config || !temporal) {
    throw ApplicationFailure.nonRetryable('this worker was started without a Temporal client for scheduled triggers', 'Misconfigured');
  }
  const fireId = Context.current().info.workflowExecution?.workflowId;
  if (!fireId) throw ApplicationFailure.nonRetryable('a scheduled trigger runs only inside its fire workflow', 'Misconfigured');
  try {
    return await heartbeating(() => fireSchedule({ config, temporal, sql: deps.sql, box: deps.box, jwt: null }, { suiteId: input.suiteId, fireId }));
  } catch (error) {
    if (error instanceof AppError && error.code !== 'service_unavailable') {
      throw ApplicationFailure.nonRetryable(error.message, error.code);
    }
    throw error;
  }
}
