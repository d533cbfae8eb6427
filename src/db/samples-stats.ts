import type postgres from 'postgres';
import type { LatencySummary, RunStats } from '../domain/run-stats';
import type { Queryable } from './client';

/*
 * Latency statistics of a run's samples, computed in Postgres (a run may hold a million samples
 * per target): only aggregates and a few order statistics come back. A capacity sweep's warm-up
 * calls (warmup true) count nowhere.
 */

interface StatsRow {
  total: number;
  successful: number;
  behind: number;
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
 * Aggregates the samples of the given targets (of one region, when given) in Postgres. percentile_disc is nearest-rank:
 * the first value whose cumulative share reaches the fraction.
 */
export async function aggregateLatency(
  sql: Queryable,
  runId: string,
  targetIds: readonly string[],
  region?: string,
): Promise<Pick<RunStats, 'calls' | 'latency'>> {
  const only = region ?? null;
  const [row] = await sql<StatsRow[]>`
    select
      count(*)::int as total,
      (count(*) filter (where ok))::int as successful,
      (count(*) filter (where outcome = 'behind'))::int as behind,
      coalesce(round(avg(latency_us) filter (where ok) / 1000.0), 0)::int as s_avg,
      coalesce(round((percentile_disc(0.50) within group (order by latency_us) filter (where ok)) / 1000.0), 0)::int as s_p50,
      coalesce(round((percentile_disc(0.95) within group (order by latency_us) filter (where ok)) / 1000.0), 0)::int as s_p95,
      coalesce(round((percentile_disc(0.99) within group (order by latency_us) filter (where ok)) / 1000.0), 0)::int as s_p99,
      coalesce(round(avg(latency_us) / 1000.0), 0)::int as a_avg,
      coalesce(round((percentile_disc(0.50) within group (order by latency_us)) / 1000.0), 0)::int as a_p50,
      coalesce(round((percentile_disc(0.95) within group (order by latency_us)) / 1000.0), 0)::int as a_p95,
      coalesce(round((percentile_disc(0.99) within group (order by latency_us)) / 1000.0), 0)::int as a_p99
    from run_samples
    where run_id = ${runId} and target_id = any(${targetIds as string[]}::uuid[]) and warmup is not true and (${only}::text is null or region = ${only})`;
  const r = row!;
  const summary = (avg: number, p50: number, p95: number, p99: number, n: number): LatencySummary => ({
    avg_ms: avg,
    p50_ms: p50,
    p95_ms: p95,
    p99_ms: p99,
    sample_count: n,
  });
  return {
    calls: { total: r.total, successful: r.successful, failed: r.total - r.successful, ...(r.behind > 0 ? { behind: r.behind } : {}) },
    latency: {
      successful: summary(r.s_avg, r.s_p50, r.s_p95, r.s_p99, r.successful),
      all: summary(r.a_avg, r.a_p50, r.a_p95, r.a_p99, r.total),
    },
  };
}

/**
 * The successful latencies (µs) of the given targets as a sparse sorted sample: `length` is the
 * number of successful calls, and only the order statistics the verdict reads are present (each
 * percentile's nearest rank and the ranks of its 95 % interval, from `ranksFor(n)`). A run may
 * hold a million samples per target, so Postgres sorts and only those few values come back.
 */
export async function successfulOrderStatistics(
  sql: Queryable,
  runId: string,
  targetIds: readonly string[],
  ranksFor: (n: number) => readonly number[],
  region?: string,
): Promise<ArrayLike<number>> {
  const ids = targetIds as string[];
  const only = region ?? null;
  const successful = sql`run_id = ${runId} and target_id = any(${ids}::uuid[]) and ok and warmup is not true and (${only}::text is null or region = ${only})`;
  const [count] = await sql<{ n: number }[]>`select count(*)::int as n from run_samples where ${successful}`;
  return orderStatistics(sql, successful, count!.n, ranksFor);
}

/**
 * The latencies of the `n` samples that `where` (a condition on run_samples) picks, as a sparse
 * sorted sample: `length` is n, and only the ranks `ranksFor(n)` names are present.
 */
export async function orderStatistics(
  sql: Queryable,
  where: postgres.PendingQuery<postgres.Row[]>,
  n: number,
  ranksFor: (n: number) => readonly number[],
): Promise<ArrayLike<number>> {
  const sample: { length: number; [rank: number]: number } = { length: n };
  const ranks = [...new Set(ranksFor(n))].filter((r) => r >= 1 && r <= n);
  if (ranks.length === 0) return sample;
  const rows = await sql<{ rank: number; latency_us: number }[]>`
    select rank::int, latency_us from (
      select latency_us, row_number() over (order by latency_us) as rank
      from run_samples where ${where}
    ) ordered
    where rank = any(${ranks}::bigint[])`;
  for (const r of rows) sample[r.rank - 1] = Number(r.latency_us);
  return sample;
}

/**
 * Share of the 1 s buckets between the first and the last sample of the given targets in which
 * at least one call succeeded (empty seconds count); null when there is no sample.
 */
export async function answeredSecondShare(sql: Queryable, runId: string, targetIds: readonly string[], region?: string): Promise<number | null> {
  const only = region ?? null;
  const [row] = await sql<{ answered: number; seconds: number | null }[]>`
    select (count(distinct date_trunc('second', started_at)) filter (where ok))::int as answered,
      (extract(epoch from date_trunc('second', max(started_at)) - date_trunc('second', min(started_at))))::int + 1 as seconds
    from run_samples where run_id = ${runId} and target_id = any(${targetIds as string[]}::uuid[]) and warmup is not true and (${only}::text is null or region = ${only})`;
  if (!row || row.seconds === null) return null;
  return row.answered / row.seconds;
}
