import { ApplicationFailure } from '@temporalio/activity';
import { expireRunSamples } from '../src/db/sample-retention';
import type { ActivityDeps } from './deps';
import { heartbeating } from './heartbeating';

/** Runs whose samples one fire deletes at most; a backlog is worked off over several fires. */
export const EXPIRY_RUN_LIMIT = 500;
/** Samples per DELETE statement: short statements and few locks on a large run_samples. */
export const EXPIRY_BATCH_SIZE = 10_000;

/** The activity of a sample-expiry fire: expireRunSamples with the platform's default retention. */
export async function expireSamples(deps: ActivityDeps): Promise<{ runs: number; samples: number }> {
  const { config } = deps;
  if (!config) throw ApplicationFailure.nonRetryable('this worker was started without its configuration', 'Misconfigured');
  return heartbeating(() =>
    expireRunSamples(deps.sql, { now: new Date(), defaultDays: config.sampleRetentionDays, runLimit: EXPIRY_RUN_LIMIT, batchSize: EXPIRY_BATCH_SIZE }),
  );
}
