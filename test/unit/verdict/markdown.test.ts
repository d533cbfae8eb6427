import { describe, expect, it } from 'vitest';
import { emptyTally } from '../../../src/domain/correctness';
import type { RunStats } from '../../../src/domain/run-stats';
import { computeVerdict } from '../../../src/domain/verdict';
import { MAX_MARKDOWN_CHARS } from '../../../src/domain/verdict/markdown';
import { check, input, previousRun, reference, stats, steady, THRESHOLDS } from './fixtures';

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
    // p95's computed interval is 144.953–156.457 ms: rounded outwards it is [144–157] (stored to the
    // nearest 0.1 ms first, 145.0, it read [145–157], narrower than computed).
    expect(lines.some((l) => /^\| candidate \| 2000 \| 0 \| \d+ ms \[\d+–\d+\] \| 150 ms \[144–157\] \| \d+ ms \[\d+–\d+\] \|$/.test(l))).toBe(true);
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

  it('stays under MAX_MARKDOWN_CHARS with an explicit "not shown" marker, whatever the mismatches hold', () => {
    // As a verdict recomputed from explanations stored before paths were cut could hold: 1 MB paths.
    const mismatch = (i: number) => ({
      method: 'eth_call',
      params: [{ to: '0x1' }, 'latest'],
      candidate_hash: 'b'.repeat(32),
      reference_hash: 'a'.repeat(32),
      differences_status: 'shown' as const,
      differences: [{ path: `$.${String(i).repeat(1_000_000)}`, candidate: '1', reference: '2' }],
      more_differences: true,
    });
    const result = computeVerdict(
      input({
        thresholds: { ...THRESHOLDS, correctness_enabled: true, correctness_min_pct: 99 },
        reference: reference(stats({ p95: 100 })),
        correctness: { ...emptyTally(), matched: 90, mismatched: 10, mismatches: Array.from({ length: 10 }, (_, i) => mismatch(i)) },
      }),
    );
    expect(result.markdown_summary.length).toBeLessThanOrEqual(MAX_MARKDOWN_CHARS);
    expect(result.markdown_summary).toMatch(/\n… \d+ more lines? not shown \(the verdict from the API has them all\)$/);
    expect(result.markdown_summary.split('\n')[0]).toBe('### ❌ mainnet smoke: FAIL');
  });

  it('says how many mismatches and paths it does not show', () => {
    const mismatch = {
      method: 'eth_call',
      params: [],
      candidate_hash: 'b'.repeat(32),
      reference_hash: 'a'.repeat(32),
      differences_status: 'shown' as const,
      differences: [{ path: '$.a', candidate: '1', reference: '2' }],
      more_differences: true,
    };
    const result = computeVerdict(
      input({
        thresholds: { ...THRESHOLDS, correctness_enabled: true, correctness_min_pct: 99 },
        reference: reference(stats({ p95: 100 })),
        correctness: { ...emptyTally(), matched: 90, mismatched: 10, mismatches: Array(8).fill(mismatch) },
      }),
    );
    const lines = result.markdown_summary.split('\n');
    expect(lines).toContain('- `eth_call` `[]`: `$.a` candidate `1` ≠ reference `2`; more paths differ, not shown');
    expect(lines).toContain('- … 3 more mismatches not shown (the verdict lists them)');
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
