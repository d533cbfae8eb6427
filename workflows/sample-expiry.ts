import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities/types';

const expiring = proxyActivities<Activities>({
  // The activity heartbeats between runs; it deletes at most EXPIRY_RUN_LIMIT runs' samples.
  heartbeatTimeout: '30 seconds',
  startToCloseTimeout: '30 minutes',
  retry: { initialInterval: '10 seconds', backoffCoefficient: 2, maximumInterval: '5 minutes', maximumAttempts: 5 },
});

/**
 * One fire of the service's own sample-expiry Temporal Schedule (`rvs-sample-expiry`, DESIGN
 * §18): drops the weekly sample partitions whose runs are all past retention and deletes the
 * raw samples of the other finished runs past it. What one fire leaves over
 * the next one takes.
 */
export async function sampleExpiryWorkflow(): Promise<{ runs: number; samples: number; droppedPartitions: number }> {
  return expiring.expireSamples({});
}
