import type { Queryable } from './client';

/* Head reads of a run's targets (run_heads): the head lag and the last heads the verdict shows. */

/** Records one observation of a target's chain head (see migration 005_run_heads.sql). */
export async function recordHead(
  sql: Queryable,
  head: { runId: string; targetId: string; observedAt: Date; head: bigint; height?: bigint | null },
): Promise<void> {
  const height = head.height === undefined || head.height === null ? null : head.height.toString();
  await sql`
    insert into run_heads (run_id, target_id, observed_at, head, height)
    values (${head.runId}, ${head.targetId}, ${head.observedAt}, ${head.head.toString()}, ${height})`;
}

/** A target's last head read of the run: the head (a slot on Solana) and the block height read beside it (null: none). */
export interface LastHead {
  target_id: string;
  head: number;
  height: number | null;
  observed_at: Date;
}

/** The last head read of each of the targets (run_heads); targets never read are left out. */
export async function lastHeads(sql: Queryable, runId: string, targetIds: readonly string[]): Promise<LastHead[]> {
  return sql<LastHead[]>`
    select distinct on (target_id) target_id, head::float8 as head, height::float8 as height, observed_at
    from run_heads where run_id = ${runId} and target_id = any(${targetIds as string[]}::uuid[])
    order by target_id, observed_at desc`;
}

/**
 * Head lag of the candidates behind (negative) or ahead of (positive) the reference, in blocks:
 * for every candidate observation, its head minus the reference head observed nearest in time;
 * the median of those differences, rounded to an integer. Null when there is no pair (no
 * candidate observation, or no reference observation).
 */
export async function medianHeadLag(
  sql: Queryable,
  runId: string,
  candidateTargetIds: readonly string[],
  referenceTargetId: string,
): Promise<number | null> {
  const [row] = await sql<{ lag: number | null }[]>`
    select round(percentile_cont(0.5) within group (order by (c.head - r.head)::float8))::int as lag
    from run_heads c
    cross join lateral (
      select head from run_heads
      where run_id = c.run_id and target_id = ${referenceTargetId}::uuid
      order by abs(extract(epoch from observed_at - c.observed_at)), observed_at
      limit 1
    ) r
    where c.run_id = ${runId} and c.target_id = any(${candidateTargetIds as string[]}::uuid[])`;
  return row?.lag ?? null;
}

/**
 * The target's measured head interval over the run: ms per block/slot, from its first and last
 * head reads (run_heads). Null when the head did not move (or was read fewer than twice).
 */
export async function headIntervalMs(sql: Queryable, runId: string, targetId: string): Promise<number | null> {
  const [row] = await sql<{ ms: number | null }[]>`
    select (extract(epoch from max(observed_at) - min(observed_at)) * 1000 / nullif(max(head) - min(head), 0))::float8 as ms
    from run_heads where run_id = ${runId} and target_id = ${targetId}::uuid`;
  return row?.ms ?? null;
}
