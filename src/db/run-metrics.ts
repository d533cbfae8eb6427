import type { MethodLatency } from '../domain/verdict';
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

/** Every call sent, per target and time bucket: a sweep's warm-up calls included (the timeline shows what the endpoint received). */
export async function timeBuckets(sql: Queryable, runId: string, bucketSeconds: number): Promise<BucketRow[]> {
  return sql<BucketRow[]>`
    select target_id, date_bin(${`${bucketSeconds} seconds`}::interval, started_at, timestamptz '2000-01-01') as t,
      count(*)::int as calls, (count(*) filter (where not ok))::int as failed,
      ${sql.unsafe(PERCENTILES('latency_us'))}
    from run_samples where run_id = ${runId}
    group by target_id, t order by target_id, t`;
}

/** Per target and method, over the measured calls: a sweep's warm-up calls count nowhere, as in the run's stats. */
export async function methodTable(sql: Queryable, runId: string): Promise<MethodRow[]> {
  return sql<MethodRow[]>`
    select target_id, method, count(*)::int as calls, (count(*) filter (where not ok))::int as failed,
      ${sql.unsafe(PERCENTILES('latency_us'))}
    from run_samples where run_id = ${runId} and warmup is not true
    group by target_id, method order by target_id, method`;
}

export async function sampleTimeSpan(sql: Queryable, runId: string): Promise<{ first: Date | null; last: Date | null }> {
  const [row] = await sql<{ first: Date | null; last: Date | null }[]>`
    select min(started_at) as first, max(started_at) as last from run_samples where run_id = ${runId}`;
  return row!;
}

/**
 * Per-method latency of the candidates (all `candidateTargetIds` together) against the
 * reference, for reference_comparison.latency.by_method. `calls` and `failed` count candidate
 * calls; the p95s are nearest-rank (percentile_disc) over successful calls, whole ms, 0 when a
 * side has no successful call of the method. A method only the reference answered has 0 calls.
 */
export async function referenceMethodLatency(
  sql: Queryable,
  runId: string,
  candidateTargetIds: readonly string[],
  referenceTargetId: string,
): Promise<MethodLatency[]> {
  const p95 = (side: string) =>
    `coalesce(round((percentile_disc(0.95) within group (order by latency_us) filter (where ${side} and ok)) / 1000.0), 0)::int`;
  return sql<MethodLatency[]>`
    with s as (
      select method, ok, latency_us, target_id = ${referenceTargetId}::uuid as on_reference
      from run_samples
      where run_id = ${runId} and target_id = any(${[...candidateTargetIds, referenceTargetId]}::uuid[]) and warmup is not true
    )
    select method,
      (count(*) filter (where not on_reference))::int as calls,
      (count(*) filter (where not on_reference and not ok))::int as failed,
      (count(*) filter (where not on_reference and ok))::int as candidate_successful,
      (count(*) filter (where on_reference and ok))::int as reference_successful,
      ${sql.unsafe(p95('not on_reference'))} as candidate_p95_ms,
      ${sql.unsafe(p95('on_reference'))} as reference_p95_ms
    from s
    group by method order by method`;
}
