import { describe, expect, it } from 'vitest';
import type { RunStats } from '../../src/domain/stats';
import { emptyTally, type CorrectnessTally } from '../../src/domain/correctness';
import { computeVerdict, driftPct, type MethodLatency, type Thresholds, type VerdictInput } from '../../src/domain/verdict';

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

/** No successful call: what the stats query returns when every call failed (or none was made). */
function noSuccess(calls: number): RunStats {
  return stats({ p50: 0, p95: 0, p99: 0, calls, failed: calls });
}

const RUN_ID = '11111111-1111-4111-8111-111111111111';
const BASELINE_RUN_ID = '22222222-2222-4222-8222-222222222222';
const REFERENCE_ENDPOINT_ID = '33333333-3333-4333-8333-333333333333';

function input(overrides: Partial<VerdictInput> = {}): VerdictInput {
  return {
    run: { id: RUN_ID, status: 'success', failure_reason: null },
    suiteName: 'mainnet smoke',
    thresholds: THRESHOLDS,
    regressionMinMs: 5,
    candidate: stats({ p95: 100 }),
    reference: null,
    baseline: null,
    ...overrides,
  };
}

function reference(s: RunStats): NonNullable<VerdictInput['reference']> {
  return { endpoint_id: REFERENCE_ENDPOINT_ID, endpoint_name: 'trusted reference', stats: s };
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

describe('computeVerdict: latency_p95', () => {
  it.each([
    { name: 'well under the threshold', p95: 50, status: 'pass', message: 'p95 50 ms <= 200 ms' },
    { name: 'exactly at the threshold', p95: 200, status: 'pass', message: 'p95 200 ms <= 200 ms' },
    { name: 'one ms above the threshold', p95: 201, status: 'fail', message: 'p95 201 ms > 200 ms' },
    { name: 'far above the threshold', p95: 5_000, status: 'fail', message: 'p95 5000 ms > 200 ms' },
  ])('p95 $name → $status', ({ p95, status, message }) => {
    const result = computeVerdict(input({ candidate: stats({ p95 }) }));
    expect(result.checks).toEqual([{ name: 'latency_p95', status, message, details: { p95, threshold: 200 } }]);
    expect(result.verdict).toBe(status);
    expect(result.exit_code).toBe(status === 'pass' ? 0 : 1);
  });

  it.each([
    { name: 'every call failed', candidate: noSuccess(100) },
    { name: 'zero samples', candidate: noSuccess(0) },
  ])('fails with "no successful calls" when $name (a p95 of 0 ms must not pass)', ({ candidate }) => {
    const result = computeVerdict(input({ candidate }));
    const p95 = check(result, 'latency_p95');
    expect(p95.status).toBe('fail');
    expect(p95.message).toMatch(/no successful calls/);
    expect(p95.details).toEqual({ p95: 0, threshold: 200 });
    expect(result.verdict).toBe('fail');
    expect(result.exit_code).toBe(1);
  });
});

describe('computeVerdict: latency_vs_reference', () => {
  it.each([
    { name: 'candidate faster', candidateP95: 80, referenceP95: 100, pct: -20, status: 'pass' },
    { name: 'equal', candidateP95: 100, referenceP95: 100, pct: 0, status: 'pass' },
    { name: 'slower, exactly at max', candidateP95: 120, referenceP95: 100, pct: 20, status: 'pass' },
    { name: 'slower, one ms above max', candidateP95: 121, referenceP95: 100, pct: 21, status: 'fail' },
    { name: 'slower by a tenth above max', candidateP95: 1201, referenceP95: 1000, pct: 20.1, status: 'fail' },
    { name: 'one-decimal rounding', candidateP95: 4, referenceP95: 3, pct: 33.3, status: 'fail' },
    { name: 'reference p95 of 0 ms, candidate 0 ms', candidateP95: 0, referenceP95: 0, pct: 0, status: 'pass' },
    { name: 'reference p95 of 0 ms counts as 1 ms', candidateP95: 3, referenceP95: 0, pct: 300, status: 'fail' },
  ])('$name: $candidateP95 ms vs $referenceP95 ms → $pct % ($status)', ({ candidateP95, referenceP95, pct, status }) => {
    const candidate = stats({ p50: 40, p95: candidateP95, p99: 150 });
    const result = computeVerdict(input({ candidate, reference: reference(stats({ p95: referenceP95 })) }));

    expect(check(result, 'latency_vs_reference')).toMatchObject({
      status,
      details: { candidate_p95_ms: candidateP95, reference_p95_ms: referenceP95, vs_reference_pct: pct, max_pct: 20 },
    });
    expect(result.reference_comparison).toEqual({
      endpoint_id: REFERENCE_ENDPOINT_ID,
      endpoint_name: 'trusted reference',
      status,
      head_lag_blocks: null,
      latency: {
        candidate_p50_ms: 40,
        candidate_p95_ms: candidateP95,
        candidate_p99_ms: 150,
        reference_p95_ms: referenceP95,
        vs_reference_pct: pct,
        by_method: [],
        status,
        message: expect.any(String),
      },
    });
    expect(result.reference_comparison?.latency.message).toBe(check(result, 'latency_vs_reference').message);
  });

  it('shows the drift with its sign in the message', () => {
    const faster = computeVerdict(input({ candidate: stats({ p95: 80 }), reference: reference(stats({ p95: 100 })) }));
    const slower = computeVerdict(input({ candidate: stats({ p95: 150 }), reference: reference(stats({ p95: 100 })) }));
    expect(check(faster, 'latency_vs_reference').message).toBe('candidate p95 80 ms vs reference 100 ms (-20%, max +20%)');
    expect(check(slower, 'latency_vs_reference').message).toBe('candidate p95 150 ms vs reference 100 ms (+50%, max +20%)');
  });

  it.each([
    { name: 'the candidate', candidate: noSuccess(50), ref: stats({ p95: 100 }) },
    { name: 'the reference', candidate: stats({ p95: 100 }), ref: noSuccess(50) },
  ])('fails when $name has no successful calls (nothing to compare)', ({ candidate, ref }) => {
    const result = computeVerdict(input({ candidate, reference: reference(ref) }));
    const vsReference = check(result, 'latency_vs_reference');
    expect(vsReference.status).toBe('fail');
    expect(vsReference.message).toMatch(/no successful calls/);
    expect(result.reference_comparison?.status).toBe('fail');
    expect(result.verdict).toBe('fail');
  });

  it('has no latency_vs_reference check and a null reference_comparison without a reference', () => {
    const result = computeVerdict(input());
    expect(result.checks.map((c) => c.name)).toEqual(['latency_p95']);
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
        baseline: { run_id: BASELINE_RUN_ID, stats: stats({ p95: 100 }) },
        correctness: tally({ matched: 1 }),
      }),
    );
    expect(result.checks.map((c) => c.name)).toEqual(['latency_p95', 'latency_vs_reference', 'correctness', 'latency_vs_baseline']);
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
  // Fail only when the candidate p95 exceeds both baseline × (1 + max_pct/100) and baseline + regressionMinMs.
  it.each([
    { name: 'faster than baseline', base: 100, cand: 90, maxPct: 10, minMs: 5, pct: -10, status: 'pass' },
    { name: 'exactly at baseline × (1 + pct)', base: 100, cand: 110, maxPct: 10, minMs: 5, pct: 10, status: 'pass' },
    { name: 'above both limits', base: 100, cand: 111, maxPct: 10, minMs: 5, pct: 11, status: 'fail' },
    { name: 'above the pct limit, within the noise floor', base: 10, cand: 14, maxPct: 20, minMs: 5, pct: 40, status: 'pass' },
    { name: 'above the pct limit, exactly at the noise floor', base: 10, cand: 15, maxPct: 20, minMs: 5, pct: 50, status: 'pass' },
    { name: 'above the pct limit, one ms above the noise floor', base: 10, cand: 16, maxPct: 20, minMs: 5, pct: 60, status: 'fail' },
    { name: 'above the noise floor, within the pct limit', base: 100, cand: 108, maxPct: 10, minMs: 5, pct: 8, status: 'pass' },
    { name: 'noise floor of 0 ms', base: 10, cand: 13, maxPct: 20, minMs: 0, pct: 30, status: 'fail' },
    { name: 'baseline p95 of 0 ms, within the noise floor', base: 0, cand: 5, maxPct: 10, minMs: 5, pct: 500, status: 'pass' },
    { name: 'baseline p95 of 0 ms, above the noise floor', base: 0, cand: 6, maxPct: 10, minMs: 5, pct: 600, status: 'fail' },
  ])('$name: $cand ms vs $base ms (max $maxPct %, floor $minMs ms) → $status', ({ base, cand, maxPct, minMs, pct, status }) => {
    const result = computeVerdict(
      input({
        thresholds: { ...THRESHOLDS, latency_regression_max_pct: maxPct },
        regressionMinMs: minMs,
        candidate: stats({ p95: cand }),
        baseline: { run_id: BASELINE_RUN_ID, stats: stats({ p95: base }) },
      }),
    );
    const vsBaseline = check(result, 'latency_vs_baseline');
    expect(vsBaseline).toMatchObject({
      status,
      details: {
        baseline_run_id: BASELINE_RUN_ID,
        candidate_p95_ms: cand,
        baseline_p95_ms: base,
        vs_baseline_pct: pct,
        max_pct: maxPct,
      },
    });
    expect(result.baseline_comparison).toEqual({
      run_id: BASELINE_RUN_ID,
      candidate_p95_ms: cand,
      baseline_p95_ms: base,
      vs_baseline_pct: pct,
      status,
      message: vsBaseline.message,
    });
    expect(result.verdict).toBe(status);
  });

  it('passes with an explanation when the baseline run has no successful calls', () => {
    const result = computeVerdict(
      input({ candidate: stats({ p95: 150 }), baseline: { run_id: BASELINE_RUN_ID, stats: noSuccess(100) } }),
    );
    const vsBaseline = check(result, 'latency_vs_baseline');
    expect(vsBaseline.status).toBe('pass');
    expect(vsBaseline.message).toMatch(/baseline run has no successful calls/);
    expect(result.baseline_comparison).toMatchObject({ run_id: BASELINE_RUN_ID, status: 'pass' });
    expect(result.verdict).toBe('pass');
  });

  it('fails when the candidate has no successful calls to compare with the baseline', () => {
    const result = computeVerdict(
      input({ candidate: noSuccess(100), baseline: { run_id: BASELINE_RUN_ID, stats: stats({ p95: 100 }) } }),
    );
    expect(check(result, 'latency_vs_baseline').status).toBe('fail');
  });

  it('has a null baseline_comparison without a baseline', () => {
    expect(computeVerdict(input()).baseline_comparison).toBeNull();
  });
});

describe('computeVerdict: overall verdict', () => {
  const everything = {
    reference: reference(stats({ p95: 100 })),
    baseline: { run_id: BASELINE_RUN_ID, stats: stats({ p95: 100 }) },
  };

  it.each([
    { name: 'all checks pass', p95: 105, verdict: 'pass', exitCode: 0, failed: [] as string[] },
    { name: 'only the baseline regresses', p95: 115, verdict: 'fail', exitCode: 1, failed: ['latency_vs_baseline'] },
    {
      name: 'reference and baseline fail',
      p95: 150,
      verdict: 'fail',
      exitCode: 1,
      failed: ['latency_vs_reference', 'latency_vs_baseline'],
    },
    {
      name: 'every check fails',
      p95: 300,
      verdict: 'fail',
      exitCode: 1,
      failed: ['latency_p95', 'latency_vs_reference', 'latency_vs_baseline'],
    },
  ])('$name → $verdict, exit $exitCode', ({ p95, verdict, exitCode, failed }) => {
    const result = computeVerdict(input({ ...everything, candidate: stats({ p95 }) }));
    expect(result.checks.map((c) => c.name)).toEqual(['latency_p95', 'latency_vs_reference', 'latency_vs_baseline']);
    expect(result.checks.filter((c) => c.status === 'fail').map((c) => c.name)).toEqual(failed);
    expect(result.verdict).toBe(verdict);
    expect(result.exit_code).toBe(exitCode);
    expect(result.summary).toBe(
      failed.length === 0
        ? `All 3 checks passed (p95 ${p95} ms over 100 calls).`
        : `${failed.length} of 3 checks failed: ${failed.join(', ')}.`,
    );
  });

  it.each([
    { status: 'failed' as const, reason: 'target exhausted its retries', summary: 'Run failed: target exhausted its retries; nothing to judge.' },
    { status: 'cancelled' as const, reason: null, summary: 'Run cancelled: no reason recorded; nothing to judge.' },
  ])('a $status run is an error with exit code 2 and no checks', ({ status, reason, summary }) => {
    const result = computeVerdict(
      input({ ...everything, run: { id: RUN_ID, status, failure_reason: reason }, candidate: stats({ p95: 100 }) }),
    );
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
    };
    const result = computeVerdict(input({ thresholds, run: { id: RUN_ID, status, failure_reason: null } }));
    expect(result.thresholds).toEqual(thresholds);
  });
});

describe('computeVerdict: markdown_summary', () => {
  it('has a heading, one table row per check and rows of candidate and reference stats', () => {
    const result = computeVerdict(
      input({
        candidate: stats({ p50: 40, p95: 150, p99: 180, calls: 120, failed: 3 }),
        reference: reference(stats({ p95: 100 })),
        baseline: { run_id: BASELINE_RUN_ID, stats: stats({ p95: 145 }) },
      }),
    );
    const lines = result.markdown_summary.split('\n');
    expect(lines[0]).toBe('### ❌ mainnet smoke: FAIL');
    expect(lines).toContain(result.summary);
    expect(lines).toContain('| Check | Status | Result |');
    expect(lines).toContain('| latency_p95 | ✅ pass | p95 150 ms <= 200 ms |');
    expect(lines).toContain('| latency_vs_reference | ❌ fail | candidate p95 150 ms vs reference 100 ms (+50%, max +20%) |');
    expect(lines).toContain('| latency_vs_baseline | ✅ pass | candidate p95 150 ms vs baseline 145 ms (+3.4%, max +10%) |');
    expect(lines).toContain('| Endpoint | Calls | Failed | p50 | p95 | p99 |');
    expect(lines).toContain('| candidate | 120 | 3 | 40 ms | 150 ms | 180 ms |');
    expect(lines.some((l) => l.startsWith('| reference (trusted reference) |') && l.includes('| 100 ms |'))).toBe(true);
    expect(result.markdown_summary).not.toContain('Top mismatches');
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

  it('starts with a pass heading when everything passes', () => {
    expect(computeVerdict(input()).markdown_summary.split('\n')[0]).toBe('### ✅ mainnet smoke: PASS');
  });
});
