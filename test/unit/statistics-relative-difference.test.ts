import { describe, expect, it } from 'vitest';
import { DEFAULT_RUN_DRIFT_SD, fewestCallsToDecide, pairedRelativeDifference, smallSampleFailBound, smallSampleFailRanks, unpairedRelativeDifference } from '../../src/domain/statistics/relative-difference';

/** n latencies spread evenly over [from, from + span) µs, sorted. */
function spread(n: number, from = 30_000, span = 60_000): Float64Array {
  return Float64Array.from({ length: n }, (_, i) => from + Math.floor((i * span) / n));
}
const times = (a: Float64Array, f: number) => a.map((v) => Math.round(v * f));

describe('unpairedRelativeDifference', () => {
  it.each([
    // name, candidate, reference, point %, interval holds 0 %
    ['equal distributions', spread(2000), spread(2000), 0, true],
    ['candidate 50 % slower', times(spread(2000), 1.5), spread(2000), 50, false],
    ['candidate 20 % faster', times(spread(2000), 0.8), spread(2000), -20, false],
  ] as const)('%s', (_name, candidate, reference, point, holdsZero) => {
    const d = unpairedRelativeDifference(candidate, reference);
    expect(d.point_pct).toBeCloseTo(point, 0);
    expect(d.lower_pct).toBeLessThan(d.point_pct);
    expect(d.upper_pct).toBeGreaterThan(d.point_pct);
    expect(d.lower_pct <= 0 && d.upper_pct >= 0).toBe(holdsZero);
    expect(d.method).toBe('unpaired');
  });

  it.each([
    // candidate n, reference n: a side with no sample or too few to bound its p95 → unbounded
    [0, 2000],
    [2000, 0],
    [1, 2000],
    [5, 2000],
    [20, 2000],
    [71, 2000],
  ])('candidate %s / reference %s samples: the interval is unbounded', (nc, nr) => {
    const d = unpairedRelativeDifference(spread(nc), spread(nr));
    expect(d.lower_pct).toBe(-100);
    expect(d.upper_pct).toBe(Infinity);
    expect(d.log_se).toBe(Infinity);
  });

  it('no sample on a side: the point is NaN, not a number that could be compared', () => {
    expect(unpairedRelativeDifference(spread(0), spread(100)).point_pct).toBeNaN();
  });

  it('zero reference latency: the ratio is taken against 1 µs, large but finite', () => {
    const d = unpairedRelativeDifference(spread(500, 40_000, 1), new Float64Array(500));
    expect(d.reference_us).toBe(0);
    expect(Number.isFinite(d.point_pct)).toBe(true);
    expect(d.point_pct).toBeGreaterThan(1e6);
  });

  it('the interval narrows as 1/√n', () => {
    const small = unpairedRelativeDifference(spread(1000), spread(1000));
    const large = unpairedRelativeDifference(spread(4000), spread(4000));
    expect(small.log_se / large.log_se).toBeCloseTo(2, 0);
  });

  it('a drift allowance widens the interval by 2·sd² of variance', () => {
    const plain = unpairedRelativeDifference(spread(2000), spread(2000));
    const drift = unpairedRelativeDifference(spread(2000), spread(2000), { runDriftSd: DEFAULT_RUN_DRIFT_SD });
    expect(drift.log_se ** 2 - plain.log_se ** 2).toBeCloseTo(2 * Math.log(1.1) ** 2, 10);
  });
});

describe('pairedRelativeDifference', () => {
  it('identical pairs: correlation 1, a zero-width interval at 0 %', () => {
    const a = spread(2000).reverse();
    const d = pairedRelativeDifference(a, a);
    expect(d.correlation).toBeCloseTo(1, 10);
    expect(d.point_pct).toBe(0);
    expect(d.lower_pct).toBeCloseTo(0, 6);
    expect(d.upper_pct).toBeCloseTo(0, 6);
  });

  it('a shared slowdown cancels: the paired interval is narrower than the unpaired one', () => {
    // Pair i shares a latency spread over 30–90 ms (the instant's network), plus up to 2 ms of each side's own.
    const n = 2000;
    const shared = (i: number) => 30_000 + ((i * 7919) % 60_000);
    const candidate = Float64Array.from({ length: n }, (_, i) => shared(i) + ((i * 104_729) % 2000));
    const reference = Float64Array.from({ length: n }, (_, i) => shared(i) + ((i * 1_299_709) % 2000));
    const paired = pairedRelativeDifference(candidate, reference);
    const unpaired = unpairedRelativeDifference(Float64Array.from(candidate).sort(), Float64Array.from(reference).sort());
    expect(paired.point_pct).toBeCloseTo(unpaired.point_pct, 10);
    expect(paired.correlation).toBeGreaterThan(0);
    expect(paired.log_se).toBeLessThan(unpaired.log_se);
  });

  it('uses sorted copies the caller already has', () => {
    const candidate = times(spread(300), 1.1).reverse();
    const reference = spread(300).reverse();
    const own = pairedRelativeDifference(candidate, reference);
    const given = pairedRelativeDifference(candidate, reference, {
      candidateSorted: Float64Array.from(candidate).sort(),
      referenceSorted: Float64Array.from(reference).sort(),
    });
    expect(given).toEqual(own);
  });

  it.each([
    ['different lengths', spread(10), spread(11), {}],
    ['sorted copies of another length', spread(10), spread(10), { candidateSorted: spread(9) }],
  ])('refuses %s', (_name, candidate, reference, options) => {
    expect(() => pairedRelativeDifference(candidate, reference, options)).toThrow(RangeError);
  });

  it('no pairs: unbounded, correlation 0', () => {
    const d = pairedRelativeDifference([], []);
    expect([d.lower_pct, d.upper_pct, d.correlation]).toEqual([-100, Infinity, 0]);
  });
});

describe('small-sample fail bound', () => {
  it.each<[number, number, { candidateLower: number; referenceUpper: number } | null]>([
    [58, 58, null], // 0.95⁵⁸ = 0.051: the largest of 58 does not bound a p95 at 95 %
    [59, 59, { candidateLower: 50, referenceUpper: 59 }],
    [60, 60, { candidateLower: 52, referenceUpper: 60 }],
    [72, 72, { candidateLower: 64, referenceUpper: 72 }], // the two-sided ranks from 72 on
    [2000, 60, { candidateLower: 1874, referenceUpper: 60 }],
    [60, 2000, { candidateLower: 54, referenceUpper: 1920 }],
    [0, 60, null],
  ])('ranks for %i candidate and %i reference samples', (n, m, expected) => {
    expect(smallSampleFailRanks(n, m, 0.95)).toEqual(expected);
  });

  it('names the fewest calls a side to pass and to fail a p95 comparison', () => {
    expect(fewestCallsToDecide(0.95)).toEqual({ toPass: 72, toFail: 59 });
    expect(fewestCallsToDecide(0.99)).toEqual({ toPass: 368, toFail: 299 });
  });

  it('claims "slower" for an unchanged endpoint in at most 5 % of runs (seeded simulation, 60 calls a side)', () => {
    let state = 12345;
    const uniform = () => {
      state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
      return (state + 0.5) / 4294967296;
    };
    const normal = () => Math.sqrt(-2 * Math.log(uniform())) * Math.cos(2 * Math.PI * uniform());
    const run = () => Float64Array.from({ length: 60 }, () => Math.round(40_000 * Math.exp(0.4 * normal()))).sort();
    let claims = 0;
    const trials = 4000;
    for (let i = 0; i < trials; i++) if (smallSampleFailBound(run(), run(), 0.95) > 0) claims++;
    expect(claims / trials).toBeLessThanOrEqual(0.05);
    expect(claims).toBeGreaterThan(0); // the bound is not vacuous: it does err sometimes
  });

  it('is −100 (no bound) below 59 calls and with a side empty', () => {
    const sorted = Float64Array.from({ length: 58 }, (_, i) => 1000 + i);
    expect(smallSampleFailBound(sorted, sorted, 0.95)).toBe(-100);
    expect(smallSampleFailBound([], sorted, 0.95)).toBe(-100);
  });
});
