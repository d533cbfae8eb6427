import type { BatchLimit } from '../domain/batch-limit';
import { targetStats, type MeasuredStats } from '../domain/run-stats';
import type { TargetRole, TargetStatus } from '../domain/run-model';
import type { Queryable } from './client';

/* A run's targets (run_targets): one endpoint probed in one role, with what its probes learnt. */

export interface RunTargetRow {
  id: string;
  run_id: string;
  endpoint_id: string;
  endpoint_name: string;
  role: TargetRole;
  order_index: number;
  status: TargetStatus;
  metadata: Record<string, unknown>;
  calls_planned: number | null;
  started_at: Date | null;
  finished_at: Date | null;
  /** The endpoint's redacted URL (scheme, host and port). */
  endpoint_url: string;
  /** The endpoint was given for this run only (a trigger's per-run target). */
  ephemeral: boolean;
}

export async function findRunTargets(sql: Queryable, runId: string): Promise<RunTargetRow[]> {
  return sql<RunTargetRow[]>`
    select t.*, e.url_redacted as endpoint_url, e.owner_run_id is not null as ephemeral
    from run_targets t join endpoints e on e.id = t.endpoint_id
    where t.run_id = ${runId} order by t.order_index`;
}

export async function markTargetRunning(sql: Queryable, targetId: string): Promise<void> {
  await sql`
    update run_targets set status = 'running', started_at = coalesce(started_at, now())
    where id = ${targetId} and status in ('pending', 'running')`;
}

/** Ends a target; its `metadata.stats` get the run's stats shape, `tests` counting the target itself. */
export async function finishTarget(
  sql: Queryable,
  targetId: string,
  status: Extract<TargetStatus, 'success' | 'failed' | 'cancelled'>,
  measured: { stats?: MeasuredStats },
): Promise<void> {
  const metadata = measured.stats ? { stats: targetStats(measured.stats, status === 'success') } : {};
  await sql`
    update run_targets set status = ${status}, finished_at = now(), metadata = metadata || ${sql.json(metadata as never)}
    where id = ${targetId} and status in ('pending', 'running')`;
}

/**
 * Records what a probe chunk learnt of the target's batch limit (`metadata.batch_limit`). A later
 * chunk's finding replaces an earlier one (the client of later chunks knows at least as much),
 * except that bounds never replace an exact limit: a chunk retried on another worker starts a new
 * client, whose search a 429 may cut short.
 */
export async function recordBatchLimit(sql: Queryable, targetId: string, limit: BatchLimit): Promise<void> {
  await sql`
    update run_targets set metadata = metadata || ${sql.json({ batch_limit: limit } as never)}
    where id = ${targetId} and (${limit.limit !== null}::boolean or (metadata->'batch_limit'->>'limit') is null)`;
}

/** The batch limit a probe chunk found for the target (recordBatchLimit); none when no batch was refused for its size. */
export function batchLimitOf(target: Pick<RunTargetRow, 'metadata'>): BatchLimit | undefined {
  return target.metadata.batch_limit as BatchLimit | undefined;
}

export async function findTargetsOfRuns(sql: Queryable, runIds: readonly string[]): Promise<RunTargetRow[]> {
  return sql<RunTargetRow[]>`
    select t.*, e.url_redacted as endpoint_url, e.owner_run_id is not null as ephemeral
    from run_targets t join endpoints e on e.id = t.endpoint_id
    where t.run_id = any(${runIds as string[]}::uuid[]) order by t.order_index`;
}
