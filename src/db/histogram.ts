import type { Queryable } from './client';

/**
 * Latency distribution of a run's successful calls, per target, on one set of buckets shared by
 * every target so candidate and reference can be drawn side by side. Bucket i covers
 * [from_us + i × bucket_us, from_us + (i + 1) × bucket_us); calls at or above the last bound
 * (the slowest ~1 % of the run) are counted in `overflow`, so one outlier cannot flatten the chart.
 */
export interface LatencyHistogramRows {
  from_us: number;
  bucket_us: number;
  buckets: number;
  targets: { target_id: string; counts: number[]; overflow: number; total: number }[];
}

/** Bucket widths, in microseconds, that read well on an axis: 1-2-5 steps from 0.1 ms. */
const NICE_WIDTHS_US = [100, 200, 500].flatMap((w) => [w, w * 10, w * 100, w * 1_000, w * 10_000]).sort((a, b) => a - b);

/** Aim for about this many buckets between the fastest call and the 99th percentile of all. */
const TARGET_BUCKETS = 24;
const MAX_BUCKETS = 60;

export function chooseBuckets(minUs: number, p99Us: number): { fromUs: number; bucketUs: number; buckets: number } {
  const span = Math.max(p99Us - minUs, 1);
  const bucketUs = NICE_WIDTHS_US.find((w) => span / w <= TARGET_BUCKETS) ?? NICE_WIDTHS_US[NICE_WIDTHS_US.length - 1]!;
  const fromUs = Math.floor(minUs / bucketUs) * bucketUs;
  // The last regular bucket ends strictly above p99, so p99 itself is inside the chart.
  const buckets = Math.min(MAX_BUCKETS, Math.max(1, Math.floor((p99Us - fromUs) / bucketUs) + 1));
  return { fromUs, bucketUs, buckets };
}

/** Null when the run has no successful sample yet. Two passes over the run's samples, both in SQL. */
export async function latencyHistogram(sql: Queryable, runId: string): Promise<LatencyHistogramRows | null> {
  const [bounds] = await sql<{ min_us: number | null; p99_us: number | null }[]>`
    select min(latency_us) as min_us, percentile_disc(0.99) within group (order by latency_us) as p99_us
    from run_samples where run_id = ${runId} and ok`;
  if (!bounds || bounds.min_us === null || bounds.p99_us === null) return null;
  const { fromUs, bucketUs, buckets } = chooseBuckets(bounds.min_us, bounds.p99_us);
  // width_bucket: 1..buckets inside the range, buckets + 1 at or above its upper bound.
  const rows = await sql<{ target_id: string; bucket: number; n: number }[]>`
    select target_id,
      width_bucket(latency_us, ${fromUs}::int, ${fromUs + bucketUs * buckets}::int, ${buckets}::int) as bucket,
      count(*)::int as n
    from run_samples where run_id = ${runId} and ok
    group by target_id, bucket order by target_id, bucket`;
  const byTarget = new Map<string, { target_id: string; counts: number[]; overflow: number; total: number }>();
  for (const row of rows) {
    let entry = byTarget.get(row.target_id);
    if (!entry) {
      entry = { target_id: row.target_id, counts: new Array<number>(buckets).fill(0), overflow: 0, total: 0 };
      byTarget.set(row.target_id, entry);
    }
    if (row.bucket > buckets) entry.overflow += row.n;
    else entry.counts[Math.max(row.bucket, 1) - 1]! += row.n;
    entry.total += row.n;
  }
  return { from_us: fromUs, bucket_us: bucketUs, buckets, targets: [...byTarget.values()] };
}
