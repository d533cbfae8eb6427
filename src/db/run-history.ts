import { baselineBranchOf, DEFAULT_BASELINE_BRANCH } from '../domain/branch';
import type { RunStatus } from '../domain/run-model';
import type { Queryable } from './client';
import type { RunRow } from './runs';

/* Earlier finished runs of a suite as baselines and trends read them (the runs table, by suite and branch). */

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
