/**
 * Two retry policies (DESIGN.md §6, docs/operations.md "Retries"): the suite's `retry` is the
 * probed endpoint's budget; failures of our own infrastructure (our database unreachable, a worker
 * lost) retry on INFRASTRUCTURE_BACKOFF without an attempt limit and never spend that budget.
 */

export interface Backoff {
  initialIntervalMs: number;
  backoffCoefficient: number;
  maxIntervalMs: number;
}

/** How a failed attempt is retried. */
export type FailureClass = 'infrastructure' | 'endpoint' | 'final';

/**
 * Exponential up to a minute, unlimited attempts: an outage of our own is waited out, however
 * long it lasts, and the run resumes at most a minute after it ends (or is cancelled).
 */
export const INFRASTRUCTURE_BACKOFF: Backoff = { initialIntervalMs: 1_000, backoffCoefficient: 2, maxIntervalMs: 60_000 };

/** error_type of an infrastructure failure in retry_history. */
export const INFRASTRUCTURE_ERROR_TYPE = 'infrastructure';

/**
 * Delay after the `failures`-th failure (1-based), the way Temporal computes it:
 * initial × coefficient^(failures − 1), capped at the maximum.
 */
export function retryDelayMs(backoff: Backoff, failures: number): number {
  const delay = backoff.initialIntervalMs * backoff.backoffCoefficient ** Math.max(0, failures - 1);
  return Math.min(delay, backoff.maxIntervalMs);
}

/**
 * Whether an endpoint failure — the `endpointFailures`-th of this chunk (1-based) — leaves
 * another attempt in the suite's budget of `maxAttempts`.
 */
export function endpointBudgetLeft(maxAttempts: number, endpointFailures: number): boolean {
  return endpointFailures < maxAttempts;
}

/**
 * Attempts of one activity (a probe chunk, a run-ending step) whose worker died without a word
 * (`attempt_lost`) before the activity gives up: an answer that kills the worker kills it on
 * every attempt, and a worker restarted by a deploy is rarely lost three times in one chunk.
 */
export const LOST_ATTEMPTS_BUDGET = 3;

/**
 * Detail key of the failure an activity throws when the suite's retry budget ran out (its value:
 * the endpoint failures spent): the run's failure_reason says "exhausted its retries" only then.
 */
export const RETRIES_EXHAUSTED = 'retriesExhausted';
