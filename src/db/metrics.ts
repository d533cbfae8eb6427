import type { Queryable } from './client';

export interface BucketRow {
  target_id: string;
  t: Date;
  calls: number;
  failed: number;
  p50_ms: number;
  p95_ms: number;
  p99_ms: number;
}

export interface MethodRow {
  target_id: string;
  method: string;
  calls: number;
  failed: number;
  p50_ms: number;
  p95_ms: number;
  p99_ms: number;
}

// Percentiles of all calls in the group (nearest rank), in whole milliseconds.
const PERCENTILES = (column: string) => `
  coalesce(round((percentile_disc(0.50) within group (order by ${column})) / 1000.0), 0)::int as p50_ms,
  coalesce(round((percentile_disc(0.95) within group (order by ${column})) / 1000.0), 0)::int as p95_ms,
  coalesce(round((percentile_disc(0.99) within group (order by ${column})) / 1000.0), 0)::int as p99_ms`;

export async function timeBuckets(sql: Queryable, runId: string, bucketSeconds: number): Promise<BucketRow[]> {
  return sql<BucketRow[]>`
    select target_id, date_bin(${`${bucketSeconds} seconds`}::interval, started_at, timestamptz '2000-01-01') as t,
      count(*)::int as calls, (count(*) filter (where not ok))::int as failed,
      ${sql.unsafe(PERCENTILES('latency_us'))}
    from run_samples where run_id = ${runId}
    group by target_id, t order by target_id, t`;
}

export async function methodTable(sql: Queryable, runId: string): Promise<MethodRow[]> {
  return sql<MethodRow[]>`
    select target_id, method, count(*)::int as calls, (count(*) filter (where not ok))::int as failed,
      ${sql.unsafe(PERCENTILES('latency_us'))}
    from run_samples where run_id = ${runId}
    group by target_id, method order by target_id, method`;
}

export async function sampleTimeSpan(sql: Queryable, runId: string): Promise<{ first: Date | null; last: Date | null }> {
  const [row] = await sql<{ first: Date | null; last: Date | null }[]>`
    select min(started_at) as first, max(started_at) as last from run_samples where run_id = ${runId}`;
  return row!;
}
