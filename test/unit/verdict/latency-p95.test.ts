import { describe, expect, it } from 'vitest';
import { computeVerdict } from '../../../src/domain/verdict';
import { check, input, noSuccess, stats, steady } from './fixtures';

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
