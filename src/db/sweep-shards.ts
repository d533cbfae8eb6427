import type { Queryable } from './client';

/*
 * Shard records of a sharded sweep step (migration 039): which worker process ran each shard
 * attempt, from which seq, and where it ended.
 */

export interface SweepShardKey {
  runId: string;
  targetId: string;
  step: number;
  shard: number;
  shards: number;
  fromSeq: number;
  attempt: number;
}

/** An attempt started on this worker (a repeated start of the same attempt keeps the last worker). */
export async function recordShardStarted(
  sql: Queryable,
  key: SweepShardKey,
  worker: { name: string; pid: number },
  resumedSeq: number,
): Promise<void> {
  await sql`
    insert into run_sweep_shards (run_id, target_id, step, shard, shards, from_seq, attempt, resumed_seq, worker, worker_pid)
    values (${key.runId}, ${key.targetId}, ${key.step}, ${key.shard}, ${key.shards}, ${key.fromSeq}, ${key.attempt}, ${resumedSeq},
            ${worker.name}, ${worker.pid})
    on conflict (run_id, target_id, step, shard, from_seq, attempt) do update set
      worker = excluded.worker, worker_pid = excluded.worker_pid, resumed_seq = excluded.resumed_seq, started_at = now(),
      next_seq = null, finished_at = null`;
}

/** The attempt ended: the next seq it leaves, and its own send-lag p99 (null: none sent). */
export async function recordShardFinished(sql: Queryable, key: SweepShardKey, end: { nextSeq: number; sendLagP99Us: number | null }): Promise<void> {
  await sql`
    update run_sweep_shards set next_seq = ${end.nextSeq}, send_lag_p99_us = ${end.sendLagP99Us}, finished_at = now()
    where run_id = ${key.runId} and target_id = ${key.targetId} and step = ${key.step} and shard = ${key.shard}
      and from_seq = ${key.fromSeq} and attempt = ${key.attempt}`;
}

export interface SweepShardRow {
  target_id: string;
  step: number;
  shard: number;
  shards: number;
  from_seq: number;
  attempt: number;
  resumed_seq: number;
  worker: string;
  worker_pid: number;
  next_seq: number | null;
}

/** A run's shard records, in step, target, shard and seq order. */
export async function sweepShardsOfRun(sql: Queryable, runId: string): Promise<SweepShardRow[]> {
  return sql<SweepShardRow[]>`
    select target_id, step, shard, shards, from_seq::int as from_seq, attempt, resumed_seq::int as resumed_seq, worker, worker_pid,
      next_seq::int as next_seq
    from run_sweep_shards where run_id = ${runId}
    order by step, target_id, shard, from_seq, attempt`;
}
