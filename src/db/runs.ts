import type { RunStats } from '../domain/run-stats';
import type { PinnedContext } from '../domain/workload';
import type { ComputedVerdict } from '../domain/verdict';
import type { RunStatus, TargetRole } from '../domain/run-model';
import { priorityClassOfRun } from '../domain/run-priority';
import type { Queryable } from './client';
import { insertEndpoint, type NewEndpoint } from './endpoints';
import { parseRunListRow, parseRunRow, RUN_LIST_COLUMNS, runInsertSchema, type RunConfigSnapshot, type RunInsert, type RunListRow, type RunRow } from './run-row';
import type { RunTargetRow } from './run-targets';

/*
 * The runs table. Its targets are in run-targets.ts, failed attempts in run-retries.ts, head reads
 * in run-heads.ts and what baselines and trends read of earlier runs in run-history.ts.
 */

// The run row is declared once, as a zod schema (run-row.ts): its type, its insert and the list's columns derive from it.
export type { RunConfigSnapshot, RunListRow, RunRow } from './run-row';

export interface NewRun {
  id: string;
  tenantId: string;
  suiteId: string;
  triggeredBy: 'api' | 'schedule';
  baselineRunId: string | null;
  metadata: Record<string, unknown>;
  configSnapshot: RunConfigSnapshot;
  seed: number;
  workflowId: string;
  /** The schedule fire that started the run (its fire workflow's id); absent for API triggers. */
  scheduleFireId?: string;
  branch?: string | null;
  commitSha?: string | null;
  baselineBranch?: string | null;
  /** Endpoints given for this run only; inserted owned by it, before the targets that name them. */
  ownEndpoints?: (Omit<NewEndpoint, 'ownerRunId' | 'tenantId'> & { id: string })[];
  targets: { id: string; endpointId: string; endpointName: string; role: TargetRole; callsPlanned: number | null }[];
}

/** The run as stored and its targets as a run read shows them: the trigger answers with these, without reading them back. */
export async function insertRun(sql: Queryable, run: NewRun): Promise<{ run: RunRow; targets: RunTargetRow[] }> {
  const insert: RunInsert = {
    id: run.id,
    tenant_id: run.tenantId,
    test_suite_id: run.suiteId,
    triggered_by: run.triggeredBy,
    status: 'queued',
    baseline_run_id: run.baselineRunId,
    metadata: run.metadata,
    config_snapshot: run.configSnapshot,
    seed: String(run.seed),
    workflow_id: run.workflowId,
    schedule_fire_id: run.scheduleFireId ?? null,
    branch: run.branch ?? null,
    commit_sha: run.commitSha ?? null,
    baseline_branch: run.baselineBranch ?? null,
    priority_class: priorityClassOfRun(run.triggeredBy, run.configSnapshot.suite.config),
  };
  const values = { ...runInsertSchema.parse(insert), metadata: sql.json(run.metadata as never), config_snapshot: sql.json(run.configSnapshot as never) };
  const [row] = await sql`insert into runs ${sql(values as never)} returning *`;
  for (const endpoint of run.ownEndpoints ?? []) await insertEndpoint(sql, { ...endpoint, tenantId: run.tenantId, ownerRunId: run.id });
  // The own endpoints were inserted just above, in the same transaction: the join sees them.
  const targets = await sql<RunTargetRow[]>`
    with t as (
      insert into run_targets ${sql(
        run.targets.map((t, index) => ({
          id: t.id,
          run_id: run.id,
          endpoint_id: t.endpointId,
          endpoint_name: t.endpointName,
          role: t.role,
          order_index: index,
          status: 'pending',
          calls_planned: t.callsPlanned,
        })),
      )}
      returning *)
    select t.*, e.url_redacted as endpoint_url, e.owner_run_id is not null as ephemeral
    from t join endpoints e on e.id = t.endpoint_id
    order by t.order_index`;
  return { run: parseRunRow(row), targets };
}

export async function findRun(sql: Queryable, id: string): Promise<RunRow | undefined> {
  const [row] = await sql`select * from runs where id = ${id}`;
  return row && parseRunRow(row);
}

/**
 * A run only if it belongs to the tenant: for ids a tenant wrote itself (a baseline), where
 * another tenant's run must look exactly like a missing one.
 */
export async function findRunOfTenant(sql: Queryable, id: string, tenantId: string): Promise<RunRow | undefined> {
  const [row] = await sql`select * from runs where id = ${id} and tenant_id = ${tenantId}`;
  return row && parseRunRow(row);
}

/** queued → claimed. Returns false when the run was not queued (already claimed, or terminal). */
export async function claimRun(sql: Queryable, runId: string): Promise<boolean> {
  const rows = await sql`
    update runs set status = 'claimed', claimed_at = now() where id = ${runId} and status = 'queued' returning id`;
  return rows.length === 1;
}

/** claimed → running on the first probe; later probes find it running and change nothing. */
export async function markRunRunning(sql: Queryable, runId: string): Promise<void> {
  await sql`update runs set status = 'running', started_at = now() where id = ${runId} and status = 'claimed'`;
}

// First key of the two-key advisory locks that serialise finalizes (the migration lock uses the
// one-key form, a separate key space).
const FINALIZE_LOCK_CLASS = 0x46494e; // "FIN"

/**
 * Takes the run's finalize lock until the end of the transaction `tx`: a second finalize of the
 * same run waits here for the first to commit. Run ids hash to 32 bits; a collision only makes
 * two runs' finalizes take turns.
 */
export async function lockRunForFinalize(tx: Queryable, runId: string): Promise<void> {
  await tx`select pg_advisory_xact_lock(${FINALIZE_LOCK_CLASS}, hashtext(${runId}::text))`;
}

/** Moves a run to a terminal state once; a terminal run never changes again. */
export async function finishRun(
  sql: Queryable,
  runId: string,
  outcome: {
    status: Extract<RunStatus, 'success' | 'failed' | 'cancelled'>;
    failureReason: string | null;
    stats: RunStats;
    verdict: ComputedVerdict;
    baselineRunId: string | null;
  },
): Promise<boolean> {
  // The history summary (migration 032) is derived in SQL from the verdict as written, by the
  // same functions the backfill uses; the verdict is sent once.
  const rows = await sql`
    update runs set status = ${outcome.status}, finished_at = now(), failure_reason = ${outcome.failureReason},
      stats = ${sql.json(outcome.stats as never)}, verdict = v.verdict,
      baseline_run_id = ${outcome.baselineRunId},
      verdict_value = v.verdict->>'verdict', trend_point = run_trend_point(v.verdict),
      candidate_endpoints = run_candidate_endpoints(runs.config_snapshot)
    from (select ${sql.json(outcome.verdict as never)}::jsonb as verdict) v
    where id = ${runId} and status not in ('success', 'failed', 'cancelled')
    returning id`;
  return rows.length === 1;
}

/** Records that the run's workflow exists, so the orphan-run reconciler never looks at it again. */
export async function markWorkflowStarted(sql: Queryable, runId: string): Promise<void> {
  await sql`update runs set workflow_started_at = coalesce(workflow_started_at, now()) where id = ${runId}`;
}

/**
 * Runs still queued `olderThanMs` after they were requested whose workflow is not known to exist,
 * oldest first (partial index runs_workflow_unstarted): the orphan-run reconciler's candidates.
 */
export async function findUnstartedQueuedRuns(
  sql: Queryable,
  olderThanMs: number,
  limit: number,
): Promise<(RunRow & { age_ms: number })[]> {
  return sql<(RunRow & { age_ms: number })[]>`
    select *, (extract(epoch from clock_timestamp() - requested_at) * 1000)::float8 as age_ms from runs
    where status = 'queued' and workflow_started_at is null
      and requested_at < clock_timestamp() - make_interval(secs => ${olderThanMs / 1000})
    order by requested_at limit ${limit}`;
}

/**
 * Pins the run at `block` with its pinned context, both in one statement, unless it is pinned
 * already (a retried plan step whose first attempt got as far). Returns what the run is pinned
 * at: the first writer's block and context.
 */
export async function setPinnedBlock(
  sql: Queryable,
  runId: string,
  block: number,
  context: PinnedContext | null = null,
): Promise<{ pinnedBlock: number; pinnedContext: PinnedContext | null }> {
  await sql`update runs set pinned_block = ${block}, pinned_context = ${context === null ? null : sql.json(context as never)}
            where id = ${runId} and pinned_block is null`;
  const [row] = await sql<{ pinned_block: string; pinned_context: PinnedContext | null }[]>`
    select pinned_block, pinned_context from runs where id = ${runId}`;
  return { pinnedBlock: Number(row!.pinned_block), pinnedContext: row!.pinned_context };
}

export async function listRuns(
  sql: Queryable,
  tenantId: string,
  filter: { suiteId: string | null; status: RunStatus | null; limit: number; offset: number },
): Promise<{ rows: RunListRow[]; total: number }> {
  const where = sql`
    where tenant_id = ${tenantId}
    ${filter.suiteId ? sql`and test_suite_id = ${filter.suiteId}` : sql``}
    ${filter.status ? sql`and status = ${filter.status}` : sql``}`;
  // Columns named one by one (run-row.ts) so the large ones never leave the database.
  const rows = await sql`
    select ${sql(RUN_LIST_COLUMNS)},
           jsonb_build_object('suite', (config_snapshot -> 'suite') - 'config', 'chain', config_snapshot -> 'chain') as config_snapshot
    from runs ${where} order by created_at desc, id desc limit ${filter.limit} offset ${filter.offset}`;
  const [count] = await sql<{ n: number }[]>`select count(*)::int as n from runs ${where}`;
  return { rows: rows.map(parseRunListRow), total: count!.n };
}

/**
 * Summarises finished runs stored before migration 032 (verdict_value, trend_point,
 * candidate_endpoints), `batchSize` rows per statement in primary-key order, each statement its
 * own transaction: on a large runs table no statement holds many row locks or runs long, and a
 * finalize is never blocked for more than one batch. Rows locked by a finalize are skipped (that
 * finalize writes the summary itself). The partial index runs_unsummarised finds them; it is empty
 * once the backfill is done, so running this at every start costs nothing. Returns how many rows
 * it summarised.
 */
export async function backfillRunSummaries(sql: Queryable, batchSize = 1000): Promise<number> {
  let after = '00000000-0000-0000-0000-000000000000';
  let done = 0;
  for (;;) {
    const [batch] = await sql<{ n: number; last: string | null }[]>`
      with picked as (
        select id from runs where id > ${after}::uuid and finished_at is not null and trend_point is null
        order by id limit ${batchSize} for update skip locked),
      updated as (
        update runs r set verdict_value = r.verdict->>'verdict', trend_point = run_trend_point(r.verdict),
          candidate_endpoints = run_candidate_endpoints(r.config_snapshot)
        from picked where r.id = picked.id returning r.id)
      select count(*)::int as n, (select id from updated order by id desc limit 1) as last from updated`;
    done += batch!.n;
    if (batch!.n === 0 || batch!.last === null) return done;
    after = batch!.last;
  }
}

/** Every run of the tenant not finished yet (queued, claimed or running): what disabling it cancels. */
export async function findUnfinishedRunsOfTenant(sql: Queryable, tenantId: string): Promise<Pick<RunRow, 'id' | 'workflow_id'>[]> {
  return sql<Pick<RunRow, 'id' | 'workflow_id'>[]>`
    select id, workflow_id from runs where tenant_id = ${tenantId} and status in ('queued', 'claimed', 'running') order by requested_at`;
}
