import { ApplicationFailure } from '@temporalio/activity';
import { maintainSamplePartitions } from '../src/db/sample-partitions';
import { expireRunSamples } from '../src/db/sample-retention';
import type { ActivityDeps } from './deps';
import { heartbeating } from './heartbeating';

/** Runs whose samples one fire deletes at most; a backlog is worked off over several fires. */
export const EXPIRY_RUN_LIMIT = 500;
/** Samples per DELETE statement: short statements and few locks on a large run_samples. */
export const EXPIRY_BATCH_SIZE = 10_000;

/**
 * The activity of a sample-expiry fire, with the platform's default retention: the partitions'
 * maintenance (whole weeks of expired runs dropped, the coming weeks' tables created), then
 * expireRunSamples for the due runs whose rows are elsewhere.
 */
export async function expireSamples(deps: ActivityDeps): Promise<{ runs: number; samples: number; droppedPartitions: number }> {
  const { config } = deps;
  if (!config) throw ApplicationFailure.nonRetryable('this worker was started without its configuration', 'Misconfigured');
  return heartbeating(async () => {
    const now = new Date();
    const partitions = await maintainSamplePartitions(deps.sql, { now, expiry: { defaultDays: config.sampleRetentionDays } });
    const deleted = await expireRunSamples(deps.sql, { now, defaultDays: config.sampleRetentionDays, runLimit: EXPIRY_RUN_LIMIT, batchSize: EXPIRY_BATCH_SIZE });
    return { runs: deleted.runs + partitions.expiredRuns, samples: deleted.samples, droppedPartitions: partitions.dropped.length };
  });
}
