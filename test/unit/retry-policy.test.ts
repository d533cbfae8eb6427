import { describe, expect, it } from 'vitest';
import { endpointBudgetLeft, INFRASTRUCTURE_BACKOFF, retryDelayMs, type Backoff } from '../../src/domain/retry-policy';

const SUITE: Backoff = { initialIntervalMs: 200, backoffCoefficient: 3, maxIntervalMs: 5_000 };

describe('retryDelayMs', () => {
  it.each([
    { backoff: INFRASTRUCTURE_BACKOFF, failures: 1, delay: 1_000 },
    { backoff: INFRASTRUCTURE_BACKOFF, failures: 2, delay: 2_000 },
    { backoff: INFRASTRUCTURE_BACKOFF, failures: 6, delay: 32_000 },
    { backoff: INFRASTRUCTURE_BACKOFF, failures: 7, delay: 60_000 },
    { backoff: INFRASTRUCTURE_BACKOFF, failures: 500, delay: 60_000 },
    { backoff: SUITE, failures: 1, delay: 200 },
    { backoff: SUITE, failures: 3, delay: 1_800 },
    { backoff: SUITE, failures: 4, delay: 5_000 },
    { backoff: SUITE, failures: 0, delay: 200 },
  ])('after failure $failures: $delay ms', ({ backoff, failures, delay }) => {
    expect(retryDelayMs(backoff, failures)).toBe(delay);
  });
});

describe('endpointBudgetLeft', () => {
  it.each([
    { maxAttempts: 1, failures: 1, left: false },
    { maxAttempts: 2, failures: 1, left: true },
    { maxAttempts: 2, failures: 2, left: false },
    { maxAttempts: 3, failures: 2, left: true },
    { maxAttempts: 3, failures: 3, left: false },
  ])('max_attempts $maxAttempts, $failures endpoint failures: another attempt $left', ({ maxAttempts, failures, left }) => {
    expect(endpointBudgetLeft(maxAttempts, failures)).toBe(left);
  });
});
