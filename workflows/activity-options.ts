import type { ActivityOptions } from '@temporalio/workflow';
import { INFRASTRUCTURE_BACKOFF } from '../src/domain/retry-policy';

// Temporal retries every activity on the infrastructure policy: our own outages (database
// unreachable, a worker lost) are waited out without an attempt limit. The endpoint's budget —
// the suite's `retry` — is enforced by the probe activities themselves (withRetryRecording): they
// delay an endpoint failure by the suite's backoff and make it final once the budget is spent.
export const INFRASTRUCTURE_RETRY = {
  initialInterval: INFRASTRUCTURE_BACKOFF.initialIntervalMs,
  backoffCoefficient: INFRASTRUCTURE_BACKOFF.backoffCoefficient,
  maximumInterval: INFRASTRUCTURE_BACKOFF.maxIntervalMs,
  // No maximumAttempts: unlimited.
};

/** Short database work between the probes (marking, judging, finishing). */
export const BOOKKEEPING_OPTIONS: ActivityOptions = {
  startToCloseTimeout: '1 minute',
  retry: INFRASTRUCTURE_RETRY,
};

/** The probe activities of a run and of a sweep alike: a chunk heartbeats every second. */
export const PROBE_OPTIONS: ActivityOptions = {
  // A chunk probes for at most 30 s; the rest is warm-up, writing and slow answers.
  startToCloseTimeout: '5 minutes',
  heartbeatTimeout: '15 seconds',
  cancellationType: 'WAIT_CANCELLATION_COMPLETED',
  retry: { ...INFRASTRUCTURE_RETRY, nonRetryableErrorTypes: ['OutboundAddressRefused', 'NotFound'] },
};
