import { describe, expect, it } from 'vitest';
import type { RunStats } from '../../src/domain/stats';
import { emptyTally, type CorrectnessTally } from '../../src/domain/correctness';
import { normalQuantile } from '../../src/domain/statistics/distributions';
import { nearestRank } from '../../src/domain/statistics/quantile-interval';
import { ALL_RANKS_MAX_N, smallSampleFailRanks } from '../../src/domain/statistics/relative-difference';
import {
  computeVerdict,
  driftPct,
  verdictRanks,
  type BaselineInput,
  type MethodLatency,
  type Thresholds,
  type VerdictInput,
} from '../../src/domain/verdict';

const THRESHOLDS: Thresholds = {
  latency_p95_max_ms: 200,
  latency_regression_max_pct: 10,
  latency_vs_reference_max_pct: 20,
  correctness_min_pct: 99.9,
  correctness_enabled: false,
};

/** Stats of `calls` calls, `failed` of them failed, with the given successful-call percentiles. */
function stats(p: { p50?: number; p95: number; p99?: number; calls?: number; failed?: number }): RunStats {
  const total = p.calls ?? 100;
  const failed = p.failed ?? 0;
  const successful = total - failed;
  const p50 = p.p50 ?? Math.floor(p.p95 / 2);
  const p99 = p.p99 ?? p.p95 + 10;
  return {
    calls: { total, successful, failed },
    tests: { successful, failed },
    latency: {
      successful: { avg_ms: p50, p50_ms: p50, p95_ms: p.p95, p99_ms: p99, sample_count: successful },
      all: { avg_ms: p50, p50_ms: p50, p95_ms: p.p95, p99_ms: p99, sample_count: total },
    },
  };
}

/**
 * Sorted successful latencies (µs) whose nearest-rank p50/p95/p99 are exactly the stats' ms values:
 * linear between those ranks, from 60 % of p50 at rank 1 to 105 % of p99 at rank n.
 */
function latenciesOf(s: RunStats): Float64Array {
  const n = s.calls.successful;
  const { p50_ms: p50, p95_ms: p95, p99_ms: p99 } = s.latency.successful;
  const anchors: [number, number][] = [
    [1, p50 * 600],
    [nearestRank(n, 0.5), p50 * 1000],
    [nearestRank(n, 0.95), p95 * 1000],
    [nearestRank(n, 0.99), p99 * 1000],
    [n, p99 * 1050],
  ];
  const out = new Float64Array(n);
  for (let r = 1; r <= n; r++) {
    const exact = [...anchors].reverse().find(([rank]) => rank === r);
    if (exact) {
      out[r - 1] = exact[1];
      continue;
    }
    const below = [...anchors].reverse().find(([rank]) => rank < r)!;
    const above = anchors.find(([rank]) => rank > r)!;
    out[r - 1] = Math.round(below[1] + ((above[1] - below[1]) * (r - below[0])) / (above[0] - below[0]));
  }
  return out;
}

/**
 * n latencies of a log-normal endpoint (σ_log 0.4, the bench's model) placed at its quantiles, so the
 * nearest-rank p95 is p95Ms: a steady run whose intervals are as wide as a real one's.
 */
function steady(p95Ms: number, n = 2000): { stats: RunStats; latencies: Float64Array } {
  const latencies = new Float64Array(n);
  const r95 = nearestRank(n, 0.95);
  const z95 = normalQuantile((r95 - 0.5) / n);
  for (let r = 1; r <= n; r++) latencies[r - 1] = Math.round(p95Ms * 1000 * Math.exp(0.4 * (normalQuantile((r - 0.5) / n) - z95)));
  const ms = (rank: number) => Math.round(latencies[rank - 1]! / 1000);
  const s = stats({ p50: ms(nearestRank(n, 0.5)), p95: p95Ms, p99: ms(nearestRank(n, 0.99)), calls: n });
  return { stats: s, latencies };
}

/** No successful call: what the stats query returns when every call failed (or none was made). */
function noSuccess(calls: number): RunStats {
  return stats({ p50: 0, p95: 0, p99: 0, calls, failed: calls });
}

const RUN_ID = '11111111-1111-4111-8111-111111111111';
const BASELINE_RUN_ID = '22222222-2222-4222-8222-222222222222';
const REFERENCE_ENDPOINT_ID = '33333333-3333-4333-8333-333333333333';

function input(overrides: Partial<VerdictInput> = {}): VerdictInput {
  const candidate = overrides.candidate ?? stats({ p95: 100 });
  return {
    run: { id: RUN_ID, status: 'success', failure_reason: null },
    suiteName: 'mainnet smoke',
    thresholds: THRESHOLDS,
    candidate,
    candidateLatencies: latenciesOf(candidate),
    reference: null,
    baseline: null,
    ...overrides,
  };
}

function reference(s: RunStats, latencies: Float64Array = latenciesOf(s)): NonNullable<VerdictInput['reference']> {
  return { endpoint_id: REFERENCE_ENDPOINT_ID, endpoint_name: 'trusted reference', stats: s, latencies };
}

/** A `previous_success` baseline: the previous passing run's stats and samples. */
function previousRun(s: RunStats, latencies: Float64Array = latenciesOf(s), mode: BaselineInput['mode'] = 'previous_success'): BaselineInput {
  return { mode, previous: { run_id: BASELINE_RUN_ID, stats: s, latencies } };
}

function check(result: ReturnType<typeof computeVerdict>, name: string) {
  const found = result.checks.find((c) => c.name === name);
  if (!found) throw new Error(`no ${name} check in ${JSON.stringify(result.checks.map((c) => c.name))}`);
  return found;
}

describe('driftPct', () => {
  it.each([
    { value: 110, base: 100, expected: 10 },
    { value: 90, base: 100, expected: -10 },
    { value: 100, base: 100, expected: 0 },
    { value: 1001, base: 1000, expected: 0.1 },
    { value: 1, base: 3, expected: -66.7 },
    { value: 4, base: 3, expected: 33.3 },
    { value: 250, base: 100, expected: 150 },
    // A base of 0 ms counts as 1 ms, so a reference that answers in under a millisecond never divides by zero.
    { value: 5, base: 0, expected: 500 },
    { value: 1, base: 0, expected: 100 },
    { value: 0, base: 0, expected: 0 },
  ])('drift of $value ms against $base ms is $expected %', ({ value, base, expected }) => {
    expect(driftPct(value, base)).toBe(expected);
  });
});

describe('verdictRanks', () => {
  it.each([0, 1, 20, 100, 1000, 1001, 1_000_000])('names, for n = %i, ranks within 0..n+1 including the three nearest ranks', (n) => {
    const ranks = verdictRanks(n);
    // Three per percentile, plus every rank of a small sample or a lower rank per reference size that has no two-sided bound.
    expect(new Set(ranks).size).toBeLessThanOrEqual(n <= ALL_RANKS_MAX_N ? n + 9 : 9 + 72);
    for (const r of ranks) {
      expect(r).toBeGreaterThanOrEqual(0);
      expect(r).toBeLessThanOrEqual(n + 1);
    }
    if (n > 0) expect(ranks).toEqual(expect.arrayContaining([nearestRank(n, 0.5), nearestRank(n, 0.95), nearestRank(n, 0.99)]));
  });

  it.each([
    [60, 60],
    [2000, 60],
    [60, 2000],
    [65, 300],
    // Beyond 1,000 samples the two-sided ranks come from the normal approximation: the bound must read the same rank.
    [60, 1013],
    [65, 5000],
  ])('gives the same checks from sparse samples as from full ones at %i candidate and %i reference calls', (n, m) => {
    const cand = steady(300, n);
    const ref = steady(60, m);
    const sparseOf = (sorted: ArrayLike<number>) => {
      const sparse: { length: number; [i: number]: number } = { length: sorted.length };
      for (const r of verdictRanks(sorted.length)) if (r >= 1 && r <= sorted.length) sparse[r - 1] = sorted[r - 1]!;
      return sparse;
    };
    const full = computeVerdict(input({ candidate: cand.stats, candidateLatencies: cand.latencies, reference: reference(ref.stats, ref.latencies) }));
    const fromSparse = computeVerdict(
      input({ candidate: cand.stats, candidateLatencies: sparseOf(cand.latencies), reference: { ...reference(ref.stats, ref.latencies), latencies: sparseOf(ref.latencies) } }),
    );
    expect(fromSparse.checks).toEqual(full.checks);
    expect(full.checks.find((c) => c.name === 'latency_vs_reference')!.status).toBe('fail');
  });

  it('holds every rank a small-sample bound reads, whichever side is small (up to 71 calls) and whatever the other side\'s size', () => {
    const sizes = [...Array.from({ length: 130 }, (_, i) => 990 + i), 5000, 100_000];
    for (const big of sizes) {
      const ranks = new Set(verdictRanks(big));
      for (let small = 1; small <= 71; small++) {
        const asReference = smallSampleFailRanks(small, big, 0.95);
        if (asReference) expect(ranks.has(asReference.referenceUpper), `reference of ${big}, candidate of ${small}`).toBe(true);
        const asCandidate = smallSampleFailRanks(big, small, 0.95);
        if (asCandidate) expect(ranks.has(asCandidate.candidateLower), `candidate of ${big}, reference of ${small}`).toBe(true);
      }
    }
  });

  it('gives the same intervals from a sparse sample holding only those ranks as from the full one', () => {
    const { stats: s, latencies } = steady(120, 2000);
    const sparse: { length: number; [i: number]: number } = { length: latencies.length };
    for (const r of verdictRanks(latencies.length)) if (r >= 1 && r <= latencies.length) sparse[r - 1] = latencies[r - 1]!;
    const full = computeVerdict(input({ candidate: s, candidateLatencies: latencies, reference: reference(s, latencies) }));
    const fromSparse = computeVerdict(input({ candidate: s, candidateLatencies: sparse, reference: { ...reference(s, latencies), latencies: sparse } }));
    expect(fromSparse.checks).toEqual(full.checks);
  });
});

describe('small suites decide what the data can decide', () => {
  it.each<[string, number, number, number, 'pass' | 'fail' | 'inconclusive']>([
    ['60 calls, candidate 5× slower than the reference', 60, 300, 60, 'fail'],
    ['59 calls, candidate 5× slower', 59, 300, 60, 'fail'],
    ['58 calls, candidate 5× slower: no bound exists', 58, 300, 60, 'inconclusive'],
    ['60 calls, identical to the reference: under the ms floor', 60, 60, 60, 'pass'],
    ['60 calls, candidate 10 % slower (limit 25 %)', 60, 66, 60, 'inconclusive'],
    ['72 calls, identical: the interval is bounded and passes', 72, 60, 60, 'pass'],
  ])('%s → %s', (_name, n, candidateMs, referenceMs, status) => {
    const cand = steady(candidateMs, n);
    const ref = steady(referenceMs, n);
    const result = computeVerdict(input({ candidate: cand.stats, candidateLatencies: cand.latencies, reference: reference(ref.stats, ref.latencies) }));
    const c = check(result, 'latency_vs_reference');
    expect(c.status).toBe(status);
    if (n < 72) expect(c.details.fail_bound).toBe('one_sided');
    if (status === 'fail') expect(c.message).toContain('one-sided 95% lower bound');
    if (status === 'inconclusive') expect(c.message).toMatch(/passing on the interval needs 72 a side and failing 59/);
  });

  it('a small candidate against a large reference: the one-sided bound exists below 59 calls, and the message does not say it cannot', () => {
    const ref = steady(60, 2000);
    const slow = steady(300, 30);
    const failed = check(computeVerdict(input({ candidate: slow.stats, candidateLatencies: slow.latencies, reference: reference(ref.stats, ref.latencies) })), 'latency_vs_reference');
    expect([failed.status, failed.details.fail_bound]).toEqual(['fail', 'one_sided']);
    const near = steady(66, 30);
    const open = check(computeVerdict(input({ candidate: near.stats, candidateLatencies: near.latencies, reference: reference(ref.stats, ref.latencies) })), 'latency_vs_reference');
    expect(open.status).toBe('inconclusive');
    expect(open.message).toContain('the one-sided bound does not clear the limit');
  });

  it('a 60-call run slowed from 50 to 600 ms against the previous run fails, even with the run-drift allowance', () => {
    const cand = steady(600, 60);
    const base = steady(50, 60);
    const c = check(computeVerdict(input({ candidate: cand.stats, candidateLatencies: cand.latencies, baseline: previousRun(base.stats, base.latencies) })), 'latency_vs_baseline');
    expect(c.status).toBe('fail');
    expect(c.details.fail_bound).toBe('one_sided');
  });
});

describe('computeVerdict: latency_p95', () => {
  it.each([
    { name: 'well under the threshold', p95: 50, status: 'pass', message: /^p95 50 ms \[\d+–\d+\] <= 200 ms$/ },
    { name: 'exactly at the threshold', p95: 200, status: 'pass', message: /^p95 200 ms \[\d+–\d+\] <= 200 ms$/ },
    { name: 'one ms above the threshold', p95: 201, status: 'fail', message: /^p95 201 ms \[\d+–\d+\] > 200 ms$/ },
    { name: 'far above the threshold', p95: 5_000, status: 'fail', message: /^p95 5000 ms \[\d+–\d+\] > 200 ms$/ },
  ])('p95 $name → $status', ({ p95, status, message }) => {
    const result = computeVerdict(input({ candidate: stats({ p95 }) }));
    const p95Check = check(result, 'latency_p95');
    expect(p95Check).toMatchObject({ status, details: { p95, threshold: 200, p95_us: p95 * 1000 } });
    expect(p95Check.message).toMatch(message);
    expect(result.verdict).toBe(status);
    expect(result.exit_code).toBe(status === 'pass' ? 0 : 1);
  });

  it('carries the 95 % intervals of p50, p95 and p99 in its details (p99 unbounded above at 100 calls)', () => {
    const result = computeVerdict(input({ candidate: stats({ p50: 40, p95: 100, p99: 120 }) }));
    const { intervals_ms: intervals } = check(result, 'latency_p95').details as {
      intervals_ms: Record<'p50' | 'p95' | 'p99', { point: number; lower: number; upper: number | null }>;
    };
    expect(intervals.p50.point).toBe(40);
    expect(intervals.p95.point).toBe(100);
    expect(intervals.p99.point).toBe(120);
    for (const q of Object.values(intervals)) {
      expect(q.lower).toBeLessThanOrEqual(q.point);
      if (q.upper !== null) expect(q.upper).toBeGreaterThanOrEqual(q.point);
    }
    expect(intervals.p95.upper).not.toBeNull(); // 100 ≥ 72 samples bound p95 above
    expect(intervals.p99.upper).toBeNull(); // p99 needs 368
  });

  it('reports each primary target with its own intervals, and a Markdown row per candidate when there are several', () => {
    const fast = steady(100, 1000);
    const slow = steady(180, 1000);
    const targets = [
      { endpoint_id: '66666666-6666-4666-8666-000000000001', endpoint_name: 'fast | node', stats: fast.stats.calls, latencies: fast.latencies },
      { endpoint_id: '66666666-6666-4666-8666-000000000002', endpoint_name: 'slow node', stats: null, latencies: slow.latencies },
    ];
    const both = Float64Array.from([...fast.latencies, ...slow.latencies]).sort();
    const result = computeVerdict(input({ candidate: stats({ p95: 175, calls: 2000 }), candidateLatencies: both, targets }));
    const details = check(result, 'latency_p95').details as { targets: { endpoint_name: string; successful: number; intervals_ms: { p95: { point: number } } }[] };
    expect(details.targets.map((t) => [t.endpoint_name, t.successful, t.intervals_ms.p95.point])).toEqual([
      ['fast | node', 1000, 100],
      ['slow node', 1000, 180],
    ]);
    const lines = result.markdown_summary.split('\n');
    expect(lines.some((l) => l.startsWith('| candidate (fast \\| node) | 1000 | 0 | ') && l.includes('| 100 ms ['))).toBe(true);
    expect(lines.some((l) => l.startsWith('| candidate (slow node) | – | – | ') && l.includes('| 180 ms ['))).toBe(true);
    // One candidate: no extra row (the candidate row is that target).
    const single = computeVerdict(input({ targets: targets.slice(0, 1) }));
    expect(single.markdown_summary).not.toContain('| candidate (');
  });

  it.each([
    { name: 'every call failed', candidate: noSuccess(100) },
    { name: 'zero samples', candidate: noSuccess(0) },
  ])('fails with "no successful calls" when $name (a p95 of 0 ms must not pass)', ({ candidate }) => {
    const result = computeVerdict(input({ candidate }));
    const p95 = check(result, 'latency_p95');
    expect(p95.status).toBe('fail');
    expect(p95.message).toMatch(/no successful calls/);
    expect(p95.details).toMatchObject({ p95: 0, threshold: 200, p95_us: null });
    expect(result.verdict).toBe('fail');
    expect(result.exit_code).toBe(1);
  });
});

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

describe('computeVerdict: latency_vs_reference (unpaired interval rule)', () => {
  // 4,000 steady calls a side: the p95 difference's interval is about ±1 %, so the limit decides.
  it.each([
    { name: 'candidate faster', cand: 80, ref: 100, pct: -20, status: 'pass', reason: 'under_floor' },
    { name: 'slower, interval below the limit', cand: 110, ref: 100, pct: 10, status: 'pass', reason: 'within_limit' },
    { name: 'slower, the point exactly at the limit', cand: 120, ref: 100, pct: 20, status: 'inconclusive', reason: 'straddles_limit' },
    { name: 'slower, 40 % over a 20 % limit', cand: 140, ref: 100, pct: 40, status: 'fail', reason: 'above_limit' },
    { name: 'slower, one ms above with 300 calls: the interval straddles', cand: 121, ref: 100, pct: 21, status: 'inconclusive', reason: 'straddles_limit', n: 300 },
    { name: 'slower, the whole interval above the limit', cand: 130, ref: 100, pct: 30, status: 'fail', reason: 'above_limit' },
    { name: 'far above the limit but under the 5 ms floor', cand: 4, ref: 3, pct: 33.3, status: 'pass', reason: 'under_floor' },
    { name: 'reference p95 of 0 ms, candidate 3 ms: the floor decides', cand: 3, ref: 0, pct: 300, status: 'pass', reason: 'under_floor' },
    { name: 'reference p95 of 0 ms, candidate 9 ms: huge but finite ratio', cand: 9, ref: 0, pct: 900, status: 'fail', reason: 'above_limit' },
  ])('$name: $cand ms vs $ref ms → $status ($reason)', ({ cand, ref, pct, status, reason, n }: { cand: number; ref: number; pct: number; status: string; reason: string; n?: number }) => {
    const c = steady(cand, n);
    const r = steady(ref, n);
    const result = computeVerdict(input({ candidate: c.stats, candidateLatencies: c.latencies, reference: reference(r.stats, r.latencies) }));
    const vsReference = check(result, 'latency_vs_reference');
    expect(vsReference).toMatchObject({
      status,
      details: { candidate_p95_ms: cand, reference_p95_ms: ref, vs_reference_pct: pct, max_pct: 20, method: 'unpaired', reason, floor_ms: 5 },
    });
    expect(vsReference.message).toContain('unpaired');
    expect(vsReference.message).toContain(status === 'inconclusive' ? 'inconclusive' : status);
    expect(result.reference_comparison).toMatchObject({
      endpoint_id: REFERENCE_ENDPOINT_ID,
      status,
      latency: { candidate_p95_ms: cand, reference_p95_ms: ref, vs_reference_pct: pct, status, message: vsReference.message, method: 'unpaired' },
    });
    const interval = vsReference.details.vs_reference_interval_pct as { lower: number; upper: number };
    // (A 0 ms reference counts as 1 ms in vs_reference_pct but as 1 µs in the interval.)
    if (ref > 0) {
      expect(interval.lower).toBeLessThanOrEqual(pct + 0.1);
      expect(interval.upper).toBeGreaterThanOrEqual(pct - 0.1);
    }
    // Inconclusive never fails the verdict by default.
    expect(result.verdict).toBe(status === 'fail' ? 'fail' : 'pass');
  });

  it('says how many calls would decide an interval that straddles the limit off its point', () => {
    const c = steady(121, 300);
    const r = steady(100, 300);
    const result = computeVerdict(input({ candidate: c.stats, candidateLatencies: c.latencies, reference: reference(r.stats, r.latencies) }));
    const details = check(result, 'latency_vs_reference').details;
    expect(details.calls_to_decide).toBeGreaterThan(300);
    expect(check(result, 'latency_vs_reference').message).toMatch(/about [\d,]+ calls would decide/);
  });

  it('is inconclusive, not failed, when a 50 % slower candidate has only 20 calls (p95 unbounded above)', () => {
    const result = computeVerdict(input({ candidate: stats({ p95: 150, calls: 20 }), reference: reference(stats({ p95: 100, calls: 20 })) }));
    const vsReference = check(result, 'latency_vs_reference');
    expect(vsReference).toMatchObject({ status: 'inconclusive', details: { reason: 'straddles_limit', calls_to_decide: null } });
    expect(vsReference.details.vs_reference_interval_pct).toEqual({ lower: -100, upper: null });
  });

  it.each([
    { name: 'the candidate', candidate: noSuccess(50), ref: stats({ p95: 100 }) },
    { name: 'the reference', candidate: stats({ p95: 100 }), ref: noSuccess(50) },
  ])('is inconclusive when $name has no successful calls (availability judges that run)', ({ candidate, ref }) => {
    const result = computeVerdict(input({ candidate, reference: reference(ref) }));
    const vsReference = check(result, 'latency_vs_reference');
    expect(vsReference.status).toBe('inconclusive');
    expect(vsReference.details.reason).toBe('no_samples');
    expect(vsReference.message).toMatch(/no successful calls/);
    expect(result.reference_comparison?.status).toBe('inconclusive');
  });

  it('has no latency_vs_reference check and a null reference_comparison without a reference', () => {
    const result = computeVerdict(input());
    expect(result.checks.map((c) => c.name)).toEqual(['latency_p95', 'availability']);
    expect(result.reference_comparison).toBeNull();
  });
});

describe('computeVerdict: reference_comparison by_method and head_lag_blocks', () => {
  const row = (over: Partial<MethodLatency> & { method: string }): MethodLatency => ({
    calls: 10,
    failed: 0,
    candidate_successful: 10,
    reference_successful: 10,
    candidate_p95_ms: 100,
    reference_p95_ms: 100,
    ...over,
  });

  it.each([
    { name: 'slower candidate', r: row({ method: 'eth_call', candidate_p95_ms: 150, reference_p95_ms: 100 }), pct: 50 },
    { name: 'faster candidate', r: row({ method: 'eth_call', candidate_p95_ms: 80, reference_p95_ms: 100 }), pct: -20 },
    { name: 'reference p95 of 0 ms counts as 1 ms', r: row({ method: 'eth_call', candidate_p95_ms: 2, reference_p95_ms: 0 }), pct: 200 },
    { name: 'no successful candidate call', r: row({ method: 'eth_call', calls: 5, failed: 5, candidate_successful: 0, candidate_p95_ms: 0 }), pct: null },
    { name: 'no successful reference call', r: row({ method: 'eth_call', reference_successful: 0, reference_p95_ms: 0 }), pct: null },
  ])('by_method item: $name → vs_reference_pct $pct', ({ r, pct }) => {
    const result = computeVerdict(input({ reference: { ...reference(stats({ p95: 100 })), byMethod: [r] } }));
    expect(result.reference_comparison?.latency.by_method).toEqual([
      {
        method: r.method,
        calls: r.calls,
        failed: r.failed,
        candidate_p95_ms: r.candidate_p95_ms,
        reference_p95_ms: r.reference_p95_ms,
        vs_reference_pct: pct,
      },
    ]);
  });

  it('lists every method in the given order and leaves the checks alone', () => {
    const byMethod = [row({ method: 'eth_blockNumber' }), row({ method: 'eth_getBalance', candidate_p95_ms: 900 })];
    const result = computeVerdict(input({ reference: { ...reference(stats({ p95: 100 })), byMethod } }));
    expect(result.reference_comparison?.latency.by_method.map((m) => m.method)).toEqual(['eth_blockNumber', 'eth_getBalance']);
    // A slow method is shown, not judged: latency_vs_reference uses the overall p95.
    expect(result.verdict).toBe('pass');
  });

  it.each([
    { headLagBlocks: 0, expected: 0 },
    { headLagBlocks: -3, expected: -3 },
    { headLagBlocks: 2, expected: 2 },
    { headLagBlocks: null, expected: null },
    { headLagBlocks: undefined, expected: null },
  ])('head_lag_blocks $headLagBlocks → $expected', ({ headLagBlocks, expected }) => {
    const result = computeVerdict(input({ reference: { ...reference(stats({ p95: 100 })), headLagBlocks } }));
    expect(result.reference_comparison?.head_lag_blocks).toBe(expected);
  });
});

describe('computeVerdict: correctness', () => {
  const enabled: Thresholds = { ...THRESHOLDS, correctness_enabled: true, correctness_min_pct: 99 };
  const tally = (over: Partial<CorrectnessTally>): CorrectnessTally => ({ ...emptyTally(), ...over });
  const mismatch = {
    method: 'eth_getBalance',
    params: ['0x00000000000000000000000000000000000000aa', '0x10'],
    candidate_hash: 'b'.repeat(32),
    reference_hash: 'a'.repeat(32),
  };

  it.each([
    {
      name: 'every compared pair matched',
      correctness: tally({ matched: 100 }),
      status: 'pass',
      details: { compared: 100, matched: 100, mismatched: 0, inconclusive: 0, skipped: 0, match_rate_pct: 100, min_pct: 99, mismatches: [] },
    },
    {
      name: 'exactly at min_pct',
      correctness: tally({ matched: 99, mismatched: 1, mismatches: [mismatch] }),
      status: 'pass',
      details: { compared: 100, matched: 99, mismatched: 1, inconclusive: 0, skipped: 0, match_rate_pct: 99, min_pct: 99, mismatches: [mismatch] },
    },
    {
      name: 'below min_pct',
      correctness: tally({ matched: 98, mismatched: 2, mismatches: [mismatch, mismatch] }),
      status: 'fail',
      details: { compared: 100, matched: 98, mismatched: 2, inconclusive: 0, skipped: 0, match_rate_pct: 98, min_pct: 99, mismatches: [mismatch, mismatch] },
    },
    {
      name: 'inconclusive and skipped pairs are not compared',
      correctness: tally({ matched: 10, inconclusive: 5, skipped: 3 }),
      status: 'pass',
      details: { compared: 10, matched: 10, mismatched: 0, inconclusive: 5, skipped: 3, match_rate_pct: 100, min_pct: 99, mismatches: [] },
    },
    {
      name: 'nothing compared (every pair skipped)',
      correctness: tally({ skipped: 50 }),
      status: 'fail',
      details: { compared: 0, matched: 0, mismatched: 0, inconclusive: 0, skipped: 50, match_rate_pct: null, min_pct: 99, mismatches: [] },
    },
    {
      name: 'nothing compared (no tally given)',
      correctness: undefined,
      status: 'fail',
      details: { compared: 0, matched: 0, mismatched: 0, inconclusive: 0, skipped: 0, match_rate_pct: null, min_pct: 99, mismatches: [] },
    },
  ])('$name → $status', ({ correctness, status, details }) => {
    const result = computeVerdict(input({ thresholds: enabled, reference: reference(stats({ p95: 100 })), correctness }));
    const check = result.checks.find((c) => c.name === 'correctness');
    expect(check).toMatchObject({ status, details });
    expect(result.verdict).toBe(status);
    expect(result.markdown_summary).toContain(`| correctness | ${status === 'pass' ? '✅ pass' : '❌ fail'} |`);
  });

  it('lists at most 10 mismatches even when given more', () => {
    const correctness = tally({ mismatched: 12, mismatches: Array.from({ length: 12 }, () => mismatch) });
    const result = computeVerdict(input({ thresholds: enabled, reference: reference(stats({ p95: 100 })), correctness }));
    expect((check(result, 'correctness').details.mismatches as unknown[]).length).toBe(10);
  });

  it('comes after latency_vs_reference and before latency_vs_baseline', () => {
    const result = computeVerdict(
      input({
        thresholds: enabled,
        reference: reference(stats({ p95: 100 })),
        baseline: previousRun(stats({ p95: 100 })),
        correctness: tally({ matched: 1 }),
      }),
    );
    expect(result.checks.map((c) => c.name)).toEqual(['latency_p95', 'latency_vs_reference', 'correctness', 'latency_vs_baseline', 'availability']);
  });

  it.each([
    { name: 'without a reference', thresholds: enabled, ref: null },
    { name: 'when correctness_enabled is false', thresholds: THRESHOLDS, ref: reference(stats({ p95: 100 })) },
  ])('is absent $name, whatever the tally', ({ thresholds, ref }) => {
    const result = computeVerdict(input({ thresholds, reference: ref, correctness: tally({ mismatched: 5 }) }));
    expect(result.checks.map((c) => c.name)).not.toContain('correctness');
    expect(result.verdict).toBe('pass');
  });

  it('is absent from the error verdict of a failed run', () => {
    const result = computeVerdict(
      input({
        thresholds: enabled,
        run: { id: RUN_ID, status: 'failed', failure_reason: 'boom' },
        reference: reference(stats({ p95: 100 })),
        correctness: tally({ matched: 1 }),
      }),
    );
    expect(result.checks).toEqual([]);
  });
});

describe('computeVerdict: latency_vs_baseline', () => {
  const runId = (i: number) => `44444444-4444-4444-8444-${String(i).padStart(12, '0')}`;
  const historyOf = (p95sMs: number[]) => p95sMs.map((ms, i) => ({ run_id: runId(i), p95_us: ms * 1000 }));
  const steadyHistory = (k: number) => historyOf([100, 102, 98, 101, 99, 100, 103, 97, 100, 101].slice(0, k));
  const previousOf = (p95: number): BaselineInput['previous'] => {
    const s = steady(p95);
    return { run_id: runId(0), stats: s.stats, latencies: s.latencies };
  };

  it.each([
    { runs: 0, model: null },
    { runs: 1, model: 'previous_run' },
    { runs: 4, model: 'previous_run' },
    { runs: 5, model: 'history' },
    { runs: 10, model: 'history' },
  ])('history mode with $runs passing runs (min_runs 5) → model $model', ({ runs, model }) => {
    const c = steady(150);
    const history = steadyHistory(runs);
    const result = computeVerdict(
      input({
        candidate: c.stats,
        candidateLatencies: c.latencies,
        baseline: { mode: 'history', minRuns: 5, history, previous: runs > 0 ? previousOf(100) : null },
      }),
    );
    if (model === null) {
      expect(result.checks.map((x) => x.name)).not.toContain('latency_vs_baseline');
      expect(result.baseline_comparison).toBeNull();
      return;
    }
    const vsBaseline = check(result, 'latency_vs_baseline');
    // A 50 % slower candidate fails under either model.
    expect(vsBaseline.status).toBe('fail');
    expect(vsBaseline.details.model).toBe(model);
    expect(result.baseline_comparison).toMatchObject({ model, status: 'fail', message: vsBaseline.message });
    if (model === 'history') {
      expect(result.baseline_comparison?.run_ids).toEqual(history.map((h) => h.run_id));
      expect(result.baseline_comparison?.limits).toMatchObject({ max_pct: 10, floor_ms: 5, history_median_ms: 100, upper_boundary: 0.995 });
      expect(vsBaseline.message).toContain(`history of ${runs} passing runs`);
    } else {
      expect(result.baseline_comparison?.run_ids).toEqual([runId(0)]);
      expect(vsBaseline.message).toContain(`only ${runs} passing run${runs === 1 ? '' : 's'} in the history (min_runs 5)`);
      expect(result.baseline_comparison?.limits).toMatchObject({ max_pct: 10, floor_ms: 5, run_drift_sd: 0.0953 });
    }
  });

  it('honours a smaller min_runs (never below 2)', () => {
    const c = steady(150);
    const decided = (minRuns: number, k: number) =>
      computeVerdict(input({ candidate: c.stats, candidateLatencies: c.latencies, baseline: { mode: 'history', minRuns, history: steadyHistory(k), previous: previousOf(100) } }))
        .baseline_comparison?.model;
    expect(decided(3, 3)).toBe('history');
    expect(decided(3, 2)).toBe('previous_run');
    expect(decided(1, 1)).toBe('previous_run');
  });

  it.each([
    { name: 'within the band of a steady history', cand: 103, history: [100, 102, 98, 101, 99], status: 'pass', reason: 'within_band' },
    { name: '50 % slower than a steady history', cand: 150, history: [100, 102, 98, 101, 99], status: 'fail', reason: 'above_band' },
    { name: '50 % slower than a drifting history (inside its wide band)', cand: 150, history: [60, 150, 80, 200, 100], status: 'pass', reason: 'within_band' },
    { name: 'above a constant history, under max_pct', cand: 109, history: [100, 100, 100, 100, 100], status: 'pass', reason: 'under_pct' },
    { name: 'above a constant history, over max_pct, under the floor', cand: 12, history: [10, 10, 10, 10, 10], status: 'pass', reason: 'under_floor' },
    { name: 'above a constant history by more than max_pct and the floor', cand: 116, history: [100, 100, 100, 100, 100], status: 'fail', reason: 'above_band' },
  ])('history: $name → $status ($reason)', ({ cand, history, status, reason }) => {
    const c = steady(cand);
    const result = computeVerdict(
      input({ candidate: c.stats, candidateLatencies: c.latencies, baseline: { mode: 'history', minRuns: 5, history: historyOf(history), previous: null } }),
    );
    expect(check(result, 'latency_vs_baseline')).toMatchObject({ status, details: { model: 'history', reason, candidate_p95_ms: cand } });
    expect(result.verdict).toBe(status);
  });

  it('history: a regression one run hid fails once it persists, naming the runs and where the streak starts', () => {
    // Thirty passing runs around 100 ms (±9 %), then two that passed the band at ~128 ms.
    const earlier = Array.from({ length: 30 }, (_, i) => [100, 88, 114, 93, 108, 90, 112, 96, 104, 95][i % 10]!);
    const slow = [127, 129];
    const lookback = historyOf([...slow, ...earlier]);
    const history = lookback.slice(0, 10);
    const c = steady(128);
    const result = computeVerdict(input({ candidate: c.stats, candidateLatencies: c.latencies, baseline: { mode: 'history', minRuns: 5, history, lookback, previous: null } }));
    const baseline = check(result, 'latency_vs_baseline');
    expect(baseline.status).toBe('fail');
    expect(baseline.details.reason).toBe('persisting');
    expect(baseline.message).toContain(`regression persisting over 3 runs since run ${lookback[1]!.run_id}`);
    expect((baseline.details.limits as { persisting: unknown }).persisting).toMatchObject({ status: 'fail', reason: 'persisting', run_ids: [RUN_ID, lookback[0]!.run_id, lookback[1]!.run_id], reference_runs: 30 });
    // Without the pooled runs' evidence (no lookback beyond the window) the same run passes the band.
    const alone = computeVerdict(input({ candidate: c.stats, candidateLatencies: c.latencies, baseline: { mode: 'history', minRuns: 5, history: historyOf([...earlier.slice(0, 10)]), previous: null } }));
    expect(check(alone, 'latency_vs_baseline').status).toBe('pass');
  });

  it('history: a candidate with no successful call is inconclusive', () => {
    const result = computeVerdict(
      input({ candidate: noSuccess(100), baseline: { mode: 'history', minRuns: 5, history: steadyHistory(5), previous: null } }),
    );
    expect(check(result, 'latency_vs_baseline')).toMatchObject({ status: 'inconclusive', details: { reason: 'no_samples' } });
  });

  // previous_success and run: the previous run's samples under the interval rule, with the 10 % run-drift allowance.
  it.each([
    { name: 'faster than the baseline', base: 100, cand: 90, status: 'pass', reason: 'under_floor' },
    { name: 'equal', base: 100, cand: 100, status: 'pass', reason: 'under_floor' },
    { name: '30 % slower: within the drift allowance the run cannot tell', base: 100, cand: 130, status: 'inconclusive', reason: 'straddles_limit' },
    { name: '60 % slower: beyond any drift', base: 100, cand: 160, status: 'fail', reason: 'above_limit' },
    { name: '60 % slower but under the floor', base: 5, cand: 8, status: 'pass', reason: 'under_floor' },
  ])('previous_success: $name ($cand ms vs $base ms) → $status', ({ base, cand, status, reason }) => {
    const c = steady(cand);
    const b = steady(base);
    const result = computeVerdict(input({ candidate: c.stats, candidateLatencies: c.latencies, baseline: previousRun(b.stats, b.latencies) }));
    const vsBaseline = check(result, 'latency_vs_baseline');
    expect(vsBaseline).toMatchObject({
      status,
      details: { baseline_run_id: BASELINE_RUN_ID, candidate_p95_ms: cand, baseline_p95_ms: base, vs_baseline_pct: driftPct(cand, base), max_pct: 10, model: 'previous_run', reason },
    });
    expect(result.baseline_comparison).toMatchObject({
      run_id: BASELINE_RUN_ID,
      candidate_p95_ms: cand,
      baseline_p95_ms: base,
      status,
      message: vsBaseline.message,
      model: 'previous_run',
      run_ids: [BASELINE_RUN_ID],
    });
    expect(vsBaseline.message).not.toContain('min_runs');
  });

  it('run mode names the chosen run as its model', () => {
    const b = steady(100);
    const result = computeVerdict(input({ baseline: previousRun(b.stats, b.latencies, 'run') }));
    expect(result.baseline_comparison?.model).toBe('run');
  });

  it('is inconclusive when the baseline run has no successful calls', () => {
    const result = computeVerdict(input({ candidate: stats({ p95: 150 }), baseline: previousRun(noSuccess(100)) }));
    const vsBaseline = check(result, 'latency_vs_baseline');
    expect(vsBaseline.status).toBe('inconclusive');
    expect(vsBaseline.message).toMatch(/no successful calls on the candidate or the baseline run/);
    expect(result.markdown_summary).toContain(
      '> **latency_vs_baseline is inconclusive**: nothing to compare (this does not fail the verdict).',
    );
    expect(result.verdict).toBe('pass');
  });

  it('has a null baseline_comparison without a baseline, or when the mode finds no run', () => {
    expect(computeVerdict(input()).baseline_comparison).toBeNull();
    expect(computeVerdict(input({ baseline: { mode: 'previous_success', previous: null } })).baseline_comparison).toBeNull();
  });
});

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
});

describe('computeVerdict: overall verdict', () => {
  const steadyEverything = (cand: number) => {
    const c = steady(cand);
    const r = steady(100);
    return input({
      candidate: c.stats,
      candidateLatencies: c.latencies,
      reference: reference(r.stats, r.latencies),
      baseline: { mode: 'history', minRuns: 5, history: [100, 101, 99, 100, 102].map((ms, i) => ({ run_id: `55555555-5555-4555-8555-00000000000${i}`, p95_us: ms * 1000 })), previous: null },
    });
  };

  it.each([
    { name: 'all checks pass', p95: 104, verdict: 'pass', exitCode: 0, failed: [] as string[] },
    { name: 'only the baseline regresses', p95: 115, verdict: 'fail', exitCode: 1, failed: ['latency_vs_baseline'] },
    { name: 'reference and baseline fail', p95: 150, verdict: 'fail', exitCode: 1, failed: ['latency_vs_reference', 'latency_vs_baseline'] },
    { name: 'every latency check fails', p95: 300, verdict: 'fail', exitCode: 1, failed: ['latency_p95', 'latency_vs_reference', 'latency_vs_baseline'] },
  ])('$name → $verdict, exit $exitCode', ({ p95, verdict, exitCode, failed }) => {
    const result = computeVerdict(steadyEverything(p95));
    expect(result.checks.map((c) => c.name)).toEqual(['latency_p95', 'latency_vs_reference', 'latency_vs_baseline', 'availability']);
    expect(result.checks.filter((c) => c.status === 'fail').map((c) => c.name)).toEqual(failed);
    expect(result.verdict).toBe(verdict);
    expect(result.exit_code).toBe(exitCode);
    expect(result.summary).toBe(
      failed.length === 0 ? `All 4 checks passed (p95 ${p95} ms over 2000 calls).` : `${failed.length} of 4 checks failed: ${failed.join(', ')}.`,
    );
  });

  it.each([
    { failOnInconclusive: undefined, verdict: 'pass', exitCode: 0 },
    { failOnInconclusive: false, verdict: 'pass', exitCode: 0 },
    { failOnInconclusive: true, verdict: 'fail', exitCode: 1 },
  ])('an inconclusive check with fail_on_inconclusive $failOnInconclusive → $verdict', ({ failOnInconclusive, verdict, exitCode }) => {
    // 100 calls, all successful: availability is inconclusive against 99 %, every other check passes.
    const result = computeVerdict(input({ thresholds: { ...THRESHOLDS, fail_on_inconclusive: failOnInconclusive } }));
    expect(check(result, 'availability').status).toBe('inconclusive');
    expect(result.verdict).toBe(verdict);
    expect(result.exit_code).toBe(exitCode);
    expect(result.summary).toBe(
      verdict === 'pass'
        ? '1 of 2 checks passed, 1 inconclusive (availability); none failed (p95 100 ms over 100 calls).'
        : '1 of 2 checks failed: availability (inconclusive, fail_on_inconclusive).',
    );
  });

  it.each([
    { status: 'failed' as const, reason: 'target exhausted its retries', summary: 'Run failed: target exhausted its retries; nothing to judge.' },
    { status: 'cancelled' as const, reason: null, summary: 'Run cancelled: no reason recorded; nothing to judge.' },
  ])('a $status run is an error with exit code 2 and no checks', ({ status, reason, summary }) => {
    const result = computeVerdict({ ...steadyEverything(100), run: { id: RUN_ID, status, failure_reason: reason } });
    expect(result).toMatchObject({
      verdict: 'error',
      exit_code: 2,
      checks: [],
      reference_comparison: null,
      baseline_comparison: null,
      summary,
      thresholds: THRESHOLDS,
    });
    expect(result.markdown_summary).toContain('ERROR');
    expect(result.markdown_summary).toContain(summary);
    expect(result.markdown_summary).not.toContain('| Check |');
  });

  it.each(['success', 'failed', 'cancelled'] as const)('echoes the thresholds for a %s run', (status) => {
    const thresholds: Thresholds = {
      latency_p95_max_ms: 321,
      latency_regression_max_pct: 7.5,
      latency_vs_reference_max_pct: 12,
      correctness_min_pct: 98,
      correctness_enabled: true,
      fail_on_inconclusive: true,
      success_rate_min_pct: 95,
    };
    const result = computeVerdict(input({ thresholds, run: { id: RUN_ID, status, failure_reason: null } }));
    expect(result.thresholds).toEqual(thresholds);
  });
});

describe('computeVerdict: markdown_summary', () => {
  it('has a heading, one table row per check and rows of candidate and reference stats with intervals', () => {
    const c = steady(150, 2000);
    const r = steady(100, 2000);
    const b = steady(145, 2000);
    const result = computeVerdict(
      input({ candidate: c.stats, candidateLatencies: c.latencies, reference: reference(r.stats, r.latencies), baseline: previousRun(b.stats, b.latencies) }),
    );
    const lines = result.markdown_summary.split('\n');
    expect(lines[0]).toBe('### ❌ mainnet smoke: FAIL');
    expect(lines).toContain(result.summary);
    expect(lines).toContain('| Check | Status | Result |');
    expect(lines.some((l) => /^\| latency_p95 \| ✅ pass \| p95 150 ms \[\d+–\d+\] <= 200 ms \|$/.test(l))).toBe(true);
    expect(lines.some((l) => l.startsWith('| latency_vs_reference | ❌ fail | candidate p95 150 ms [') && l.includes('(+50%, 95% interval'))).toBe(true);
    expect(lines.some((l) => l.startsWith('| latency_vs_baseline | ✅ pass | candidate p95 150 ms [') && l.includes('vs baseline 145 ms ['))).toBe(true);
    expect(lines).toContain('| Endpoint | Calls | Failed | p50 [95% interval] | p95 [95% interval] | p99 [95% interval] |');
    expect(lines.some((l) => /^\| candidate \| 2000 \| 0 \| \d+ ms \[\d+–\d+\] \| 150 ms \[145–157\] \| \d+ ms \[\d+–\d+\] \|$/.test(l))).toBe(true);
    expect(lines.some((l) => l.startsWith('| reference (trusted reference) |') && l.includes('| 100 ms [96–105] |'))).toBe(true);
    expect(result.markdown_summary).not.toContain('Top mismatches');
  });

  it('never shows a point outside its own interval: a sub-2 ms p95 whose statistic rounds to a whole 2 ms', () => {
    // The run's stats are whole ms (SQL rounds the p95 of 1.55 ms up to 2); the intervals carry one decimal.
    const c = steady(1.55, 2000);
    const r = steady(1.45, 2000);
    const rounded = (s: RunStats): RunStats => ({
      ...s,
      latency: { ...s.latency, successful: { ...s.latency.successful, p95_ms: Math.round(s.latency.successful.p95_ms) } },
    });
    const result = computeVerdict(input({ candidate: rounded(c.stats), candidateLatencies: c.latencies, reference: reference(rounded(r.stats), r.latencies) }));
    const shown = [result.markdown_summary, ...result.checks.map((check) => check.message)].join('\n');
    const triples = [...shown.matchAll(/([\d.]+) ms \[([\d.]+)–([\d.]+|∞)\]/g)];
    expect(triples.length).toBeGreaterThanOrEqual(8);
    for (const [text, point, lower, upper] of triples) {
      expect(Number(lower), text).toBeLessThanOrEqual(Number(point));
      if (upper !== '∞') expect(Number(point), text).toBeLessThanOrEqual(Number(upper));
    }
    expect(result.markdown_summary).not.toContain('| 2 ms [1.5–1.6] |');
  });

  it('explains an inconclusive check in one sentence', () => {
    const result = computeVerdict(input());
    expect(result.markdown_summary).toContain('| availability | ❔ inconclusive |');
    const explanation = result.markdown_summary.split('\n').filter((l) => l.startsWith('> **availability is inconclusive**'));
    expect(explanation).toEqual([
      '> **availability is inconclusive**: the interval straddles the minimum, so this run cannot tell; about 381 calls would decide (this does not fail the verdict).',
    ]);
  });

  it('lists the top mismatches for a pull-request reviewer', () => {
    const mismatch = { method: 'eth_getBalance', params: ['0xaa', '0x10'], candidate_hash: 'b'.repeat(32), reference_hash: 'a'.repeat(32) };
    const result = computeVerdict(
      input({
        thresholds: { ...THRESHOLDS, correctness_enabled: true, correctness_min_pct: 99 },
        reference: reference(stats({ p95: 100 })),
        correctness: { ...emptyTally(), matched: 90, mismatched: 10, mismatches: Array(10).fill(mismatch) },
      }),
    );
    const listed = result.markdown_summary.split('\n').filter((l) => l.startsWith('- `eth_getBalance`'));
    expect(listed).toHaveLength(5);
    expect(listed[0]).toBe('- `eth_getBalance` `["0xaa","0x10"]`: candidate `bbbbbbbbbbbb` ≠ reference `aaaaaaaaaaaa`');
  });

  it('counts the mismatches of every method, most first, beside the examples', () => {
    const result = computeVerdict(
      input({
        thresholds: { ...THRESHOLDS, correctness_enabled: true, correctness_min_pct: 99 },
        reference: reference(stats({ p95: 100 })),
        correctness: {
          ...emptyTally(),
          matched: 80,
          mismatched: 51,
          mismatchesByMethod: [
            { method: 'eth_getBalance', mismatched: 11, compared: 60 },
            { method: 'eth_getBlockReceipts', mismatched: 40, compared: 40 },
          ],
        },
      }),
    );
    expect(check(result, 'correctness').details.mismatches_by_method).toEqual([
      { method: 'eth_getBlockReceipts', mismatched: 40, compared: 40 },
      { method: 'eth_getBalance', mismatched: 11, compared: 60 },
    ]);
    expect(result.markdown_summary).toContain('Mismatches by method: `eth_getBlockReceipts` 40 of 40, `eth_getBalance` 11 of 60.');
  });

  it('starts with a pass heading when everything passes', () => {
    expect(computeVerdict(input()).markdown_summary.split('\n')[0]).toBe('### ✅ mainnet smoke: PASS');
  });
});
