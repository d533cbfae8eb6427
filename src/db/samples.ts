import type { LatencySummary, RunStats } from '../domain/stats';
import type { Queryable } from './client';
import type { TargetRole } from './runs';

export type SampleOutcome = 'ok' | 'http_error' | 'rpc_error' | 'timeout' | 'connection_error' | 'invalid_response';

export interface SampleRow {
  run_id: string;
  target_id: string;
  seq: number;
  role: TargetRole;
  method: string;
  started_at: Date;
  latency_us: number;
  ok: boolean;
  outcome: SampleOutcome;
  http_status: number | null;
  rpc_error_code: number | null;
  response_hash: string | null;
  matches_reference: boolean | null;
}

const SAMPLE_COLUMNS = [
  'run_id',
  'target_id',
  'seq',
  'role',
  'method',
  'started_at',
  'latency_us',
  'ok',
  'outcome',
  'http_status',
  'rpc_error_code',
  'response_hash',
  'matches_reference',
] as const;

/** Idempotent on (run_id, target_id, seq): a retried chunk rewrites nothing and counts nothing twice. */
export async function insertSamples(sql: Queryable, samples: readonly SampleRow[]): Promise<number> {
  if (samples.length === 0) return 0;
  const result = await sql`
    insert into run_samples ${sql(samples as SampleRow[], ...SAMPLE_COLUMNS)}
    on conflict (run_id, target_id, seq) do nothing`;
  return result.count;
}

interface StatsRow {
  total: number;
  successful: number;
  s_avg: number;
  s_p50: number;
  s_p95: number;
  s_p99: number;
  a_avg: number;
  a_p50: number;
  a_p95: number;
  a_p99: number;
}

/**
 * Aggregates the samples of the given targets in Postgres. percentile_disc is nearest-rank:
 * the first value whose cumulative share reaches the fraction.
 */
export async function aggregateLatency(
  sql: Queryable,
  runId: string,
  targetIds: readonly string[],
): Promise<Pick<RunStats, 'calls' | 'latency'>> {
  const [row] = await sql<StatsRow[]>`
    select
      count(*)::int as total,
      (count(*) filter (where ok))::int as successful,
      coalesce(round(avg(latency_us) filter (where ok) / 1000.0), 0)::int as s_avg,
      coalesce(round((percentile_disc(0.50) within group (order by latency_us) filter (where ok)) / 1000.0), 0)::int as s_p50,
      coalesce(round((percentile_disc(0.95) within group (order by latency_us) filter (where ok)) / 1000.0), 0)::int as s_p95,
      coalesce(round((percentile_disc(0.99) within group (order by latency_us) filter (where ok)) / 1000.0), 0)::int as s_p99,
      coalesce(round(avg(latency_us) / 1000.0), 0)::int as a_avg,
      coalesce(round((percentile_disc(0.50) within group (order by latency_us)) / 1000.0), 0)::int as a_p50,
      coalesce(round((percentile_disc(0.95) within group (order by latency_us)) / 1000.0), 0)::int as a_p95,
      coalesce(round((percentile_disc(0.99) within group (order by latency_us)) / 1000.0), 0)::int as a_p99
    from run_samples
    where run_id = ${runId} and target_id = any(${targetIds as string[]}::uuid[])`;
  const r = row!;
  const summary = (avg: number, p50: number, p95: number, p99: number, n: number): LatencySummary => ({
    avg_ms: avg,
    p50_ms: p50,
    p95_ms: p95,
    p99_ms: p99,
    sample_count: n,
  });
  return {
    calls: { total: r.total, successful: r.successful, failed: r.total - r.successful },
    latency: {
      successful: summary(r.s_avg, r.s_p50, r.s_p95, r.s_p99, r.successful),
      all: summary(r.a_avg, r.a_p50, r.a_p95, r.a_p99, r.total),
    },
  };
}

export async function countRunSamples(sql: Queryable, runId: string): Promise<number> {
  const [row] = await sql<{ n: number }[]>`select count(*)::int as n from run_samples where run_id = ${runId}`;
  return row!.n;
}
