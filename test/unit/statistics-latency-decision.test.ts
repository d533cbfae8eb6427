import { describe, expect, it } from 'vitest';
import { callsToDecide, decideLatency, type LatencyDecision } from '../../src/domain/statistics/latency-decision';
import { unpairedRelativeDifference, type RelativeDifference } from '../../src/domain/statistics/relative-difference';

const LIMITS = { maxPct: 20, floorMs: 5 };

/** A difference with the given point and bounds (percent) over a 100 ms reference. */
function diff(point: number, lower: number, upper: number, n = 2000): RelativeDifference {
  const z = 1.959963984540054;
  return {
    method: 'unpaired',
    p: 0.95,
    confidence: 0.95,
    candidate_n: n,
    reference_n: n,
    candidate_us: 100_000 * (1 + point / 100),
    reference_us: 100_000,
    point_pct: point,
    lower_pct: lower,
    upper_pct: upper,
    log_se: Number.isFinite(upper) ? (Math.log1p(upper / 100) - Math.log1p(lower / 100)) / (2 * z) : Infinity,
    correlation: 0,
    fail_lower_pct: lower,
    fail_bound: 'interval',
  };
}

describe('decideLatency: every boundary', () => {
  it.each<[string, RelativeDifference, LatencyDecision['status'], LatencyDecision['reason']]>([
    ['interval wholly below the limit', diff(8, 3, 13), 'pass', 'within_limit'],
    ['upper bound exactly at the limit', diff(15, 10, 20), 'pass', 'within_limit'],
    ['upper bound just above the limit', diff(15, 10, 20.0001), 'inconclusive', 'straddles_limit'],
    ['interval straddles the limit', diff(21, 15, 27), 'inconclusive', 'straddles_limit'],
    ['lower bound exactly at the limit', diff(25, 20, 30), 'inconclusive', 'straddles_limit'],
    ['lower bound just above the limit', diff(25, 20.0001, 30), 'fail', 'above_limit'],
    ['interval wholly above the limit', diff(50, 40, 60), 'fail', 'above_limit'],
    ['above the limit but exactly at the 5 ms floor', diff(5, 30, 40), 'pass', 'under_floor'],
    ['above the limit, just over the floor', diff(5.001, 4.9, 5.1), 'pass', 'within_limit'],
    ['unbounded interval, difference under the floor', diff(3, -100, Infinity), 'pass', 'under_floor'],
    ['unbounded interval, difference over the floor', diff(30, -100, Infinity), 'inconclusive', 'straddles_limit'],
    ['candidate faster', diff(-40, -45, -35), 'pass', 'under_floor'],
  ])('%s → %s', (_name, d, status, reason) => {
    const decision = decideLatency(d, LIMITS);
    expect(decision.status).toBe(status);
    expect(decision.reason).toBe(reason);
  });

  it('fails only when the floor is also exceeded (floor 0: percent alone decides)', () => {
    const d = diff(5, 30, 40); // 5 ms over a 100 ms reference, interval above the limit
    expect(decideLatency(d, { maxPct: 20, floorMs: 5 }).status).toBe('pass');
    expect(decideLatency(d, { maxPct: 20, floorMs: 4.999 }).status).toBe('fail');
  });

  it('a negative limit (candidate must be faster) follows the same rule', () => {
    expect(decideLatency(diff(10, 5, 15), { maxPct: -10, floorMs: 0 }).status).toBe('fail');
    expect(decideLatency(diff(-20, -25, -15), { maxPct: -10, floorMs: 0 }).status).toBe('pass');
  });
});

describe('decideLatency on real samples', () => {
  const sample = (n: number, ms: number) => Float64Array.from({ length: n }, (_, i) => Math.round(ms * 1000 * (0.8 + (0.4 * i) / Math.max(n, 1))));
  it.each<[string, number, number, number, LatencyDecision['status']]>([
    // name, candidate n, reference n, candidate p95 scale (ms), status — reference is 100 ms
    ['all failed: no candidate sample', 0, 2000, 150, 'inconclusive'],
    ['no reference sample', 2000, 0, 150, 'inconclusive'],
    ['n = 1, 50 % slower', 1, 1, 150, 'inconclusive'],
    ['n = 5, 50 % slower', 5, 5, 150, 'inconclusive'],
    ['n = 20, 50 % slower', 20, 20, 150, 'inconclusive'],
    ['n = 2000, 50 % slower', 2000, 2000, 150, 'fail'],
    ['n = 2000, equal distributions', 2000, 2000, 100, 'pass'],
    ['n = 1, 1 ms slower: under the floor whatever the interval', 1, 1, 101, 'pass'],
  ])('%s → %s', (_name, nc, nr, ms, status) => {
    expect(decideLatency(unpairedRelativeDifference(sample(nc, ms), sample(nr, 100)), LIMITS).status).toBe(status);
  });

  it('zero reference latency: decided by the floor and the (huge) percentage', () => {
    const zero = new Float64Array(2000);
    expect(decideLatency(unpairedRelativeDifference(sample(2000, 3), zero), LIMITS).status).toBe('pass');
    expect(decideLatency(unpairedRelativeDifference(sample(2000, 50), zero), LIMITS).status).toBe('fail');
  });

  it('no sample: the difference is NaN and nothing is estimated', () => {
    const d = decideLatency(unpairedRelativeDifference(sample(0, 1), sample(100, 100)), LIMITS);
    expect(d.difference_ms).toBeNaN();
    expect(d.calls_to_decide).toBeNull();
  });
});

describe('callsToDecide', () => {
  it.each([
    // point, lower, upper, n, expected calls: half-width on the log scale over the distance to the limit, squared
    [25, 15, 35.87, 2000, Math.ceil(2000 * ((Math.log(1.3587) - Math.log(1.15)) / 2 / (Math.log(1.25) - Math.log(1.2))) ** 2)],
    [15, 5, 25.9, 1000, Math.ceil(1000 * ((Math.log(1.259) - Math.log(1.05)) / 2 / (Math.log(1.2) - Math.log(1.15))) ** 2)],
  ])('point %s %% [%s, %s] at n = %s → %s calls', (point, lower, upper, n, expected) => {
    expect(callsToDecide(diff(point, lower, upper, n), 20)).toBe(expected);
  });

  it.each([
    ['point exactly at the limit', diff(20, 10, 30)],
    ['unbounded interval', diff(30, -100, Infinity)],
  ])('%s → null', (_name, d) => {
    expect(callsToDecide(d, 20)).toBeNull();
  });

  it('an inconclusive decision carries the estimate, more calls than it had', () => {
    const decision = decideLatency(diff(25, 15, 35.87), LIMITS);
    expect(decision.status).toBe('inconclusive');
    expect(decision.calls_to_decide).toBeGreaterThan(2000);
  });
});
