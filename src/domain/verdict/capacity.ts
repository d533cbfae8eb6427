import type { CheckStatus } from '../run-model';
import { successRate } from '../statistics/availability';
import { decideCapacity, judgeStep, type Budget, type CapacityReason, type MeasuredStep } from '../sweep';
import { roundOutwards } from '../interval-display';
import { capacityTable } from './capacity-table';
import type { CheckModule } from './check-module';
import { intervalsMs, round1 } from './format';
import { markdownTable, textTable } from './table-block';
import {
  DEFAULT_SUCCESS_RATE_MIN_PCT,
  type CapacityComparison,
  type CapacityEndpoint,
  type CapacityStep,
  type CheckOf,
  type SweepStepInput,
  type VerdictInput,
} from './types';

export interface CapacityDetails {
  min_rps: number;
  /** The lowest knee among the candidates; null when a candidate's first step did not hold. */
  knee_rps: number | null;
  candidates: { endpoint_id: string; endpoint_name: string; status: CheckStatus; reason: CapacityReason; knee_rps: number | null }[];
}

export type CapacityCheck = CheckOf<'capacity', CapacityDetails>;

export const PROBER_BEHIND_NOTE = 'the prober, not the endpoint, fell behind: this step is neither credited nor blamed';
export const PROBER_SEND_LAG_NOTE =
  "the prober's send-lag p99 was more than a tenth of the step's p95 latency (and over 5 ms): the latency measured was largely the prober's own lateness, so the step is not credited; run more workers (shards) or fewer sweeps at once";
export const PROBER_LATE_NOTE = 'the prober sent late (send-lag p99 above 20 ms); the endpoint held the budget with that lag counted in its latency';

const ms = (us: number | null) => (us === null ? null : round1(us / 1000));
const round2 = (x: number) => Math.round(x * 100) / 100;

/** A step's figures as the judgement reads them (domain/sweep.ts). */
export function measuredStep(s: SweepStepInput): MeasuredStep {
  const intervals = s.successful > 0 ? intervalsMs(s.latencies) : null;
  return {
    rate: s.rate,
    calls: s.calls,
    successful: s.successful,
    achievedRps: s.achieved_rps,
    sendLagP99Ms: ms(s.send_lag_p99_us),
    p95: intervals ? intervals.p95 : null,
    successUpperPct: successRate(s.successful, s.calls).upper_pct,
  };
}

function capacityStep(s: SweepStepInput, budget: Budget): CapacityStep {
  const judged = judgeStep(measuredStep(s), budget);
  const rate = successRate(s.successful, s.calls);
  return {
    step: s.step,
    offered_rps: s.rate,
    achieved_rps: s.achieved_rps === null ? null : round1(s.achieved_rps),
    throughput_rps: s.achieved_rps === null || s.calls === 0 ? null : round1((s.achieved_rps * s.successful) / s.calls),
    interruptions: s.interruptions,
    calls: s.calls,
    successful: s.successful,
    success_rate_pct: s.calls === 0 ? null : round2(rate.rate_pct),
    success_rate_interval_pct: roundOutwards(rate.lower_pct, rate.upper_pct, 2),
    rate_limited: s.rate_limited,
    errors: { ...s.errors },
    latency_ms: s.successful > 0 ? intervalsMs(s.latencies) : null,
    send_lag_p50_ms: ms(s.send_lag_p50_us),
    send_lag_p99_ms: ms(s.send_lag_p99_us),
    send_lag_max_ms: ms(s.send_lag_max_us),
    status: judged.status,
    reason: judged.reason,
    clearly_broken: judged.clearly,
    prober_behind: judged.proberBehind,
    note: judged.reason === 'prober_send_lag' ? PROBER_SEND_LAG_NOTE : judged.status === 'prober_behind' ? PROBER_BEHIND_NOTE : judged.proberBehind ? PROBER_LATE_NOTE : null,
  };
}

const REASON_TEXT: Record<CapacityReason, string> = {
  knee_at_or_above_min: 'pass: the knee is at or above the minimum',
  broke_at_or_below_min: 'fail: a step at or below the minimum broke the budget',
  min_between_steps: 'inconclusive: the minimum lies between the knee and the step that broke (a finer sweep would decide)',
  prober_fell_behind: 'inconclusive: the prober, not the endpoint, fell behind before the minimum',
  min_not_reached: 'inconclusive: the sweep never offered the minimum',
  no_calls: 'inconclusive: a step made no calls',
  no_steps: 'inconclusive: nothing was probed',
};

const worst = (statuses: readonly CheckStatus[]): CheckStatus =>
  statuses.includes('fail') ? 'fail' : statuses.includes('inconclusive') || statuses.length === 0 ? 'inconclusive' : 'pass';

/** The budget every step is held to: the run's latency_p95_max_ms and success_rate_min_pct. */
export function sweepBudget(thresholds: VerdictInput['thresholds']): Budget {
  return {
    latencyP95MaxMs: thresholds.latency_p95_max_ms,
    successRateMinPct: thresholds.success_rate_min_pct ?? DEFAULT_SUCCESS_RATE_MIN_PCT,
    ...(thresholds.sweep_send_lag_max_pct === undefined ? {} : { sendLagMaxShare: thresholds.sweep_send_lag_max_pct / 100 }),
  };
}

/** Each candidate's knee against capacity_min_rps (default: the sweep's lowest rate): a sweep run only. */
function judgeCapacity(input: VerdictInput): { check: CapacityCheck; capacity: CapacityComparison } | null {
  const sweep = input.sweep;
  if (!sweep) return null;
  const budget = sweepBudget(input.thresholds);
  const minRps = input.thresholds.capacity_min_rps ?? sweep.rates[0] ?? 0;
  const endpoints: CapacityEndpoint[] = sweep.endpoints.map((e) => {
    const steps = e.steps.map((s) => capacityStep(s, budget));
    const decision = decideCapacity(steps.map((s) => ({ rate: s.offered_rps, status: s.status })), minRps);
    const kneeStep = decision.kneeRps === null ? null : steps.find((s) => s.offered_rps === decision.kneeRps)!.step;
    return { ...e, status: decision.status, reason: decision.reason, knee_rps: decision.kneeRps, knee_step: kneeStep, steps };
  });
  const candidates = endpoints.filter((e) => e.role === 'primary');
  const status = worst(candidates.map((c) => c.status));
  const knees = candidates.map((c) => c.knee_rps);
  const kneeRps = knees.length === 0 || knees.includes(null) ? null : Math.min(...(knees as number[]));
  const comparison: CapacityComparison = {
    status,
    min_rps: minRps,
    latency_p95_max_ms: budget.latencyP95MaxMs,
    success_rate_min_pct: budget.successRateMinPct,
    step_s: sweep.step_s,
    warmup_s: sweep.warmup_s,
    rates: [...sweep.rates],
    steps_probed: Math.max(0, ...endpoints.map((e) => e.steps.length)),
    endpoints,
  };
  const parts = candidates.map((c) => {
    const knee = c.knee_rps === null ? 'no step held the budget' : `knee ${c.knee_rps} rps`;
    return `${c.endpoint_name}: ${knee} (min ${minRps} rps) — ${REASON_TEXT[c.reason]}`;
  });
  return {
    check: {
      name: 'capacity',
      status,
      message: parts.join('; ') || 'no candidate swept — inconclusive: nothing was probed',
      details: {
        min_rps: minRps,
        knee_rps: kneeRps,
        candidates: candidates.map((c) => ({ endpoint_id: c.endpoint_id, endpoint_name: c.endpoint_name, status: c.status, reason: c.reason, knee_rps: c.knee_rps })),
      },
    },
    capacity: comparison,
  };
}

/** The sweep's step table (capacityTable): one row per endpoint and step, the knee marked, a step the prober could not keep said so. */
export const capacity: CheckModule<CapacityCheck> = {
  name: 'capacity',
  judge: judgeCapacity,
  markdown: { rank: 60, lines: ({ capacity: c, escape }) => (c ? ['', ...markdownTable(capacityTable(c, 'markdown'), escape)] : []) },
  text: {
    rank: 50,
    lines: (verdict) => {
      const c = verdict.capacity as CapacityComparison | null | undefined;
      return c && Array.isArray(c.endpoints) ? textTable(capacityTable(c, 'text')) : [];
    },
  },
};
