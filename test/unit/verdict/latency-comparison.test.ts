import { describe, expect, it } from 'vitest';
import { unpairedRelativeDifference } from '../../../src/domain/statistics/relative-difference';
import { computeVerdict, type Thresholds } from '../../../src/domain/verdict';
import { failBound } from '../../../src/domain/verdict/latency-comparison';
import { check, input, reference, steady, THRESHOLDS } from './fixtures';

describe('computeVerdict: thresholds.latency_regression_min_ms is the floor of every latency check', () => {
  // 4,000 steady calls a side: intervals of about ±1 %, so the floor and the limit decide.
  it.each([
    { name: 'absent (suites stored before it): 5 ms', floor: undefined, cand: 8, base: 5, status: 'pass', reason: 'under_floor', floorMs: 5 },
    { name: '0 ms: a 60 % regression of 3 ms fails', floor: 0, cand: 8, base: 5, status: 'fail', reason: 'above_limit', floorMs: 0 },
    { name: '2 ms: a 3 ms regression is over it', floor: 2, cand: 8, base: 5, status: 'fail', reason: 'above_limit', floorMs: 2 },
    { name: 'exactly the difference (3 ms): not over it', floor: 3, cand: 8, base: 5, status: 'pass', reason: 'under_floor', floorMs: 3 },
    { name: '100 ms: a 60 ms regression is under it', floor: 100, cand: 160, base: 100, status: 'pass', reason: 'under_floor', floorMs: 100 },
    { name: '10,000 ms (the maximum)', floor: 10_000, cand: 300, base: 100, status: 'pass', reason: 'under_floor', floorMs: 10_000 },
  ])('$name → $status', ({ floor, cand, base, status, reason, floorMs }) => {
    const thresholds: Thresholds = { ...THRESHOLDS, latency_regression_max_pct: 20, latency_vs_reference_max_pct: 20 };
    if (floor !== undefined) thresholds.latency_regression_min_ms = floor;
    const c = steady(cand);
    const b = steady(base);
    const vsReference = check(
      computeVerdict(input({ thresholds, candidate: c.stats, candidateLatencies: c.latencies, reference: reference(b.stats, b.latencies) })),
      'latency_vs_reference',
    );
    expect(vsReference).toMatchObject({ status, details: { reason, floor_ms: floorMs } });
    const history = computeVerdict(
      input({ thresholds, candidate: c.stats, candidateLatencies: c.latencies, baseline: { mode: 'history', minRuns: 5, history: [0, 1, 2, 3, 4].map((i) => ({ run_id: `4444444${i}-4444-4444-8444-444444444444`, p95_us: base * 1000 })), previous: null } }),
    );
    expect(check(history, 'latency_vs_baseline')).toMatchObject({ status, details: { model: 'history' } });
    expect(history.baseline_comparison?.limits).toMatchObject({ floor_ms: floorMs });
  });
});

describe('failBound: the one-sided lower bound a fail read, rounded outwards (down)', () => {
  it.each([
    { raw: 12.36, stored: 12.3 },
    { raw: 12.34, stored: 12.3 },
    { raw: 20, stored: 20 },
    { raw: -3.01, stored: -3.1 },
    { raw: -Infinity, stored: -100 },
  ])('$raw % → $stored %', ({ raw, stored }) => {
    const diff = { ...unpairedRelativeDifference(steady(150).latencies, steady(100).latencies), fail_bound: 'one_sided' as const, fail_lower_pct: raw };
    expect(failBound(diff)).toEqual({ fail_bound: 'one_sided', fail_lower_pct: stored });
  });
});
