import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities/types';
import { INFRASTRUCTURE_BACKOFF } from '../src/domain/retry-policy';

export interface WebhookDeliveryInput {
  deliveryId: string;
  /** First retry delay; later ones double up to an hour. */
  initialIntervalMs: number;
}

const bookkeeping = proxyActivities<Activities>({
  startToCloseTimeout: '1 minute',
  retry: {
    initialInterval: INFRASTRUCTURE_BACKOFF.initialIntervalMs,
    backoffCoefficient: INFRASTRUCTURE_BACKOFF.backoffCoefficient,
    maximumInterval: INFRASTRUCTURE_BACKOFF.maxIntervalMs,
  },
});

/**
 * One delivery of one webhook event (id webhook-<deliveryId>, started after the run's finalize).
 * Temporal retries the attempt with exponential backoff for up to 24 hours, so a worker restart
 * or a receiver outage loses nothing; then, or when the target is refused, the delivery is
 * marked failed. Only the delivery id crosses this boundary: URL, secret and body stay in Postgres.
 */
export async function webhookDeliveryWorkflow(input: WebhookDeliveryInput): Promise<{ outcome: 'delivered' | 'gone' | 'failed' }> {
  const sending = proxyActivities<Activities>({
    // An attempt waits 15 s for the receiver at most (DELIVERY_DEADLINE_MS); the rest is our database.
    startToCloseTimeout: '1 minute',
    // The attempt heartbeats every second: one whose worker died is retried after this, not after a minute.
    heartbeatTimeout: '5 seconds',
    scheduleToCloseTimeout: '24 hours',
    retry: {
      initialInterval: input.initialIntervalMs,
      backoffCoefficient: 2,
      maximumInterval: '1 hour',
      nonRetryableErrorTypes: ['OutboundAddressRefused'],
    },
  });
  try {
    return await sending.deliverWebhook({ deliveryId: input.deliveryId });
  } catch {
    await bookkeeping.markWebhookDeliveryFailed({ deliveryId: input.deliveryId });
    return { outcome: 'failed' };
  }
}
