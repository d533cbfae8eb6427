import { describe, expect, it } from 'vitest';
import { computeVerdict, type MethodLatency } from '../../../src/domain/verdict';
import { check, input, noSuccess, reference, REFERENCE_ENDPOINT_ID, stats, steady } from './fixtures';

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
