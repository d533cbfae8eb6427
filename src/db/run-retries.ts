import type { Queryable } from './client';

/* Failed attempts of a run's activities (run_retries): the run's retry_history. */

export interface RetryRow {
  target_id: string | null;
  endpoint_id: string | null;
  activity: string;
  /** First seq of the probe chunk the attempt belonged to; null for activities that are no chunk. */
  chunk_seq: number | null;
  attempt: number;
  error_type: string;
  message: string;
  failed_at: Date;
  next_attempt_at: Date | null;
}

export async function findRetryHistory(sql: Queryable, runId: string): Promise<RetryRow[]> {
  return sql<RetryRow[]>`
    select target_id, endpoint_id, activity, chunk_seq, attempt, error_type, message, failed_at, next_attempt_at
    from run_retries where run_id = ${runId} order by failed_at, id`;
}

export interface NewRetry {
  runId: string;
  targetId: string | null;
  /** When null, the target's endpoint. */
  endpointId: string | null;
  activity: string;
  chunkSeq: number | null;
  attempt: number;
  errorType: string;
  message: string;
  failedAt: Date;
  nextAttemptAt: Date | null;
}

/**
 * Records failed attempts (a few at most: those of one activity that could not be written while
 * the database was down); one row per (run, activity, target, chunk, attempt) however often it
 * is written.
 */
export async function recordRetries(sql: Queryable, retries: readonly NewRetry[]): Promise<void> {
  for (const r of retries) {
    await sql`
      insert into run_retries (run_id, target_id, endpoint_id, activity, chunk_seq, attempt, error_type, message,
                               failed_at, next_attempt_at)
      values (${r.runId}, ${r.targetId},
              coalesce(${r.endpointId}::uuid, (select endpoint_id from run_targets where id = ${r.targetId}::uuid)),
              ${r.activity}, ${r.chunkSeq}, ${r.attempt}, ${r.errorType}, ${r.message}, ${r.failedAt}, ${r.nextAttemptAt})
      on conflict do nothing`;
  }
}

/** The attempts of one activity execution (one chunk of one target) already in retry_history, with their error type. */
export async function recordedAttempts(
  sql: Queryable,
  key: { runId: string; targetId: string | null; activity: string; chunkSeq: number | null },
): Promise<Map<number, string>> {
  const rows = await sql<{ attempt: number; error_type: string }[]>`
    select attempt, error_type from run_retries
    where run_id = ${key.runId} and activity = ${key.activity}
      and coalesce(target_id, '00000000-0000-0000-0000-000000000000') = coalesce(${key.targetId}::uuid, '00000000-0000-0000-0000-000000000000')
      and coalesce(chunk_seq, -1) = coalesce(${key.chunkSeq}::int, -1)`;
  return new Map(rows.map((r) => [r.attempt, r.error_type]));
}

export async function findRetriesOfRuns(sql: Queryable, runIds: readonly string[]): Promise<(RetryRow & { run_id: string })[]> {
  return sql<(RetryRow & { run_id: string })[]>`
    select run_id, target_id, endpoint_id, activity, chunk_seq, attempt, error_type, message, failed_at, next_attempt_at
    from run_retries where run_id = any(${runIds as string[]}::uuid[]) order by failed_at, id`;
}
