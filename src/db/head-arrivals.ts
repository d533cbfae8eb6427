import type { Queryable } from './client';

/* A run's head watch: the heads each target announced and the observer's segments (migration 022). */

export interface HeadArrivalRow {
  target_id: string;
  number: string;
  hash: string | null;
  arrival_ms: number;
  via: 'subscribe' | 'poll';
  segment: number;
}

export interface WatchSegmentRow {
  target_id: string;
  segment: number;
  watch_started_at: Date;
  started_ms: number;
  last_seen_ms: number;
  live_from_ms: number | null;
  reconnects: number;
  disconnects: number;
  duplicates: number;
  dropped: number;
  /** Distinct heads not stored: beyond what the watch stores per endpoint (migration 026). */
  not_stored: number;
  /** Heads announced with a number outside bigint: never stored (migration 026). */
  out_of_range: number;
}

export interface NewHeadArrival {
  targetId: string;
  number: bigint;
  hash: string | null;
  arrivalMs: number;
  segment: number;
}

/** Stores arrivals; a head a target already has (same height and hash) keeps its first arrival. */
export async function recordHeadArrivals(sql: Queryable, runId: string, via: 'subscribe' | 'poll', arrivals: readonly NewHeadArrival[]): Promise<number> {
  if (arrivals.length === 0) return 0;
  const rows = arrivals.map((a) => ({
    run_id: runId,
    target_id: a.targetId,
    number: a.number.toString(),
    hash: a.hash,
    arrival_ms: a.arrivalMs,
    via,
    segment: a.segment,
  }));
  const inserted = await sql`
    insert into run_head_arrivals ${sql(rows, 'run_id', 'target_id', 'number', 'hash', 'arrival_ms', 'via', 'segment')}
    on conflict (run_id, target_id, number, (coalesce(hash, ''))) do nothing`;
  return inserted.count;
}

/** The segment's row for every target, written again at every flush (last_seen_ms and the counts grow). */
export async function upsertWatchSegments(
  sql: Queryable,
  runId: string,
  segments: readonly Omit<WatchSegmentRow, 'watch_started_at'>[],
  watchStartedAt: Date,
): Promise<void> {
  if (segments.length === 0) return;
  const rows = segments.map((s) => ({ run_id: runId, watch_started_at: watchStartedAt, ...s }));
  await sql`
    insert into run_head_watch_segments ${sql(rows, 'run_id', 'target_id', 'segment', 'watch_started_at', 'started_ms', 'last_seen_ms', 'live_from_ms', 'reconnects', 'disconnects', 'duplicates', 'dropped', 'not_stored', 'out_of_range')}
    on conflict (run_id, target_id, segment) do update set
      last_seen_ms = greatest(run_head_watch_segments.last_seen_ms, excluded.last_seen_ms),
      live_from_ms = coalesce(run_head_watch_segments.live_from_ms, excluded.live_from_ms),
      reconnects = excluded.reconnects, disconnects = excluded.disconnects,
      duplicates = excluded.duplicates, dropped = excluded.dropped,
      not_stored = excluded.not_stored, out_of_range = excluded.out_of_range`;
}

export async function findWatchSegments(sql: Queryable, runId: string): Promise<WatchSegmentRow[]> {
  return sql<WatchSegmentRow[]>`
    select target_id, segment, watch_started_at, started_ms, last_seen_ms, live_from_ms, reconnects, disconnects, duplicates, dropped, not_stored, out_of_range
    from run_head_watch_segments where run_id = ${runId} order by segment, target_id`;
}

/**
 * A run's arrivals in arrival order, each target's first `perTarget` only (the watch stores at
 * most maxStoredHeads per target, so what finalize holds stays bounded even for rows stored
 * before the bound: PostgreSQL picks them, the worker never sees the rest).
 */
export async function findHeadArrivals(sql: Queryable, runId: string, perTarget: number): Promise<HeadArrivalRow[]> {
  return sql<HeadArrivalRow[]>`
    select target_id, number::text, hash, arrival_ms, via, segment from (
      select target_id, number, hash, arrival_ms, via, segment,
        row_number() over (partition by target_id order by arrival_ms) as nth
      from run_head_arrivals where run_id = ${runId}
    ) firsts
    where nth <= ${perTarget}
    order by arrival_ms, target_id`;
}

/** How many heads each target of the run has stored so far (a resumed watch goes on counting from here). */
export async function countHeadArrivals(sql: Queryable, runId: string): Promise<Map<string, number>> {
  const rows = await sql<{ target_id: string; n: number }[]>`
    select target_id, count(*)::int as n from run_head_arrivals where run_id = ${runId} group by target_id`;
  return new Map(rows.map((r) => [r.target_id, r.n]));
}

/** A page of a run's arrivals in arrival order (optionally of one target), and how many there are. */
export async function listHeadArrivals(
  sql: Queryable,
  runId: string,
  filter: { targetId: string | null; limit: number; offset: number },
): Promise<{ rows: HeadArrivalRow[]; total: number }> {
  const where = sql`where run_id = ${runId} ${filter.targetId ? sql`and target_id = ${filter.targetId}` : sql``}`;
  const rows = await sql<HeadArrivalRow[]>`
    select target_id, number::text, hash, arrival_ms, via, segment from run_head_arrivals ${where}
    order by arrival_ms, target_id, number limit ${filter.limit} offset ${filter.offset}`;
  const [count] = await sql<{ n: number }[]>`select count(*)::int as n from run_head_arrivals ${where}`;
  return { rows, total: count!.n };
}
