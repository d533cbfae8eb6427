import { describe, expect, it } from 'vitest';
import type { VerdictView } from '../../../src/cli/client';
import { formatText } from '../../../src/cli/format';
import { computeVerdict, type SweepInput, type SweepStepInput } from '../../../src/domain/verdict';
import { check, input, stats, THRESHOLDS } from './fixtures';

/** n successful latencies of `ms` each, sorted (µs). */
const flat = (n: number, ms: number) => new Float64Array(n).fill(ms * 1000);

/** A measured step: `calls` at `rate`, `failed` of them 429s, successful ones taking `ms`. */
function step(index: number, rate: number, o: { failed?: number; ms?: number; lagP99Ms?: number; achieved?: number } = {}): SweepStepInput {
  const calls = rate * 3;
  const failed = o.failed ?? 0;
  return {
    step: index,
    rate,
    calls,
    successful: calls - failed,
    rate_limited: failed,
    errors: failed > 0 ? { http_429: failed } : {},
    achieved_rps: o.achieved ?? rate,
    interruptions: 0,
    send_lag_p50_us: 100,
    send_lag_p99_us: (o.lagP99Ms ?? 0.8) * 1000,
    send_lag_max_us: 2_000,
    latencies: flat(calls - failed, o.ms ?? 20),
  };
}

/** A candidate that holds 100 and 200 calls/s and answers a quarter of 400 with 429. */
const HOCKEY_STICK = [step(0, 100), step(1, 200), step(2, 400, { failed: 300 })];

function sweep(steps: SweepStepInput[], referenceSteps?: SweepStepInput[]): SweepInput {
  return {
    step_s: 3,
    warmup_s: 1,
    rates: [100, 200, 400, 800],
    endpoints: [
      { endpoint_id: 'c', endpoint_name: 'candidate', role: 'primary', steps },
      ...(referenceSteps ? [{ endpoint_id: 'r', endpoint_name: 'reference', role: 'reference' as const, steps: referenceSteps }] : []),
    ],
  };
}

describe('computeVerdict: capacity', () => {
  it.each([
    { name: 'min below the knee', min: 150, status: 'pass', reason: 'knee_at_or_above_min', verdict: 'pass' },
    { name: 'min at the knee', min: 200, status: 'pass', reason: 'knee_at_or_above_min', verdict: 'pass' },
    { name: 'min between the knee and the break', min: 300, status: 'inconclusive', reason: 'min_between_steps', verdict: 'pass' },
    { name: 'min at the step that broke', min: 400, status: 'fail', reason: 'broke_at_or_below_min', verdict: 'fail' },
    { name: 'min above the top rate', min: 1000, status: 'fail', reason: 'broke_at_or_below_min', verdict: 'fail' },
  ])('$name ($min rps) → $status', ({ min, status, reason, verdict }) => {
    const result = computeVerdict(input({ thresholds: { ...THRESHOLDS, capacity_min_rps: min }, candidate: stats({ p95: 20, calls: 2100, failed: 300 }), sweep: sweep(HOCKEY_STICK) }));
    expect(check(result, 'capacity')).toMatchObject({ status, details: { min_rps: min, knee_rps: 200, candidates: [{ reason, knee_rps: 200 }] } });
    expect(result.verdict).toBe(verdict);
  });

  it('replaces latency_p95 and availability, which a deliberate overload would always fail', () => {
    const result = computeVerdict(input({ candidate: stats({ p95: 20, calls: 2100, failed: 300 }), sweep: sweep(HOCKEY_STICK) }));
    expect(result.checks.map((c) => c.name)).toEqual(['capacity']);
    // Without capacity_min_rps the lowest rate is the minimum: the endpoint held it.
    expect(check(result, 'capacity')).toMatchObject({ status: 'pass', details: { min_rps: 100 } });
    expect(result.summary).toContain('knee 200 rps');
  });

  it('reports each step with its evidence, the knee, and the reference swept alike (reported, not judged)', () => {
    const result = computeVerdict(
      input({
        thresholds: { ...THRESHOLDS, capacity_min_rps: 150 },
        candidate: stats({ p95: 20, calls: 2100, failed: 300 }),
        sweep: sweep(HOCKEY_STICK, [step(0, 100), step(1, 200, { failed: 600 })]),
      }),
    );
    const capacity = result.capacity!;
    expect(capacity).toMatchObject({ status: 'pass', min_rps: 150, steps_probed: 3, rates: [100, 200, 400, 800] });
    const [cand, ref] = capacity.endpoints;
    expect(cand).toMatchObject({ knee_rps: 200, knee_step: 1, status: 'pass' });
    expect(cand!.steps[2]).toMatchObject({
      offered_rps: 400,
      achieved_rps: 400,
      throughput_rps: 300,
      calls: 1200,
      rate_limited: 300,
      errors: { http_429: 300 },
      success_rate_pct: 75,
      status: 'broken',
      reason: 'success_rate_below_min',
      clearly_broken: true,
      latency_ms: { p95: { point: 20 } },
      send_lag_p99_ms: 0.8,
    });
    // The reference broke at 200: its own figures, and the verdict still passes on the candidate.
    expect(ref).toMatchObject({ role: 'reference', knee_rps: 100, status: 'inconclusive', reason: 'min_between_steps' });
    expect(result.verdict).toBe('pass');
    expect(result.markdown_summary).toContain('| candidate | 400 | 400 |');
    expect(result.markdown_summary).toContain('❌ broken |');
    expect(result.markdown_summary).toContain('✅ within ← knee |');
  });

  it('a step the prober could not keep is neither the knee nor the endpoint\'s fault', () => {
    const steps = [step(0, 100), step(1, 200, { ms: 300, lagP99Ms: 150 }), step(2, 400, { achieved: 250 })];
    const result = computeVerdict(input({ thresholds: { ...THRESHOLDS, capacity_min_rps: 200 }, candidate: stats({ p95: 20, calls: 2100 }), sweep: sweep(steps) }));
    expect(check(result, 'capacity')).toMatchObject({ status: 'inconclusive', details: { knee_rps: 100, candidates: [{ reason: 'prober_fell_behind' }] } });
    const [, slow, short] = result.capacity!.endpoints[0]!.steps;
    expect(slow).toMatchObject({ status: 'prober_behind', prober_behind: true, note: expect.stringContaining('the prober, not the endpoint, fell behind') });
    expect(short).toMatchObject({ status: 'prober_behind', achieved_rps: 250 });
    expect(result.markdown_summary).toContain('at 200, 400 rps: the prober, not the endpoint, fell behind');
  });

  it('a run without a sweep has no capacity check or section', () => {
    const result = computeVerdict(input({ candidate: stats({ p95: 20, calls: 2000 }) }));
    expect(result.checks.map((c) => c.name)).not.toContain('capacity');
    expect(result.capacity).toBeUndefined();
  });
});

describe('rvs text output: the capacity sweep step table (issue 32)', () => {
  it('prints the same rows as the Markdown, in columns, the knee and the early stop marked', () => {
    const result = computeVerdict(
      input({ thresholds: { ...THRESHOLDS, capacity_min_rps: 150 }, candidate: stats({ p95: 20, calls: 2100, failed: 300 }), sweep: sweep(HOCKEY_STICK, [step(0, 100), step(1, 200)]) }),
    );
    const text = formatText({ runId: '00000000-0000-4000-8000-000000000001', verdict: result as unknown as VerdictView, run: null });
    expect(text).toContain('Capacity sweep: 3 s per step after 1 s of warm-up; budget p95 ≤ ');
    expect(text).toContain('stopped early after 3 of 4 steps');
    const lines = text.split('\n');
    const header = lines.find((l) => l.trim().startsWith('Endpoint'))!;
    expect(header.trim().split(/\s{2,}/)).toEqual(['Endpoint', 'Offered rps', 'Achieved rps', 'p50', 'p95 [95% interval]', 'p99', 'Success', '429s', 'Other errors', 'Send lag p99', 'Step']);
    // Every Markdown row of the table is a text row with the same cells (the step cell in words).
    const markdownRows = result.markdown_summary
      .split('\n')
      .filter((l) => /^\| (candidate|reference)/.test(l))
      .map((l) => l.slice(2, -2).split(' | ').map((cell) => cell.replace(/^(✅|❌|⚠️|–) /, '')))
      .filter((cells) => cells.length === 11);
    expect(markdownRows).toHaveLength(5);
    for (const row of markdownRows) expect(lines.some((l) => l.trim().split(/\s{2,}/).join('|') === row.join('|')), row.join(' | ')).toBe(true);
    expect(lines.some((l) => /^\s+candidate\s+200\s.*within ← knee$/.test(l))).toBe(true);
  });
});
