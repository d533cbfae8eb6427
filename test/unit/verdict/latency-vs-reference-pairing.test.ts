import { describe, expect, it } from 'vitest';
import { nearestRank, orderStatisticRanks } from '../../../src/domain/statistics/quantile-interval';
import type { RunStats } from '../../../src/domain/run-stats';
import { computeVerdict, type PairedLatencies, type Thresholds, type VerdictInput } from '../../../src/domain/verdict';

// latency_vs_reference with and without pairing (issue 11 item 4): the paired interval, the
// reported skew, and what an unpaired comparison says about why it is unpaired.

const THRESHOLDS: Thresholds = {
  latency_p95_max_ms: 10_000,
  latency_regression_max_pct: 10,
  latency_vs_reference_max_pct: 20,
  correctness_min_pct: 99.9,
  correctness_enabled: false,
};

function random(seed: number): () => number {
  let t = seed >>> 0;
  return () => {
    t = (t + 0x6d2b79f5) >>> 0;
    let x = Math.imul(t ^ (t >>> 15), t | 1);
    x ^= x + Math.imul(x ^ (x >>> 7), x | 61);
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

/** n seqs whose latencies (µs) share a per-instant factor of weight `shared`; the candidate `ratio` times slower. */
function pairs(n: number, shared: number, ratio: number, scaleUs = 40_000, spread = 1): { c: Float64Array; r: Float64Array } {
  const next = random(7);
  const c = new Float64Array(n);
  const r = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const common = next();
    c[i] = Math.round(scaleUs * ratio * Math.exp(spread * (shared * common + (1 - shared) * next())));
    r[i] = Math.round(scaleUs * Math.exp(spread * (shared * common + (1 - shared) * next())));
  }
  return { c, r };
}

const sorted = (a: Float64Array) => Float64Array.from(a).sort();

function statsOf(latencies: Float64Array): RunStats {
  const s = sorted(latencies);
  const n = s.length;
  const ms = (p: number) => (n === 0 ? 0 : Math.round(s[nearestRank(n, p) - 1]! / 1000));
  const summary = { avg_ms: ms(0.5), p50_ms: ms(0.5), p95_ms: ms(0.95), p99_ms: ms(0.99), sample_count: n };
  return { calls: { total: n, successful: n, failed: 0 }, tests: { successful: 1, failed: 0 }, latency: { successful: summary, all: summary } };
}

/** What db/paired-samples.ts hands over for these pairs (sparse sorted sides and counts), with a given skew. */
function pairedOf(c: Float64Array, r: Float64Array, skewUs = { p50: 120, p95: 380, max: 2_400 }): PairedLatencies {
  const n = c.length;
  const cs = sorted(c);
  const rs = sorted(r);
  const sparse = (s: Float64Array) => {
    const out: { length: number; [rank: number]: number } = { length: n };
    const { lower, upper } = orderStatisticRanks(n, 0.95);
    for (const k of [nearestRank(n, 0.95), lower, upper]) if (k >= 1 && k <= n) out[k - 1] = s[k - 1]!;
    return out;
  };
  const counts = { n, below: 0, candidateBelow: 0, referenceBelow: 0 };
  if (n > 0) {
    const qc = cs[nearestRank(n, 0.95) - 1]!;
    const qr = rs[nearestRank(n, 0.95) - 1]!;
    for (let i = 0; i < n; i++) {
      if (c[i]! <= qc) counts.candidateBelow++;
      if (r[i]! <= qr) counts.referenceBelow++;
      if (c[i]! <= qc && r[i]! <= qr) counts.below++;
    }
  }
  return { pairs: n, candidate: sparse(cs), reference: sparse(rs), counts, skew_us: skewUs };
}

function input(c: Float64Array, r: Float64Array, pairing: NonNullable<VerdictInput['reference']>['pairing']): VerdictInput {
  return {
    run: { id: '00000000-0000-4000-8000-000000000001', status: 'success', failure_reason: null },
    suiteName: 'paired',
    thresholds: THRESHOLDS,
    candidate: statsOf(c),
    candidateLatencies: sorted(c),
    reference: { endpoint_id: 'ref', endpoint_name: 'reference', stats: statsOf(r), latencies: sorted(r), pairing },
    baseline: null,
  };
}

const vsReference = (v: ReturnType<typeof computeVerdict>) => v.checks.find((c) => c.name === 'latency_vs_reference')!;

describe('latency_vs_reference: paired and unpaired', () => {
  it.each([
    { name: 'closed loop', pairing: { method: 'unpaired', reason: 'closed_loop' } as const, says: 'unpaired: closed loop', reason: 'closed_loop' },
    { name: 'several candidates', pairing: { method: 'unpaired', reason: 'several_candidates' } as const, says: 'unpaired: several candidates', reason: 'several_candidates' },
    { name: 'no shared anchor', pairing: { method: 'unpaired', reason: 'not_anchored' } as const, says: 'unpaired: probed without a shared schedule', reason: 'not_anchored' },
    { name: 'nothing said', pairing: undefined, says: 'unpaired)', reason: null },
  ])('an unpaired comparison says why: $name', ({ pairing, says, reason }) => {
    const { c, r } = pairs(2_000, 0.9, 1);
    const verdict = computeVerdict(input(c, r, pairing));
    const check = vsReference(verdict);
    expect(check.message).toContain(says);
    expect(check.details).toMatchObject({ method: 'unpaired', pairing: { method: 'unpaired', reason, pairs: null, skew_p95_ms: null } });
    expect(verdict.reference_comparison!.pairing).toEqual(check.details.pairing);
    expect(verdict.reference_comparison!.latency.method).toBe('unpaired');
    expect(verdict.markdown_summary).toContain(says);
  });

  it('a paired comparison reports the pairs, the send skew and the correlation', () => {
    const { c, r } = pairs(2_000, 0.9, 1);
    const verdict = computeVerdict(input(c, r, { method: 'paired', latencies: pairedOf(c, r) }));
    const check = vsReference(verdict);
    expect(check.status).toBe('pass');
    expect(check.message).toContain('paired over 2,000 seqs, send skew p95 0.38 ms');
    expect(verdict.reference_comparison!.pairing).toEqual({
      method: 'paired',
      reason: null,
      pairs: 2_000,
      compared: 2_000,
      skew_p50_ms: 0.12,
      skew_p95_ms: 0.38,
      skew_max_ms: 2.4,
      correlation: expect.any(Number),
    });
    expect(verdict.reference_comparison!.pairing!.correlation!).toBeGreaterThan(0.5);
    expect(verdict.reference_comparison!.latency.method).toBe('paired');
    expect(check.details.method).toBe('paired');
  });

  // What pairing is for: the moment both calls shared cancels, so a real difference is decided
  // where independent samples of the same calls cannot tell.
  it.each([
    { name: '25 % slower, limit 20 %', ratio: 1.25, paired: 'fail', unpaired: 'inconclusive' },
    { name: '15 % slower, limit 20 %', ratio: 1.15, paired: 'pass', unpaired: 'inconclusive' },
    { name: 'equal', ratio: 1, paired: 'pass', unpaired: 'pass' },
  ])('decides on the paired interval: $name', ({ ratio, paired, unpaired }) => {
    // A wide spread from moment to moment (×e⁴), nearly all of it shared by the two calls of a seq.
    const { c, r } = pairs(1_000, 0.97, ratio, 40_000, 4);
    const pairedVerdict = computeVerdict(input(c, r, { method: 'paired', latencies: pairedOf(c, r) }));
    const unpairedVerdict = computeVerdict(input(c, r, { method: 'unpaired', reason: 'closed_loop' }));
    expect(vsReference(pairedVerdict).status).toBe(paired);
    expect(vsReference(unpairedVerdict).status).toBe(unpaired);
    const width = (v: typeof pairedVerdict) => {
      const i = vsReference(v).details.vs_reference_interval_pct as { lower: number; upper: number };
      return i.upper - i.lower;
    };
    expect(width(pairedVerdict)).toBeLessThan(width(unpairedVerdict) / 2);
  });

  it('is inconclusive (no_samples) when no seq succeeded on both sides, and says how many were paired', () => {
    const { c, r } = pairs(500, 0.5, 1);
    const latencies = { ...pairedOf(new Float64Array(0), new Float64Array(0)), pairs: 500 };
    const check = vsReference(computeVerdict(input(c, r, { method: 'paired', latencies })));
    expect(check.status).toBe('inconclusive');
    expect(check.details).toMatchObject({ reason: 'no_samples', pairing: { method: 'paired', pairs: 500, compared: 0 } });
  });

  it('passes under the ms floor whatever the paired percentage', () => {
    // 2 ms vs 1 ms: +100 %, but 1 ms slower is under the 5 ms floor.
    const { c, r } = pairs(2_000, 0.97, 2, 1_000);
    const check = vsReference(computeVerdict(input(c, r, { method: 'paired', latencies: pairedOf(c, r) })));
    expect(check).toMatchObject({ status: 'pass', details: { reason: 'under_floor', method: 'paired' } });
  });
});
