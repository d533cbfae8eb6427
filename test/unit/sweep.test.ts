import { describe, expect, it } from 'vitest';
import { suiteConfigSchema, workloadSchema } from '../../src/domain/suite-config';
import {
  decideCapacity,
  judgeStep,
  kneeIndex,
  stepOfSeq,
  sweepPlan,
  sweepRates,
  sweepStops,
  type MeasuredStep,
  type StepStatus,
} from '../../src/domain/sweep';

describe('sweepRates', () => {
  it.each([
    { source: { rates: [50, 100, 200] }, rates: [50, 100, 200] },
    { source: { start: 50, factor: 2, max: 400 }, rates: [50, 100, 200, 400] },
    { source: { start: 50, factor: 2, max: 399 }, rates: [50, 100, 200] },
    { source: { start: 100, factor: 1.5, max: 400 }, rates: [100, 150, 225, 337.5] },
    { source: { start: 50, factor: 2 }, rates: [] },
  ])('$source → $rates', ({ source, rates }) => {
    expect(sweepRates(source)).toEqual(rates);
  });
});

describe('sweepPlan', () => {
  const plan = sweepPlan({ rates: [10, 20], step_s: 3, warmup_s: 1 });

  it('lays the steps out one after the other on one seq line', () => {
    expect(plan.steps).toEqual([
      { step: 0, rate: 10, fromSeq: 0, warmupCalls: 10, toSeq: 40 },
      { step: 1, rate: 20, fromSeq: 40, warmupCalls: 20, toSeq: 120 },
    ]);
    expect(plan.callsPerTarget).toBe(120);
  });

  it.each([
    { seq: 0, at: { step: 0, warmup: true } },
    { seq: 9, at: { step: 0, warmup: true } },
    { seq: 10, at: { step: 0, warmup: false } },
    { seq: 39, at: { step: 0, warmup: false } },
    { seq: 40, at: { step: 1, warmup: true } },
    { seq: 60, at: { step: 1, warmup: false } },
    { seq: 120, at: null },
  ])('seq $seq is $at', ({ seq, at }) => {
    expect(stepOfSeq(plan, seq)).toEqual(at);
  });
});

describe('the sweep in the suite config', () => {
  const base = { targets: [{ endpoint_id: '00000000-0000-4000-8000-000000000001' }] };
  it.each([
    { sweep: { rates: [50, 100] }, ok: true },
    { sweep: { start: 50, factor: 2, max: 800, step_s: 2, warmup_s: 1 }, ok: true },
    { sweep: { rates: [100, 50] }, ok: false },
    { sweep: { rates: [50], start: 50, factor: 2, max: 100 }, ok: false },
    { sweep: { start: 50, max: 100 }, ok: false },
    { sweep: {}, ok: false },
    { sweep: { start: 1, factor: 1.1, max: 10_000 }, ok: false },
    { sweep: { rates: [10_000], step_s: 600 }, ok: false },
  ])('$sweep → valid: $ok', ({ sweep, ok }) => {
    expect(suiteConfigSchema.safeParse({ ...base, workload: { sweep } }).success).toBe(ok);
  });

  it('keeps requests_per_target unset for a sweep, and refuses a rate beside it', () => {
    const parsed = workloadSchema.parse({ sweep: { rates: [50] } });
    expect(parsed.requests_per_target).toBeNull();
    expect(parsed.sweep).toEqual({ rates: [50], step_s: 30, warmup_s: 5 });
    expect(workloadSchema.safeParse({ sweep: { rates: [50] }, rate_per_second: 10 }).success).toBe(false);
    // Stored and read again, it parses to itself.
    expect(workloadSchema.parse(parsed)).toEqual(parsed);
  });
});

const BUDGET = { latencyP95MaxMs: 100, successRateMinPct: 99 };
const step = (m: Partial<MeasuredStep>): MeasuredStep => ({
  rate: 100,
  calls: 300,
  successful: 300,
  achievedRps: 100,
  sendLagP99Ms: 0.5,
  p95: { point: 20, lower: 18, upper: 22 },
  successUpperPct: 100,
  ...m,
});

describe('judgeStep', () => {
  it.each([
    { name: 'within budget', m: {}, status: 'within', reason: 'within_budget', clearly: false },
    { name: 'no calls', m: { calls: 0, successful: 0 }, status: 'no_calls', reason: 'no_calls', clearly: false },
    { name: '429s clearly below the minimum', m: { successful: 200, successUpperPct: 72 }, status: 'broken', reason: 'success_rate_below_min', clearly: true },
    { name: 'a few errors, interval straddles', m: { successful: 295, successUpperPct: 99.4 }, status: 'broken', reason: 'success_rate_below_min', clearly: false },
    { name: 'p95 clearly above the max', m: { p95: { point: 150, lower: 120, upper: 180 } }, status: 'broken', reason: 'latency_above_max', clearly: true },
    { name: 'p95 above, interval straddles', m: { p95: { point: 110, lower: 95, upper: 130 } }, status: 'broken', reason: 'latency_above_max', clearly: false },
    { name: 'prober late (send lag)', m: { sendLagP99Ms: 35, p95: { point: 150, lower: 120, upper: 180 } }, status: 'prober_behind', reason: 'prober_fell_behind', clearly: false },
    { name: 'prober short of the rate', m: { achievedRps: 80 }, status: 'prober_behind', reason: 'prober_fell_behind', clearly: false },
    { name: 'prober late, within budget only with its own lag counted', m: { sendLagP99Ms: 35 }, status: 'prober_behind', reason: 'prober_send_lag', clearly: false },
    { name: 'prober send lag above a tenth of the latency', m: { sendLagP99Ms: 7, p95: { point: 60, lower: 55, upper: 65 } }, status: 'prober_behind', reason: 'prober_send_lag', clearly: false },
    { name: 'send lag a tenth of the latency holds', m: { sendLagP99Ms: 6, p95: { point: 60, lower: 55, upper: 65 } }, status: 'within', reason: 'within_budget', clearly: false },
    { name: 'send lag under the 5 ms floor holds on a fast endpoint', m: { sendLagP99Ms: 4.9, p95: { point: 0.4, lower: 0.3, upper: 0.5 } }, status: 'within', reason: 'within_budget', clearly: false },
    { name: 'errors are the endpoint\'s even when the prober was late', m: { achievedRps: 80, successful: 100, successUpperPct: 40 }, status: 'broken', reason: 'success_rate_below_min', clearly: true },
    { name: 'nothing succeeded', m: { successful: 0, p95: null, successUpperPct: 1 }, status: 'broken', reason: 'success_rate_below_min', clearly: true },
    { name: 'p95 at the max holds', m: { p95: { point: 100, lower: 90, upper: 110 } }, status: 'within', reason: 'within_budget', clearly: false },
  ])('$name → $status ($reason)', ({ name, m, status, reason, clearly }) => {
    const j = judgeStep(step(m), BUDGET);
    expect({ status: j.status, reason: j.reason, clearly: j.clearly }).toEqual({ status, reason, clearly });
    expect(j.proberBehind).toBe(/prober/.test(name));
  });
});

it('takes the suite\'s own send-lag share (thresholds.sweep_send_lag_max_pct)', () => {
  const m = step({ sendLagP99Ms: 35, p95: { point: 60, lower: 55, upper: 65 } });
  expect(judgeStep(m, BUDGET).reason).toBe('prober_send_lag');
  expect(judgeStep(m, { ...BUDGET, sendLagMaxShare: 0.6 }).reason).toBe('within_budget');
});

describe('sweepStops', () => {
  const within = judgeStep(step({}), BUDGET);
  const clearly = judgeStep(step({ successful: 100, successUpperPct: 40 }), BUDGET);
  const barely = judgeStep(step({ successful: 295, successUpperPct: 99.4 }), BUDGET);
  const behind = judgeStep(step({ achievedRps: 50 }), BUDGET);
  const lateButHeld = judgeStep(step({ sendLagP99Ms: 35 }), BUDGET);
  const lagUnderItsLatency = judgeStep(step({ sendLagP99Ms: 6, p95: { point: 60, lower: 55, upper: 65 } }), BUDGET);
  it.each([
    { name: 'one candidate clearly broken', js: [clearly], stops: true },
    { name: 'broken by a hair: one more step', js: [barely], stops: false },
    { name: 'prober behind', js: [behind], stops: true },
    { name: 'prober late, the step held only with its lag counted', js: [lateButHeld], stops: true },
    { name: 'send lag a small part of the latency', js: [lagUnderItsLatency], stops: false },
    { name: 'one of two candidates still holds', js: [clearly, within], stops: false },
    { name: 'both done', js: [clearly, behind], stops: true },
    { name: 'no candidates', js: [], stops: false },
  ])('$name → $stops', ({ js, stops }) => {
    expect(sweepStops(js)).toBe(stops);
  });
});

const steps = (...pairs: [number, StepStatus][]) => pairs.map(([rate, status]) => ({ rate, status }));

describe('kneeIndex', () => {
  it.each([
    { s: steps([100, 'within'], [200, 'within'], [400, 'broken']), knee: 1 },
    { s: steps([100, 'broken']), knee: null },
    { s: steps([100, 'within'], [200, 'broken'], [400, 'within']), knee: 0 },
    { s: steps([100, 'within'], [200, 'prober_behind']), knee: 0 },
    { s: steps(), knee: null },
  ])('$s → $knee', ({ s, knee }) => {
    expect(kneeIndex(s)).toBe(knee);
  });
});

describe('decideCapacity', () => {
  const sweep = steps([50, 'within'], [100, 'within'], [200, 'within'], [400, 'broken']);
  it.each([
    { name: 'knee above the min', s: sweep, min: 150, status: 'pass', reason: 'knee_at_or_above_min', knee: 200 },
    { name: 'knee at the min', s: sweep, min: 200, status: 'pass', reason: 'knee_at_or_above_min', knee: 200 },
    { name: 'min between the knee and the break', s: sweep, min: 300, status: 'inconclusive', reason: 'min_between_steps', knee: 200 },
    { name: 'broke at the min', s: sweep, min: 400, status: 'fail', reason: 'broke_at_or_below_min', knee: 200 },
    { name: 'broke below the min', s: sweep, min: 1000, status: 'fail', reason: 'broke_at_or_below_min', knee: 200 },
    { name: 'first step broke', s: steps([50, 'broken']), min: 50, status: 'fail', reason: 'broke_at_or_below_min', knee: null },
    { name: 'held everything, min above the top', s: steps([50, 'within'], [100, 'within']), min: 500, status: 'inconclusive', reason: 'min_not_reached', knee: 100 },
    { name: 'prober fell behind below the min', s: steps([50, 'within'], [100, 'prober_behind']), min: 100, status: 'inconclusive', reason: 'prober_fell_behind', knee: 50 },
    { name: 'prober behind, later break above', s: steps([50, 'within'], [100, 'prober_behind'], [200, 'broken']), min: 150, status: 'inconclusive', reason: 'prober_fell_behind', knee: 50 },
    { name: 'no calls', s: steps([50, 'no_calls']), min: 50, status: 'inconclusive', reason: 'no_calls', knee: null },
    { name: 'no steps', s: steps(), min: 50, status: 'inconclusive', reason: 'no_steps', knee: null },
  ])('$name → $status', ({ s, min, status, reason, knee }) => {
    expect(decideCapacity(s, min)).toEqual({ status, reason, kneeRps: knee });
  });
});
