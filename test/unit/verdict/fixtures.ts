/* What the verdict's unit tests share: thresholds, stats and latencies of steady runs, and the inputs built from them. */
import { normalQuantile } from '../../../src/domain/statistics/distributions';
import { nearestRank } from '../../../src/domain/statistics/quantile-interval';
import type { RunStats } from '../../../src/domain/run-stats';
import type {
  BaselineInput,
  Check,
  CheckName,
  ComputedVerdict,
  HistoryBaselineDetails,
  LatencyVsBaselineCheck,
  RunBaselineDetails,
  Thresholds,
  VerdictInput,
} from '../../../src/domain/verdict';

export const THRESHOLDS: Thresholds = {
  latency_p95_max_ms: 200,
  latency_regression_max_pct: 10,
  latency_vs_reference_max_pct: 20,
  correctness_min_pct: 99.9,
  correctness_enabled: false,
};

/** Stats of `calls` calls, `failed` of them failed, with the given successful-call percentiles. */
export function stats(p: { p50?: number; p95: number; p99?: number; calls?: number; failed?: number }): RunStats {
  const total = p.calls ?? 100;
  const failed = p.failed ?? 0;
  const successful = total - failed;
  const p50 = p.p50 ?? Math.floor(p.p95 / 2);
  const p99 = p.p99 ?? p.p95 + 10;
  return {
    calls: { total, successful, failed },
    tests: { successful, failed },
    latency: {
      successful: { avg_ms: p50, p50_ms: p50, p95_ms: p.p95, p99_ms: p99, sample_count: successful },
      all: { avg_ms: p50, p50_ms: p50, p95_ms: p.p95, p99_ms: p99, sample_count: total },
    },
  };
}

/**
 * Sorted successful latencies (µs) whose nearest-rank p50/p95/p99 are exactly the stats' ms values:
 * linear between those ranks, from 60 % of p50 at rank 1 to 105 % of p99 at rank n.
 */
export function latenciesOf(s: RunStats): Float64Array {
  const n = s.calls.successful;
  const { p50_ms: p50, p95_ms: p95, p99_ms: p99 } = s.latency.successful;
  const anchors: [number, number][] = [
    [1, p50 * 600],
    [nearestRank(n, 0.5), p50 * 1000],
    [nearestRank(n, 0.95), p95 * 1000],
    [nearestRank(n, 0.99), p99 * 1000],
    [n, p99 * 1050],
  ];
  const out = new Float64Array(n);
  for (let r = 1; r <= n; r++) {
    const exact = [...anchors].reverse().find(([rank]) => rank === r);
    if (exact) {
      out[r - 1] = exact[1];
      continue;
    }
    const below = [...anchors].reverse().find(([rank]) => rank < r)!;
    const above = anchors.find(([rank]) => rank > r)!;
    out[r - 1] = Math.round(below[1] + ((above[1] - below[1]) * (r - below[0])) / (above[0] - below[0]));
  }
  return out;
}

/**
 * n latencies of a log-normal endpoint (σ_log 0.4, the bench's model) placed at its quantiles, so the
 * nearest-rank p95 is p95Ms: a steady run whose intervals are as wide as a real one's.
 */
export function steady(p95Ms: number, n = 2000): { stats: RunStats; latencies: Float64Array } {
  const latencies = new Float64Array(n);
  const r95 = nearestRank(n, 0.95);
  const z95 = normalQuantile((r95 - 0.5) / n);
  for (let r = 1; r <= n; r++) latencies[r - 1] = Math.round(p95Ms * 1000 * Math.exp(0.4 * (normalQuantile((r - 0.5) / n) - z95)));
  const ms = (rank: number) => Math.round(latencies[rank - 1]! / 1000);
  const s = stats({ p50: ms(nearestRank(n, 0.5)), p95: p95Ms, p99: ms(nearestRank(n, 0.99)), calls: n });
  return { stats: s, latencies };
}

/** No successful call: what the stats query returns when every call failed (or none was made). */
export function noSuccess(calls: number): RunStats {
  return stats({ p50: 0, p95: 0, p99: 0, calls, failed: calls });
}

export const RUN_ID = '11111111-1111-4111-8111-111111111111';
export const BASELINE_RUN_ID = '22222222-2222-4222-8222-222222222222';
export const REFERENCE_ENDPOINT_ID = '33333333-3333-4333-8333-333333333333';

export function input(overrides: Partial<VerdictInput> = {}): VerdictInput {
  const candidate = overrides.candidate ?? stats({ p95: 100 });
  return {
    run: { id: RUN_ID, status: 'success', failure_reason: null },
    suiteName: 'mainnet smoke',
    thresholds: THRESHOLDS,
    candidate,
    candidateLatencies: latenciesOf(candidate),
    reference: null,
    baseline: null,
    ...overrides,
  };
}

export function reference(s: RunStats, latencies: Float64Array = latenciesOf(s)): NonNullable<VerdictInput['reference']> {
  return { endpoint_id: REFERENCE_ENDPOINT_ID, endpoint_name: 'trusted reference', stats: s, latencies };
}

/** A `previous_success` baseline: the previous passing run's stats and samples. */
export function previousRun(s: RunStats, latencies: Float64Array = latenciesOf(s), mode: BaselineInput['mode'] = 'previous_success'): BaselineInput {
  return { mode, previous: { run_id: BASELINE_RUN_ID, stats: s, latencies } };
}


/** The check of that name, typed as that check (its details are its own shape). */
export function check<N extends CheckName>(result: ComputedVerdict, name: N): Extract<Check, { name: N }> {
  const found = result.checks.find((c): c is Extract<Check, { name: N }> => c.name === name);
  if (!found) throw new Error(`no ${name} check in ${JSON.stringify(result.checks.map((c) => c.name))}`);
  return found;
}

/** latency_vs_baseline's details as the history model writes them (throws for the other models). */
export function historyDetails(c: LatencyVsBaselineCheck): HistoryBaselineDetails {
  if (c.details.model !== 'history') throw new Error(`model ${c.details.model}, not history`);
  return c.details;
}

/** latency_vs_baseline's details as the previous_run and run models write them (throws for history). */
export function runModelDetails(c: LatencyVsBaselineCheck): RunBaselineDetails {
  if (c.details.model === 'history') throw new Error('model history, not previous_run or run');
  return c.details;
}
