import type { CheckStatus } from './run-model';

/*
 * Capacity sweeps (DESIGN §14): open-loop steps at rising rates, the knee (the highest rate the
 * endpoint still held within its latency and success budget) and the capacity check's decision.
 * Pure: the workflow plans steps with it, finalize judges the measured steps with it.
 */

/** What the rates of a sweep are given by: listed, or start·factor^k up to max. */
export interface SweepRatesSource {
  rates?: readonly number[] | undefined;
  start?: number | undefined;
  factor?: number | undefined;
  max?: number | undefined;
}

/** The sweep's rates, rising; empty when the source is incomplete (the schema refuses that). */
export function sweepRates(s: SweepRatesSource): number[] {
  if (s.rates) return [...s.rates];
  if (s.start === undefined || s.factor === undefined || s.max === undefined || s.factor <= 1 || s.start <= 0) return [];
  const rates: number[] = [];
  // Rounded to 0.1 rps so 50·2^k stays 50, 100, 200 … and not 199.99999.
  for (let k = 0; rates.length <= 100; k++) {
    const rate = Math.round(s.start * s.factor ** k * 10) / 10;
    if (rate > s.max * (1 + 1e-9)) break;
    rates.push(rate);
  }
  return rates;
}

/** One step of a sweep: its seqs, of which the first `warmupCalls` are warm-up (not counted). */
export interface SweepStepPlan {
  step: number;
  rate: number;
  fromSeq: number;
  warmupCalls: number;
  /** Exclusive: the step's seqs are [fromSeq, toSeq). */
  toSeq: number;
}

export interface SweepPlan {
  stepS: number;
  warmupS: number;
  steps: SweepStepPlan[];
  callsPerTarget: number;
}

/**
 * Lays the steps out on one seq line per target, one after the other: step k's calls are
 * ceil(rate × warmup_s) warm-up calls then ceil(rate × step_s) measured ones. Every seq is then
 * unique per target (the samples' key), a retried step rewrites exactly its own range, and the
 * step (and whether a sample is warm-up) follows from the seq alone.
 */
export function sweepPlan(s: { rates: readonly number[]; step_s: number; warmup_s: number }): SweepPlan {
  let seq = 0;
  const steps = s.rates.map((rate, step) => {
    const warmupCalls = Math.ceil(rate * s.warmup_s);
    const fromSeq = seq;
    seq += warmupCalls + Math.max(1, Math.ceil(rate * s.step_s));
    return { step, rate, fromSeq, warmupCalls, toSeq: seq };
  });
  return { stepS: s.step_s, warmupS: s.warmup_s, steps, callsPerTarget: seq };
}

/** The step a seq belongs to and whether it is warm-up; null past the last step. */
export function stepOfSeq(plan: SweepPlan, seq: number): { step: number; warmup: boolean } | null {
  const found = plan.steps.find((s) => seq >= s.fromSeq && seq < s.toSeq);
  return found ? { step: found.step, warmup: seq < found.fromSeq + found.warmupCalls } : null;
}

/**
 * The prober itself fell behind on a step when it sent fewer than this share of the offered calls
 * per second, or when its send lag's p99 exceeded PROBER_LAG_P99_MAX_MS: the endpoint then met a
 * lower or burstier rate than the step names, so the step is neither credited nor blamed on it.
 */
export const PROBER_ACHIEVED_MIN_SHARE = 0.9;
export const PROBER_LAG_P99_MAX_MS = 20;
/**
 * A step within budget is credited only when the prober's own send lag stayed a small part of
 * what it measured: send-lag p99 at most this share of the step's p95 latency, or at most
 * PROBER_LAG_FLOOR_MS (a loopback endpoint answering in 0.3 ms cannot ask for a 30 µs sender, and a
 * worker on a shared machine is preempted for a few ms now and then).
 * Above it, the latency the step reports is largely our own lateness (latency counts from the
 * intended instant), so the step is prober_behind (prober_send_lag), not `within`. A suite may set
 * its own share (thresholds.sweep_send_lag_max_pct), e.g. for workers on a machine it knows is busy.
 */
export const PROBER_LAG_SHARE_MAX = 0.1;
export const PROBER_LAG_FLOOR_MS = 5;

/** A measured step of one endpoint, as finalize reads it (warm-up excluded). */
export interface MeasuredStep {
  rate: number;
  calls: number;
  successful: number;
  /** Calls per second actually sent (first to last send); null below two calls. */
  achievedRps: number | null;
  /** The engine's own lateness: send time − intended instant, ms; null without samples. */
  sendLagP99Ms: number | null;
  /** The successful calls' p95 with its 95 % interval, ms; null when none succeeded. */
  p95: { point: number; lower: number; upper: number | null } | null;
  /** The success rate's 95 % Wilson interval, percent. */
  successUpperPct: number;
}

export const STEP_STATUSES = ['within', 'broken', 'prober_behind', 'no_calls'] as const;
export type StepStatus = (typeof STEP_STATUSES)[number];
export const STEP_REASONS = ['within_budget', 'success_rate_below_min', 'latency_above_max', 'no_successful_calls', 'prober_fell_behind', 'prober_send_lag', 'no_calls'] as const;
export type StepReason = (typeof STEP_REASONS)[number];

export interface StepJudgement {
  status: StepStatus;
  reason: StepReason;
  /** Broken beyond doubt (a whole 95 % interval past the budget): the sweep goes no higher. */
  clearly: boolean;
  proberBehind: boolean;
}

export interface Budget {
  latencyP95MaxMs: number;
  successRateMinPct: number;
  /** The share of the step's p95 its send-lag p99 may be (thresholds.sweep_send_lag_max_pct); default PROBER_LAG_SHARE_MAX. */
  sendLagMaxShare?: number;
}

/**
 * One step against the budget. Errors the endpoint answered (429s, timeouts, refusals) break the
 * step whatever the prober did. A prober that sent too few calls per second is never credited
 * with the rate. Latency is measured from each call's intended instant, so the prober's own send
 * lag is inside it: a step over the latency budget while the prober lagged cannot be blamed on the
 * endpoint, and a step within budget whose send lag was more than a small part of its latency
 * (PROBER_LAG_SHARE_MAX) is not credited either: what it measured was largely the prober.
 */
export function judgeStep(m: MeasuredStep, budget: Budget): StepJudgement {
  if (m.calls === 0) return { status: 'no_calls', reason: 'no_calls', clearly: false, proberBehind: false };
  const shortOfRate = m.achievedRps !== null && m.achievedRps < m.rate * PROBER_ACHIEVED_MIN_SHARE;
  const lagging = m.sendLagP99Ms !== null && m.sendLagP99Ms > PROBER_LAG_P99_MAX_MS;
  const proberBehind = shortOfRate || lagging;
  const ratePct = (m.successful / m.calls) * 100;
  if (ratePct < budget.successRateMinPct) {
    return { status: 'broken', reason: 'success_rate_below_min', clearly: m.successUpperPct < budget.successRateMinPct, proberBehind };
  }
  if (shortOfRate) return { status: 'prober_behind', reason: 'prober_fell_behind', clearly: false, proberBehind };
  if (m.p95 === null) return { status: 'broken', reason: 'no_successful_calls', clearly: true, proberBehind };
  if (m.p95.point > budget.latencyP95MaxMs) {
    if (lagging) return { status: 'prober_behind', reason: 'prober_fell_behind', clearly: false, proberBehind };
    return { status: 'broken', reason: 'latency_above_max', clearly: m.p95.lower > budget.latencyP95MaxMs, proberBehind };
  }
  const lagShareMaxMs = Math.max(PROBER_LAG_FLOOR_MS, (budget.sendLagMaxShare ?? PROBER_LAG_SHARE_MAX) * m.p95.point);
  if (m.sendLagP99Ms !== null && m.sendLagP99Ms > lagShareMaxMs) {
    return { status: 'prober_behind', reason: 'prober_send_lag', clearly: false, proberBehind: true };
  }
  return { status: 'within', reason: 'within_budget', clearly: false, proberBehind };
}

/**
 * Whether the sweep stops after a step: every candidate broke the budget by a clear margin, or
 * its prober fell behind (a higher rate would only fall further behind), or it made no call.
 */
export function sweepStops(candidates: readonly StepJudgement[]): boolean {
  return candidates.length > 0 && candidates.every((j) => j.clearly || j.status === 'prober_behind' || j.status === 'no_calls');
}

/** The knee: the last step of the unbroken run of within-budget steps from the lowest; null when the first did not hold. */
export function kneeIndex(steps: readonly { status: StepStatus }[]): number | null {
  let knee: number | null = null;
  for (let i = 0; i < steps.length; i++) {
    if (steps[i]!.status !== 'within') break;
    knee = i;
  }
  return knee;
}

export const CAPACITY_REASONS = ['knee_at_or_above_min', 'broke_at_or_below_min', 'min_between_steps', 'prober_fell_behind', 'min_not_reached', 'no_calls', 'no_steps'] as const;
export type CapacityReason = (typeof CAPACITY_REASONS)[number];

export interface CapacityDecision {
  status: CheckStatus;
  reason: CapacityReason;
  /** Offered rate of the knee step; null when no step held. */
  kneeRps: number | null;
}

/**
 * capacity_min_rps against one endpoint's steps (rising rates): pass when the knee is at or
 * above it, fail when a step at or below it broke the budget, inconclusive otherwise (the sweep
 * never offered the minimum, or the prober fell behind before the endpoint showed anything).
 */
export function decideCapacity(steps: readonly { rate: number; status: StepStatus }[], minRps: number): CapacityDecision {
  const knee = kneeIndex(steps);
  const kneeRps = knee === null ? null : steps[knee]!.rate;
  if (steps.length === 0) return { status: 'inconclusive', reason: 'no_steps', kneeRps };
  if (kneeRps !== null && kneeRps >= minRps) return { status: 'pass', reason: 'knee_at_or_above_min', kneeRps };
  if (steps.some((s) => s.rate <= minRps && s.status === 'broken')) return { status: 'fail', reason: 'broke_at_or_below_min', kneeRps };
  // What ended the run of held steps below the minimum says why this sweep cannot tell.
  const stoppedBy = steps[knee === null ? 0 : knee + 1];
  const reason: CapacityReason =
    stoppedBy === undefined
      ? 'min_not_reached'
      : stoppedBy.status === 'prober_behind'
        ? 'prober_fell_behind'
        : stoppedBy.status === 'no_calls'
          ? 'no_calls'
          : 'min_between_steps';
  return { status: 'inconclusive', reason, kneeRps };
}

/** The plan of a workload's sweep; null when the workload has none. */
export function sweepPlanOf(sweep: (SweepRatesSource & { step_s: number; warmup_s: number }) | undefined): SweepPlan | null {
  return sweep ? sweepPlan({ rates: sweepRates(sweep), step_s: sweep.step_s, warmup_s: sweep.warmup_s }) : null;
}
