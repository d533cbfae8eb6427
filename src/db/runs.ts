import type { BatchLimit } from '../domain/batch-limit';
import { targetStats, type MeasuredStats, type RunStats } from '../domain/run-stats';
import type { PinnedContext } from '../domain/workload';
import type { ComputedVerdict } from '../domain/verdict';
import type { RunStatus, TargetRole, TargetStatus } from '../domain/run-model';
import { baselineBranchOf, DEFAULT_BASELINE_BRANCH } from '../domain/branch';
import { priorityClassOfRun } from '../domain/run-priority';
import type { Queryable } from './client';
import { insertEndpoint, type NewEndpoint } from './endpoints';
import { parseRunListRow, parseRunRow, RUN_LIST_COLUMNS, runInsertSchema, type RunConfigSnapshot, type RunInsert, type RunListRow, type RunRow } from './run-row';

// The run row is declared once, as a zod schema (run-row.ts): its type, its insert and the list's columns derive from it.
export type { RunConfigSnapshot, RunListRow, RunRow } from './run-row';

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

export async function findRunTargets(sql: Queryable, runId: string): Promise<RunTargetRow[]> {
  return sql<RunTargetRow[]>`
    select t.*, e.url_redacted as endpoint_url, e.owner_run_id is not null as ephemeral
    from run_targets t join endpoints e on e.id = t.endpoint_id
    where t.run_id = ${runId} order by t.order_index`;
}

export async function findRetryHistory(sql: Queryable, runId: string): Promise<RetryRow[]> {
  return sql<RetryRow[]>`
    select target_id, endpoint_id, activity, chunk_seq, attempt, error_type, message, failed_at, next_attempt_at
    from run_retries where run_id = ${runId} order by failed_at, id`;
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
 * The latest earlier run of the same suite whose verdict passed. A run that succeeded but failed
 * its verdict never becomes a baseline: a regression that persists must keep failing.
 */
export async function findPreviousSuccessfulRun(sql: Queryable, run: RunRow): Promise<RunRow | undefined> {
  const [row] = await sql<RunRow[]>`
    select * from runs
    where test_suite_id = ${run.test_suite_id} and tenant_id = ${run.tenant_id} and status = 'success'
      and finished_at is not null and coalesce(verdict_value, verdict->>'verdict') = 'pass'
      and ${proberWasHealthy(sql, 'runs')}
      and (branch is null or branch = ${baselineBranchOfRun(run)})
      and requested_at < ${run.requested_at} and id <> ${run.id}
    order by requested_at desc, id desc limit 1`;
  return row;
}

/**
 * A run whose prober was overloaded (verdict.prober.overloaded, DESIGN §17) measured its own
 * lateness as much as the endpoint's: it never becomes a baseline, whatever its verdict.
 */
function proberWasHealthy(sql: Queryable, alias: 'runs' | 'r') {
  return sql`coalesce((${sql(alias)}.verdict->'prober'->>'overloaded')::boolean, false) = false`;
}

/**
 * The branch whose runs form the run's baseline: its suite's baseline branch when it was
 * requested. Only runs of that branch (or naming none) qualify, whatever the run's own branch: a
 * pull request's run compares against the baseline branch and never joins it.
 */
export function baselineBranchOfRun(run: Pick<RunRow, 'baseline_branch' | 'config_snapshot'>): string {
  return run.baseline_branch ?? baselineBranchOf(run.config_snapshot.suite.config.baseline);
}

/**
 * The suite's history for the `history` baseline: the last `window` earlier runs of the same suite,
 * in the run's tenant, on the baseline branch (or naming none), with the same candidate endpoints
 * — a run's per-run targets count as the suite's targets they replaced — whose verdict passed — newest first,
 * with the candidate p95 in µs each stored in its latency_p95 check (p95_ms × 1000 for runs
 * judged before it was stored). A run whose prober was overloaded never qualifies (proberWasHealthy).
 */
export async function findPassingHistory(
  sql: Queryable,
  run: RunRow,
  window: number,
): Promise<{ run_id: string; p95_us: number }[]> {
  const { suite } = run.config_snapshot;
  const candidates = (suite.suite_targets ?? suite.config.targets).map((t) => t.endpoint_id).sort();
  const common = sql`
    r.test_suite_id = ${run.test_suite_id} and r.finished_at is not null
    and r.tenant_id = ${run.tenant_id} and r.status = 'success'
    and (r.branch is null or r.branch = ${baselineBranchOfRun(run)})
    and r.requested_at < ${run.requested_at} and r.id <> ${run.id}
    and ${proberWasHealthy(sql, 'r')}`;
  // Two reads merged in trend order: runs summarised at finalize (migration 032), read through the
  // partial index runs_suite_finished_history newest first until `window` match, on their small
  // columns; and runs not summarised yet (a backfill still running: runs_unsummarised, empty
  // afterwards), judged on their verdict and snapshot as before. One statement mixing both (a
  // coalesce, or a union) hides the columns' statistics from the planner, which then sorts the
  // whole suite.
  type Row = { run_id: string; requested_at: Date; p95_us: string | number | null };
  const summarised = await sql<Row[]>`
    select r.id as run_id, r.requested_at,
      coalesce((r.trend_point->>'p95_us')::float8, (r.stats->'latency'->'successful'->>'p95_ms')::float8 * 1000) as p95_us
    from runs r
    where ${common} and r.verdict_value = 'pass' and r.candidate_endpoints = ${candidates}::text[]
    order by r.requested_at desc, r.id desc limit ${window}`;
  const unsummarised = await sql<Row[]>`
    select r.id as run_id, r.requested_at,
      coalesce(
        (select (c->'details'->>'p95_us')::float8 from jsonb_array_elements(r.verdict->'checks') c
          where c->>'name' = 'latency_p95' and jsonb_typeof(c->'details'->'p95_us') = 'number' limit 1),
        (r.stats->'latency'->'successful'->>'p95_ms')::float8 * 1000) as p95_us
    from runs r
    where ${common} and r.trend_point is null and r.verdict->>'verdict' = 'pass'
      and run_candidate_endpoints(r.config_snapshot) = ${candidates}::text[]
    order by r.requested_at desc, r.id desc limit ${window}`;
  // Postgres orders uuids as their lowercase text.
  const rows = [...summarised, ...unsummarised]
    .sort((x, y) => y.requested_at.getTime() - x.requested_at.getTime() || (x.run_id < y.run_id ? 1 : x.run_id > y.run_id ? -1 : 0))
    .slice(0, window);
  return rows.filter((r) => r.p95_us !== null).map((r) => ({ run_id: r.run_id, p95_us: Number(r.p95_us) }));
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

export async function findTargetsOfRuns(sql: Queryable, runIds: readonly string[]): Promise<RunTargetRow[]> {
  return sql<RunTargetRow[]>`
    select t.*, e.url_redacted as endpoint_url, e.owner_run_id is not null as ephemeral
    from run_targets t join endpoints e on e.id = t.endpoint_id
    where t.run_id = any(${runIds as string[]}::uuid[]) order by t.order_index`;
}

export async function findRetriesOfRuns(sql: Queryable, runIds: readonly string[]): Promise<(RetryRow & { run_id: string })[]> {
  return sql<(RetryRow & { run_id: string })[]>`
    select run_id, target_id, endpoint_id, activity, chunk_seq, attempt, error_type, message, failed_at, next_attempt_at
    from run_retries where run_id = any(${runIds as string[]}::uuid[]) order by failed_at, id`;
}

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

/** One finished run of a suite as its trend shows it (see listSuiteTrend). */
export interface SuiteTrendRow {
  id: string;
  status: RunStatus;
  requested_at: Date;
  finished_at: Date;
  verdict: 'pass' | 'fail' | 'error' | null;
  latency: { p50_ms?: number; p95_ms?: number; p99_ms?: number } | null;
  intervals_ms: unknown;
  match_rate_pct: number | null;
  baseline_model: string | null;
  baseline_limits: unknown;
  branch: string | null;
  commit_sha: string | null;
  baseline_branch: string | null;
}

/**
 * The finished runs of a suite, newest first (requested_at, then id), with only what the trend
 * shows: status, verdict value, the candidates' latency percentiles and their intervals (the
 * latency_p95 check's details), the correctness match rate, and the baseline limits in force.
 * Never the config snapshot nor the whole verdict (a correctness check lists its mismatches).
 */
export async function listSuiteTrend(
  sql: Queryable,
  tenantId: string,
  suiteId: string,
  paging: { limit: number; offset: number; branch?: string | null },
): Promise<{ rows: SuiteTrendRow[]; total: number }> {
  const where = sql`
    where r.tenant_id = ${tenantId} and r.test_suite_id = ${suiteId} and r.finished_at is not null
    ${
      paging.branch
        ? // A run naming no branch counts as the baseline branch it was requested under.
          sql`and (r.branch = ${paging.branch}
                   or (r.branch is null and coalesce(r.baseline_branch, ${DEFAULT_BASELINE_BRANCH}) = ${paging.branch}))`
        : sql``
    }`;
  // The page comes off the partial index runs_suite_finished_history; the verdict parts come from
  // the row's trend_point (migration 032), or from its verdict for a row not summarised yet.
  const rows = await sql<SuiteTrendRow[]>`
    select r.id, r.status, r.requested_at, r.finished_at,
      coalesce(r.verdict_value, r.verdict->>'verdict') as verdict,
      r.stats->'latency'->'successful' as latency,
      p.point->'intervals_ms' as intervals_ms,
      (p.point->>'match_rate_pct')::float8 as match_rate_pct,
      p.point->>'baseline_model' as baseline_model,
      p.point->'baseline_limits' as baseline_limits,
      r.branch, r.commit_sha, r.baseline_branch
    from runs r cross join lateral (select coalesce(r.trend_point, run_trend_point(r.verdict)) as point) p
    ${where}
    order by r.requested_at desc, r.id desc limit ${paging.limit} offset ${paging.offset}`;
  // Kept per suite and branch by a trigger (migration 032), not counted over the suite's history.
  const [count] = await sql<{ n: number }[]>`
    select coalesce(sum(c.runs), 0)::int as n from suite_finished_runs c join suites s on s.id = c.test_suite_id
    where c.test_suite_id = ${suiteId} and s.tenant_id = ${tenantId} ${paging.branch ? sql`and c.branch = ${paging.branch}` : sql``}`;
  return { rows, total: count!.n };
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
