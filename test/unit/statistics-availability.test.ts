import { describe, expect, it } from 'vitest';
import { answeredBucketShare, decideAvailability, successRate, type AvailabilityDecision } from '../../src/domain/statistics/availability';

describe('successRate (Wilson score, 95 %)', () => {
  it.each([
    // successful, calls, rate %, lower %, upper % — the roots of (p̂ − π)² = z²·π(1 − π)/n, solved apart
    [0, 0, NaN, 0, 100],
    [10, 10, 100, 72.2467, 100],
    [0, 10, 0, 0, 27.7533],
    [95, 100, 95, 88.825, 97.8456],
    [1990, 2000, 99.5, 99.082, 99.7282],
    [2000, 2000, 100, 99.8083, 100],
  ])('%s of %s → %s %% [%s, %s]', (successful, calls, rate, lower, upper) => {
    const r = successRate(successful, calls);
    if (Number.isNaN(rate)) expect(r.rate_pct).toBeNaN();
    else expect(r.rate_pct).toBeCloseTo(rate, 10);
    expect(r.lower_pct).toBeCloseTo(lower, 3);
    expect(r.upper_pct).toBeCloseTo(upper, 3);
  });
});

describe('decideAvailability (minimum 99 %)', () => {
  it.each<[string, number, number, AvailabilityDecision['status'], AvailabilityDecision['reason']]>([
    ['no calls', 0, 0, 'inconclusive', 'no_calls'],
    ['all failed', 0, 20_000, 'fail', 'below_minimum'],
    ['70 % connection errors (the issue 11 run)', 6098, 20_000, 'fail', 'below_minimum'],
    ['2,000 of 2,000', 2000, 2000, 'pass', 'at_or_above_minimum'],
    ['100 of 100: too few calls to show 99 %', 100, 100, 'inconclusive', 'straddles_minimum'],
    ['99.5 % of 2,000', 1990, 2000, 'pass', 'at_or_above_minimum'],
    ['99 % of 2,000: straddles', 1980, 2000, 'inconclusive', 'straddles_minimum'],
    ['98 % of 20,000', 19_600, 20_000, 'fail', 'below_minimum'],
    ['1 of 1', 1, 1, 'inconclusive', 'straddles_minimum'],
    ['0 of 1: even one failure out of one bounds the rate below 80 %', 0, 1, 'fail', 'below_minimum'],
    ['0 of 5', 0, 5, 'fail', 'below_minimum'],
  ])('%s → %s', (_name, successful, calls, status, reason) => {
    const decision = decideAvailability(successful, calls, 99);
    expect(decision.status).toBe(status);
    expect(decision.reason).toBe(reason);
  });

  it('lower bound exactly at the minimum passes', () => {
    const lower = successRate(1990, 2000).lower_pct;
    expect(decideAvailability(1990, 2000, lower).status).toBe('pass');
    expect(decideAvailability(1990, 2000, lower + 1e-9).status).toBe('inconclusive');
  });

  it('upper bound exactly at the minimum is inconclusive, just below fails', () => {
    const upper = successRate(1950, 2000).upper_pct;
    expect(decideAvailability(1950, 2000, upper).status).toBe('inconclusive');
    expect(decideAvailability(1950, 2000, upper + 1e-9).status).toBe('fail');
  });

  it.each([
    // all answered: z²·min/(100 − min) calls make the Wilson lower bound reach the minimum
    [100, 100, 99, Math.ceil((1.959963984540054 ** 2 * 99) / 1)],
    [50, 50, 95, Math.ceil((1.959963984540054 ** 2 * 95) / 5)],
  ])('%s of %s, minimum %s: about %s calls would decide', (successful, calls, min, expected) => {
    const decision = decideAvailability(successful, calls, min);
    expect(decision.status).toBe('inconclusive');
    expect(decision.calls_to_decide).toBe(expected);
    expect(decideAvailability(expected, expected, min).status).toBe('pass');
  });

  it('a straddling rate with failures estimates more calls than it had', () => {
    const decision = decideAvailability(1980, 2000, 98.5);
    expect(decision.status).toBe('inconclusive');
    expect(decision.calls_to_decide).toBeGreaterThan(2000);
  });
});

describe('answeredBucketShare', () => {
  const b = (calls: number, failed: number) => ({ calls, failed });
  it.each([
    ['no bucket', [], null],
    ['every second answered', [b(10, 0), b(10, 9), b(1, 0)], 1],
    ['down for half the seconds', [b(10, 0), b(200, 200), b(10, 0), b(300, 300)], 0.5],
    ['an empty second counts as not answered', [b(10, 0), b(0, 0)], 0.5],
    ['never answered', [b(5, 5), b(5, 5)], 0],
  ] as const)('%s → %s', (_name, buckets, share) => {
    expect(answeredBucketShare(buckets)).toBe(share);
  });
});
