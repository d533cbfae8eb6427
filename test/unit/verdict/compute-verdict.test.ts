import { describe, expect, it } from 'vitest';
import { computeVerdict, type Thresholds } from '../../../src/domain/verdict';
import { check, input, reference, RUN_ID, steady, THRESHOLDS } from './fixtures';

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
