import { describe, expect, it } from 'vitest';
import { emptyTally, type CorrectnessTally } from '../../../src/domain/correctness';
import { computeVerdict, type Thresholds } from '../../../src/domain/verdict';
import { check, input, previousRun, reference, RUN_ID, stats, THRESHOLDS } from './fixtures';

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
