import { describe, expect, it } from 'vitest';
import { computeVerdict, type RegionInput } from '../../../src/domain/verdict';
import { combineRegions, type RegionVerdict } from '../../../src/domain/verdict/regions';
import { input, reference, steady, THRESHOLDS } from './fixtures';

/** A region whose candidate answers with the given p95 (2,000 steady calls), beside a 100 ms reference. */
function region(name: string, p95: number, unavailableEndpoints: string[] = []): RegionInput {
  const c = steady(p95);
  const r = steady(100);
  return {
    region: name,
    unavailableEndpoints,
    input: input({ candidate: c.stats, candidateLatencies: c.latencies, reference: reference(r.stats, r.latencies) }),
  };
}

/** The run as a whole: steady 100 ms candidate and reference (what the regions pool to when they agree). */
function run() {
  const c = steady(100);
  const r = steady(100);
  return input({ candidate: c.stats, candidateLatencies: c.latencies, reference: reference(r.stats, r.latencies) });
}

describe('computeVerdict with vantage points', () => {
  it.each([
    { name: 'every region passes', regions: [['a', 100], ['b', 105]] as const, verdict: 'pass', statuses: ['pass', 'pass'], failedIn: [] as string[] },
    // b's p95 of 300 ms breaks latency_p95 (200) and latency_vs_reference (+20 %) from b alone.
    { name: 'one region fails', regions: [['a', 100], ['b', 300]] as const, verdict: 'fail', statuses: ['pass', 'fail'], failedIn: ['b'] },
    { name: 'both regions fail', regions: [['a', 250], ['b', 300]] as const, verdict: 'fail', statuses: ['fail', 'fail'], failedIn: ['a', 'b'] },
  ])('$name → $verdict', ({ regions, verdict, statuses, failedIn }) => {
    const result = computeVerdict(run(), regions.map(([n, p95]) => region(n, p95)));
    expect(result.verdict).toBe(verdict);
    expect(result.exit_code).toBe(verdict === 'pass' ? 0 : 1);
    expect(result.regions!.map((r) => r.status)).toEqual(statuses);
    // The run's own checks are the pooled run's: they pass here whatever the regions say.
    expect(result.checks.every((c) => c.status !== 'fail')).toBe(true);
    for (const name of failedIn) expect(result.summary).toContain(`${name} (`);
    if (failedIn.length > 0) expect(result.summary).toContain(`Failed from ${failedIn.length} of 2 regions`);
  });

  it('names the checks a region failed, and judges each region with the run checks that apply to one region', () => {
    const result = computeVerdict(run(), [region('a', 100), region('b', 300)]);
    const b = result.regions!.find((r) => r.region === 'b')!;
    expect(b.checks.map((c) => c.name)).toEqual(['latency_p95', 'latency_vs_reference', 'availability']);
    expect(b.checks.filter((c) => c.status === 'fail').map((c) => c.name)).toEqual(['latency_p95', 'latency_vs_reference']);
    expect(b.message).toBe('failed from b: latency_p95, latency_vs_reference');
    expect(b.latency.p95_ms).toBe(300);
    expect(b.reference_p95_ms).toBe(100);
    expect(result.summary).toContain('b (latency_p95, latency_vs_reference)');
  });

  it('a region without a worker is vantage_unavailable: not judged, and never fails the verdict', () => {
    // Its partial samples (here a p95 that would fail) are shown but not judged.
    const result = computeVerdict(run(), [region('a', 100), region('b', 300, ['candidate-1'])]);
    expect(result.verdict).toBe('pass');
    expect(result.exit_code).toBe(0);
    const b = result.regions!.find((r) => r.region === 'b')!;
    expect(b.status).toBe('vantage_unavailable');
    expect(b.checks).toEqual([]);
    expect(b.unavailable_endpoints).toEqual(['candidate-1']);
    expect(result.summary).toContain('Vantage unavailable (not judged): b.');
  });

  it('an unavailable region does not hide another region that failed', () => {
    const result = computeVerdict(run(), [region('a', 300), region('b', 100, ['candidate-1'])]);
    expect(result.verdict).toBe('fail');
    expect(result.regions!.map((r) => r.status)).toEqual(['fail', 'vantage_unavailable']);
  });

  it('fail_on_inconclusive applies per region as it does to the run', () => {
    // 100 calls all successful: availability is inconclusive against 99 % in that region.
    const small = (fail: boolean): RegionInput => ({
      region: 'a',
      unavailableEndpoints: [],
      input: input({ thresholds: { ...THRESHOLDS, fail_on_inconclusive: fail } }),
    });
    expect(computeVerdict(input(), [small(false)]).regions![0]!.status).toBe('pass');
    const strict = computeVerdict(input(), [small(true)]);
    expect(strict.regions![0]!.status).toBe('fail');
    expect(strict.regions![0]!.message).toBe('failed from a: availability');
  });

  it('leaves baseline, correctness and the head watch to the run as a whole', () => {
    const r = region('a', 100);
    r.input = { ...r.input, thresholds: { ...r.input.thresholds, correctness_enabled: true }, baseline: { mode: 'previous_success', previous: null } };
    const result = computeVerdict(run(), [r]);
    expect(result.regions![0]!.checks.map((c) => c.name)).toEqual(['latency_p95', 'latency_vs_reference', 'availability']);
  });

  it('shows a region × check table in the Markdown', () => {
    const result = computeVerdict(run(), [region('a', 100), region('b', 300), region('c', 100, ['candidate-1'])]);
    const table = result.markdown_summary.split('Per region (vantage points):')[1]!.trim().split('\n');
    expect(table[0]).toBe('| Region | Status | Calls | Failed | p95 | latency_p95 | latency_vs_reference | availability |');
    expect(table[2]).toBe('| a | ✅ pass | 2000 | 0 | 100 ms | ✅ pass | ✅ pass | ✅ pass |');
    expect(table[3]).toBe('| b | ❌ fail | 2000 | 0 | 300 ms | ❌ fail | ❌ fail | ✅ pass |');
    expect(table[4]).toBe('| c | 📡 vantage unavailable | 2000 | 0 | 100 ms | – | – | – |');
    expect(result.markdown_summary.startsWith('### ❌ mainnet smoke: FAIL')).toBe(true);
  });

  it('runs without vantage points have no regions section (verdicts stay as they were)', () => {
    const result = computeVerdict(run());
    expect(result).not.toHaveProperty('regions');
    expect(result.markdown_summary).not.toContain('Per region');
  });

  it('an error verdict (the run did not succeed) stays an error, whatever the regions', () => {
    const failed = input({ run: { id: run().run.id, status: 'failed', failure_reason: 'boom' } });
    const result = computeVerdict(failed, [region('a', 300)]);
    expect(result.verdict).toBe('error');
    expect(result.exit_code).toBe(2);
    expect(result).not.toHaveProperty('regions');
  });
});

describe('combineRegions', () => {
  const r = (region: string, status: RegionVerdict['status']): RegionVerdict => ({
    region,
    status,
    message: status === 'fail' ? `failed from ${region}: latency_p95` : 'x',
    calls: { total: 1, successful: 1, failed: 0 },
    latency: { avg_ms: 1, p50_ms: 1, p95_ms: 1, p99_ms: 1, sample_count: 1 },
    reference_p95_ms: null,
    checks: [],
  });
  const pass = { verdict: 'pass' as const, summary: 'All 2 checks passed.', exit_code: 0 as const };

  it.each([
    { regions: [], verdict: 'pass', summary: 'All 2 checks passed.' },
    { regions: [r('a', 'pass')], verdict: 'pass', summary: 'All 2 checks passed.' },
    { regions: [r('a', 'pass'), r('b', 'fail')], verdict: 'fail', summary: 'All 2 checks passed. Failed from 1 of 2 regions: b (latency_p95).' },
    { regions: [r('a', 'vantage_unavailable')], verdict: 'pass', summary: 'All 2 checks passed. Vantage unavailable (not judged): a.' },
    {
      regions: [r('a', 'fail'), r('b', 'vantage_unavailable')],
      verdict: 'fail',
      summary: 'All 2 checks passed. Failed from 1 of 2 regions: a (latency_p95). Vantage unavailable (not judged): b.',
    },
  ])('$summary → $verdict', ({ regions, verdict, summary }) => {
    const combined = combineRegions(pass, regions);
    expect(combined).toEqual({ verdict, summary, exit_code: verdict === 'pass' ? 0 : 1 });
  });

  it('a run that failed on its own checks stays failed when every region passes', () => {
    expect(combineRegions({ verdict: 'fail', summary: '1 of 2 checks failed: correctness.', exit_code: 1 }, [r('a', 'pass')]).verdict).toBe('fail');
  });
});
