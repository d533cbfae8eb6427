import { describe, expect, it } from 'vitest';
import type { CandidateFreshness, Freshness } from '../../../src/domain/freshness';
import { computeVerdict, type FreshnessWatchInput } from '../../../src/domain/verdict';
import { showMsInterval } from '../../../src/domain/interval-display';
import { check, input, reference, steady, THRESHOLDS } from './fixtures';

function candidate(over: Partial<CandidateFreshness> & { lagsMs?: number[] } = {}): CandidateFreshness {
  const { lagsMs = Array.from({ length: 100 }, () => 300), ...rest } = over;
  return {
    targetId: 'cand',
    announced: 100,
    reorgs: 0,
    duplicates: 0,
    reconnects: 0,
    disconnects: 0,
    dropped: 0,
    flooding: false,
    notStored: 0,
    outOfRange: 0,
    longestStallMs: 1_300,
    judged: 100,
    missed: 0,
    late: 0,
    unjudged: 2,
    lagsUs: Float64Array.from(lagsMs.map((ms) => ms * 1000)).sort(),
    ...rest,
  };
}

function watch(c: CandidateFreshness, gaps: Freshness['observerGaps'] = []): FreshnessWatchInput {
  return {
    via: 'subscribe',
    duration_s: 120,
    grace_ms: 2_000,
    late_ms: 1_000,
    poll_interval_ms: 250,
    measured: {
      reference: { targetId: 'ref', announced: 102, heads: 102, reorgs: 0, duplicates: 0, reconnects: 0, disconnects: 0, dropped: 0, flooding: false, notStored: 0, outOfRange: 0, longestStallMs: 1_100 },
      candidates: [c],
      observerGaps: gaps,
    },
    endpoints: { cand: { endpoint_id: 'e-cand', endpoint_name: 'candidate' }, ref: { endpoint_id: 'e-ref', endpoint_name: 'reference' } },
  };
}

const r = steady(100);
const judge = (c: CandidateFreshness, thresholds = {}, gaps: Freshness['observerGaps'] = []) =>
  computeVerdict(input({ reference: reference(r.stats, r.latencies), thresholds: { ...THRESHOLDS, ...thresholds }, freshness: watch(c, gaps) }));

describe('freshness_vs_reference', () => {
  it('is absent without a head watch, and so is freshness_comparison', () => {
    const result = computeVerdict(input({ reference: reference(r.stats, r.latencies) }));
    expect(result.checks.map((c) => c.name)).not.toContain('freshness_vs_reference');
    expect(result.freshness_comparison).toBeUndefined();
  });

  it.each([
    { name: 'lag p95 300 ms under 500 ms over 100 heads', c: candidate(), thresholds: {}, status: 'pass', reason: 'within_limits' },
    { name: 'lag p95 300 ms over a 200 ms limit', c: candidate(), thresholds: { head_lag_p95_max_ms: 200 }, status: 'fail', reason: 'lag_above_limit' },
    { name: 'lag p95 of 8 heads cannot be bounded from above', c: candidate({ judged: 8, lagsMs: [300, 300, 300, 300, 300, 300, 300, 300] }), thresholds: {}, status: 'inconclusive', reason: 'lag_straddles_limit' },
    { name: '3 of 100 missed over 1 %', c: candidate({ missed: 3, lagsMs: Array.from({ length: 97 }, () => 300) }), thresholds: {}, status: 'fail', reason: 'missed_above_limit' },
    { name: '3 of 100 missed under 5 %', c: candidate({ missed: 3, lagsMs: Array.from({ length: 97 }, () => 300) }), thresholds: { missed_heads_max_pct: 5 }, status: 'pass', reason: 'within_limits' },
    { name: 'a 40 s stall over 30 s', c: candidate({ longestStallMs: 40_000 }), thresholds: {}, status: 'fail', reason: 'stall_above_limit' },
    { name: 'nothing judged', c: candidate({ judged: 0, lagsMs: [] }), thresholds: {}, status: 'inconclusive', reason: 'nothing_judged' },
    { name: 'a flood with heads within limits', c: candidate({ flooding: true, notStored: 5_000 }), thresholds: {}, status: 'fail', reason: 'flooding' },
    { name: 'a head above 2^63 − 1 with heads within limits', c: candidate({ outOfRange: 1 }), thresholds: {}, status: 'fail', reason: 'head_out_of_range' },
    { name: 'a late candidate that also sent a head above 2^63 − 1 keeps its own reason', c: candidate({ missed: 30, outOfRange: 3, lagsMs: Array.from({ length: 70 }, () => 300) }), thresholds: {}, status: 'fail', reason: 'missed_above_limit' },
    { name: 'a flood while nothing could be judged still fails', c: candidate({ judged: 0, lagsMs: [], flooding: true, notStored: 1 }), thresholds: {}, status: 'fail', reason: 'flooding' },
  ])('$name → $status', ({ c, thresholds, status, reason }) => {
    const result = judge(c, thresholds);
    const judged = check(result, 'freshness_vs_reference');
    expect(judged.status).toBe(status);
    expect(judged.details.candidates[0]).toMatchObject({ endpoint_id: 'e-cand', reason });
    expect(result.freshness_comparison).toMatchObject({ status, candidates: [{ endpoint_name: 'candidate', status, reason }] });
    if (status === 'fail') expect(result.verdict).toBe('fail');
  });

  it('names a flooding endpoint in the message and in the details', () => {
    const judged = check(judge(candidate({ flooding: true, notStored: 12_345 })), 'freshness_vs_reference');
    expect(judged.message).toContain('candidate: ');
    expect(judged.message).toContain('flooding: 12345 heads beyond the chain\'s block rate not stored');
    expect(judged.details.candidates[0]).toMatchObject({ flooding: true, reason: 'flooding' });
  });

  it('reports the lag with intervals, the counts and the observer gaps, and the Markdown shows them', () => {
    const result = judge(candidate({ missed: 1, late: 2, reorgs: 1, reconnects: 3, lagsMs: Array.from({ length: 99 }, (_, i) => 250 + i) }), { missed_heads_max_pct: 5 }, [
      { fromMs: 4_500.4, toMs: 7_000.2 },
    ]);
    const f = result.freshness_comparison!;
    expect(f.candidates[0]).toMatchObject({ judged: 100, missed: 1, missed_pct: 1, late: 2, reorgs: 1, reconnects: 3, lags: 99 });
    expect(f.candidates[0]!.lag_ms!.p50.point).toBe(299);
    expect(f.observer_gaps).toEqual([{ from_ms: 4_500, to_ms: 7_000 }]);
    expect(f.resolution_ms).toBeNull();
    expect(result.markdown_summary).toContain('| candidate | 299');
    expect(result.markdown_summary).toContain('1 of 100 (1%)');
    expect(result.markdown_summary).toContain('The observer was gone from 4.5 s to 7.0 s');
  });
});

describe('freshness message: its interval is rounded like the table and JUnit (outwards, issue 32)', () => {
  it('writes the lag p95 interval with showMsInterval, never each bound to the nearest', () => {
    // Lags from 240.6 ms in 0.17 ms steps: the p95's bounds fall between whole ms.
    const result = judge(candidate({ lagsMs: Array.from({ length: 100 }, (_, i) => 240.6 + i * 0.17) }), {});
    const judged = check(result, 'freshness_vs_reference');
    const p95 = result.freshness_comparison!.candidates[0]!.lag_ms!.p95;
    const outwards = `lag p95 ${showMsInterval(p95)}`;
    const nearest = `[${Math.round(p95.lower)}–${Math.round(p95.upper!)}]`;
    expect(outwards).not.toContain(nearest);
    expect(judged.message).toContain(outwards);
  });
});
