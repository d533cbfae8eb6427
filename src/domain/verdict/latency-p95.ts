import { showMsInterval } from '../interval-display';
import { quantileInterval, type SortedSamples } from '../statistics/quantile-interval';
import type { CheckJson, CheckModule, VerdictJson } from './check-module';
import { EMPTY, intervalsMs, showPercentile } from './format';
import type { CheckOf, PercentileIntervalsMs, VerdictInput } from './types';
import { isIntervals, type IntervalsJson, type PercentileJson } from './verdict-json';

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
export const latencyP95: CheckModule<LatencyP95Check> = {
  name: 'latency_p95',
  judge: (input) => (input.sweep ? null : { check: latencyP95Check(input, input.candidateLatencies ?? EMPTY) }),
  text: { rank: 20, lines: percentileLines },
};

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

/**
 * "p50 / p95 / p99 [95% interval]" of each side the verdict measured: the candidates, each
 * candidate when there are several, the reference. Nothing for verdicts stored before intervals.
 */
function percentileLines(verdict: VerdictJson, own: CheckJson | undefined): string[] {
  const details = (own?.details ?? {}) as { intervals_ms?: unknown; targets?: { endpoint_name?: unknown; intervals_ms?: unknown }[] };
  const reference = (verdict.reference_comparison as { endpoint_name?: unknown; latency?: { reference_intervals_ms?: unknown } } | null | undefined) ?? null;
  const rows: [string, IntervalsJson][] = [];
  if (isIntervals(details.intervals_ms)) rows.push(['candidate', details.intervals_ms]);
  const targets = Array.isArray(details.targets) ? details.targets : [];
  if (targets.length > 1) {
    for (const target of targets) if (isIntervals(target.intervals_ms)) rows.push([`candidate ${String(target.endpoint_name)}`, target.intervals_ms]);
  }
  if (reference && isIntervals(reference.latency?.reference_intervals_ms)) rows.push([`reference ${String(reference.endpoint_name)}`, reference.latency.reference_intervals_ms]);
  if (rows.length === 0) return [];
  // As the verdict's messages write it: the point rounded together with its interval, never outside it.
  const cell = (q: PercentileJson | undefined) => (q ? showMsInterval(q) : '–');
  const cells = rows.map(([name, q]) => [name, cell(q.p50), cell(q.p95), cell(q.p99)]);
  const widths = [0, 1, 2, 3].map((i) => Math.max(...cells.map((c) => c[i]!.length)));
  return [
    'Latency of successful calls, p50 / p95 / p99 [95% confidence interval]:',
    ...cells.map((c) => `  ${c[0]!.padEnd(widths[0]!)}  ${c.slice(1).map((v, i) => v.padEnd(widths[i + 1]!)).join('  ').trimEnd()}`),
  ];
}
