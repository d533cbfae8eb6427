import { quantileInterval, type SortedSamples } from '../statistics/quantile-interval';
import { EMPTY, intervalsMs, showPercentile } from './format';
import type { CheckOf, PercentileIntervalsMs, VerdictCheck, VerdictInput } from './types';

export interface LatencyP95Details {
  p95: number;
  threshold: number;
  /** Null when no call succeeded. */
  p95_us: number | null;
  intervals_ms: PercentileIntervalsMs;
  targets: { endpoint_id: string; endpoint_name: string; successful: number; intervals_ms: PercentileIntervalsMs }[];
}

export type LatencyP95Check = CheckOf<'latency_p95', LatencyP95Details>;

/**
 * The candidates' p95 against thresholds.latency_p95_max_ms: always judged, except in a capacity
 * sweep, which overloads the endpoint on purpose and holds every step to this limit instead (capacity).
 */
export const latencyP95: VerdictCheck<LatencyP95Check> = (input) =>
  input.sweep ? null : { check: latencyP95Check(input, input.candidateLatencies ?? EMPTY) };

function latencyP95Check(input: VerdictInput, latencies: SortedSamples): LatencyP95Check {
  const { candidate, thresholds: t } = input;
  const p95 = candidate.latency.successful.p95_ms;
  const q = quantileInterval(latencies, 0.95);
  const details: LatencyP95Details = {
    p95,
    threshold: t.latency_p95_max_ms,
    // The candidate's p95 in µs: what the history baseline of later runs reads.
    p95_us: Number.isNaN(q.point) ? null : q.point,
    intervals_ms: intervalsMs(latencies),
    // Every primary target on its own, so a suite with several candidates shows which one is slow.
    targets: (input.targets ?? []).map((target) => ({
      endpoint_id: target.endpoint_id,
      endpoint_name: target.endpoint_name,
      successful: target.latencies.length,
      intervals_ms: intervalsMs(target.latencies),
    })),
  };
  if (candidate.calls.successful === 0) {
    return { name: 'latency_p95', status: 'fail', message: 'no successful calls to measure', details };
  }
  const pass = p95 <= t.latency_p95_max_ms;
  return {
    name: 'latency_p95',
    status: pass ? 'pass' : 'fail',
    message: `p95 ${showPercentile(details.intervals_ms.p95, latencies.length, p95)} ${pass ? '<=' : '>'} ${t.latency_p95_max_ms} ms`,
    details,
  };
}
