import { describe, expect, it } from 'vitest';
import { successRate } from '../../../src/domain/statistics/availability';
import { computeVerdict } from '../../../src/domain/verdict';
import { check, input, noSuccess, reference, stats, THRESHOLDS } from './fixtures';

describe('computeVerdict: availability', () => {
  it.each([
    { name: '100 of 100 calls: cannot show 99 %', calls: 100, failed: 0, status: 'inconclusive', reason: 'straddles_minimum', toDecide: 381 },
    { name: '2,000 of 2,000 calls', calls: 2000, failed: 0, status: 'pass', reason: 'at_or_above_minimum', toDecide: null },
    { name: '1,985 of 2,000 calls (99.25 %)', calls: 2000, failed: 15, status: 'inconclusive', reason: 'straddles_minimum', toDecide: expect.any(Number) },
    { name: '1,900 of 2,000 calls (95 %)', calls: 2000, failed: 100, status: 'fail', reason: 'below_minimum', toDecide: null },
    { name: '30 % of 20,000 calls (endpoint down most of the run)', calls: 20000, failed: 14000, status: 'fail', reason: 'below_minimum', toDecide: null },
    { name: 'every one of 6 calls failed', calls: 6, failed: 6, status: 'fail', reason: 'below_minimum', toDecide: null },
    { name: 'no call made', calls: 0, failed: 0, status: 'inconclusive', reason: 'no_calls', toDecide: null },
  ])('$name → $status', ({ calls, failed, status, reason, toDecide }) => {
    const candidate = failed === calls ? noSuccess(calls) : stats({ p95: 100, calls, failed });
    const result = computeVerdict(input({ candidate, candidateAnsweredShare: 0.5 }));
    const availability = check(result, 'availability');
    expect(availability).toMatchObject({
      status,
      details: { calls, successful: calls - failed, min_pct: 99, reason, calls_to_decide: toDecide, answered_bucket_share: 0.5, reference: null },
    });
    if (status === 'fail') expect(result.verdict).toBe('fail');
  });

  it('a run whose calls mostly failed never passes, however fast its successful calls were', () => {
    const result = computeVerdict(input({ candidate: stats({ p95: 10, calls: 20000, failed: 13902 }) }));
    expect(check(result, 'latency_p95').status).toBe('pass');
    expect(result.verdict).toBe('fail');
    expect(result.summary).toContain('availability');
  });

  it('uses thresholds.success_rate_min_pct and reports the reference beside the candidate', () => {
    const result = computeVerdict(
      input({
        thresholds: { ...THRESHOLDS, success_rate_min_pct: 90 },
        candidate: stats({ p95: 100, calls: 2000, failed: 100 }),
        reference: { ...reference(stats({ p95: 100, calls: 2000, failed: 4 })), answeredShare: 1 },
      }),
    );
    const availability = check(result, 'availability');
    expect(availability).toMatchObject({ status: 'pass', details: { min_pct: 90, success_rate_pct: 95 } });
    expect(availability.details.reference).toMatchObject({ calls: 2000, successful: 1996, success_rate_pct: 99.8, answered_bucket_share: 1 });
  });

  it('the interval shown (details and message) covers the Wilson interval judged: bounds rounded outwards', () => {
    for (const [calls, failed] of [[2000, 15], [2000, 100], [100, 0], [20000, 14000], [2000, 7], [345, 3]] as const) {
      const raw = successRate(calls - failed, calls);
      const availability = check(computeVerdict(input({ candidate: stats({ p95: 100, calls, failed }) })), 'availability');
      const shown = availability.details.success_rate_interval_pct;
      expect(shown.lower, `${calls - failed} of ${calls}`).toBeLessThanOrEqual(raw.lower_pct);
      expect(shown.upper, `${calls - failed} of ${calls}`).toBeGreaterThanOrEqual(raw.upper_pct);
      expect(Math.floor(raw.lower_pct * 100) / 100).toBe(shown.lower);
      expect(availability.message).toContain(`95% interval ${shown.lower}–${shown.upper}%`);
    }
  });
});
