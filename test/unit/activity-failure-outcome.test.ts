import { ActivityCancellationDetails } from '@temporalio/common';
import { describe, expect, it } from 'vitest';
import { failureOutcome } from '../../src/metrics/activity-metrics';

/** An activity context as the interceptor sees it after the attempt threw. */
function contextAfter(details: ConstructorParameters<typeof ActivityCancellationDetails>[0] | null) {
  const controller = new AbortController();
  if (details) controller.abort(new Error('cancelled'));
  return { cancellationSignal: controller.signal, cancellationDetails: details ? new ActivityCancellationDetails(details) : undefined };
}

describe('failureOutcome: why an activity attempt threw', () => {
  it.each([
    { details: null, outcome: 'failed' },
    { details: { cancelRequested: true }, outcome: 'cancelled' },
    { details: { notFound: true }, outcome: 'cancelled' },
    { details: { workerShutdown: true }, outcome: 'worker_shutdown' },
    { details: { timedOut: true }, outcome: 'timed_out' },
  ] as const)('$details → $outcome', ({ details, outcome }) => {
    expect(failureOutcome(contextAfter(details))).toBe(outcome);
  });
});
