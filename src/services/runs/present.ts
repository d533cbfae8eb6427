import { countRunSamples, countWarmupSamplesOfRuns } from '../../db/samples';
import { type RunListRow, type RunRow } from '../../db/runs';
import { batchLimitOf, findRunTargets, type RunTargetRow } from '../../db/run-targets';
import { findRetryHistory, type RetryRow } from '../../db/run-retries';
import { DEFAULT_BASELINE_BRANCH } from '../../domain/branch';
import { returnedRunColumns } from '../../domain/run-columns';
import { RUN_TRIGGERS, TERMINAL_RUN_STATUSES } from '../../domain/run-model';
import { emptyStats, type RunStats } from '../../domain/run-stats';
import type { Ctx, Deps } from '../context';
import { DASHBOARD_TOKEN_TTL_MS, signDashboardToken } from '../dashboard-token';
import { storedMember } from '../stored-vocabulary';

/** A run as lists show it: everything but the suite config it ran with (see presentRun). */
export function presentRunSummary(run: RunListRow, targets: RunTargetRow[], retries: RetryRow[], callsDone: number) {
  const snapshot = run.config_snapshot;
  return {
    id: run.id,
    test_suite_id: run.test_suite_id,
    triggered_by: storedMember(RUN_TRIGGERS, run.triggered_by, 'runs.triggered_by'),
    status: run.status,
    requested_at: run.requested_at,
    claimed_at: run.claimed_at,
    started_at: run.started_at,
    finished_at: run.finished_at,
    retry_count: retries.length,
    failure_reason: run.failure_reason,
    baseline_run_id: run.baseline_run_id,
    acknowledged_count: run.acknowledged_count,
    metadata: run.metadata,
    stats: run.stats ?? emptyStats(),
    progress: {
      // Null for a duration-bound closed-loop campaign: its call count is not known in advance.
      calls_planned: targets.some((t) => t.calls_planned === null)
        ? null
        : targets.reduce((sum, t) => sum + (t.calls_planned ?? 0), 0),
      calls_done: callsDone,
    },
    workflow_id: run.workflow_id,
    targets: targets.map(presentTarget),
    retry_history: retries.map((r) => ({
      target_id: r.target_id,
      endpoint_id: r.endpoint_id,
      activity: r.activity,
      chunk: r.chunk_seq,
      attempt: r.attempt,
      error_type: r.error_type,
      message: r.message,
      failed_at: r.failed_at,
      next_attempt_at: r.next_attempt_at,
    })),
    branch: run.branch,
    commit: run.commit_sha,
    baseline_branch: run.baseline_branch ?? DEFAULT_BASELINE_BRANCH,
    suite: { id: snapshot.suite.id, name: snapshot.suite.name },
    chain: {
      id: snapshot.chain.id,
      name: snapshot.chain.name,
      slug: snapshot.chain.slug,
      explorer_url: snapshot.chain.explorer_url,
    },
    ...returnedRunColumns(run),
  };
}

function presentTarget(t: RunTargetRow) {
  const stats = targetStatsOf(t);
  const batchLimit = batchLimitOf(t);
  return {
    id: t.id,
    endpoint_id: t.endpoint_id,
    endpoint_name: t.endpoint_name,
    role: t.role,
    order_index: t.order_index,
    status: t.status,
    // Only the stats and the batch limit found: the rest of a target's metadata is the run's own bookkeeping.
    metadata: { ...(stats === undefined ? {} : { stats }), ...(batchLimit === undefined ? {} : { batch_limit: batchLimit }) },
    endpoint_url: t.endpoint_url,
    ephemeral: t.ephemeral,
  };
}

export type RunSummaryResponse = ReturnType<typeof presentRunSummary>;

/** The run resource: the summary plus the suite config the run executes (thresholds overridden), and its dashboard link. */
export function presentRun(deps: Pick<Deps, 'box' | 'config'>, run: RunRow, targets: RunTargetRow[], retries: RetryRow[], callsDone: number) {
  const summary = presentRunSummary(run, targets, retries, callsDone);
  const { config } = run.config_snapshot.suite;
  return { ...summary, config_snapshot: config, suite: { ...summary.suite, config }, dashboard_url: dashboardUrl(deps, run.id) };
}

export type RunResponse = ReturnType<typeof presentRun>;

export const isTerminal = (run: Pick<RunRow, 'status'>) => TERMINAL_RUN_STATUSES.includes(run.status);

/**
 * A finished run's sample count is the sum of its targets' stats; rows are counted only while
 * it runs (clients poll finished runs too, and counting a million rows each time is wasted work).
 */
export function finishedCallsDone(targets: RunTargetRow[]): number {
  return targets.reduce((sum, t) => sum + (targetStatsOf(t)?.calls.total ?? 0), 0);
}

/** A finished target's own stats, which finalize stores in its metadata (targetStats); none before. */
function targetStatsOf(target: RunTargetRow): RunStats | undefined {
  return target.metadata.stats as RunStats | undefined;
}

/** The run resource of a stored run: its targets, retries and progress are read with it. */
export async function presentStoredRun(ctx: Ctx, run: RunRow): Promise<RunResponse> {
  const { sql } = ctx.deps;
  const [targets, retries, counted, warmups] = await Promise.all([
    findRunTargets(sql, run.id),
    findRetryHistory(sql, run.id),
    isTerminal(run) ? null : countRunSamples(sql, run.id),
    // Only a sweep stores warm-up calls: its planned calls include them, its stats leave them out.
    isTerminal(run) ? countWarmupSamplesOfRuns(sql, [run.id]) : new Map<string, number>(),
  ]);
  return presentRun(ctx.deps, run, targets, retries, counted ?? finishedCallsDone(targets) + (warmups.get(run.id) ?? 0));
}

/**
 * A read-only link to the run's dashboard page, signed afresh (valid DASHBOARD_TOKEN_TTL_MS): the
 * run resource carries it from the moment the run is triggered, so a CI log can link the live
 * page; the verdict carries one too.
 */
export function dashboardUrl(deps: Pick<Deps, 'box' | 'config'>, runId: string): string {
  const token = signDashboardToken(deps.box, runId, new Date(Date.now() + DASHBOARD_TOKEN_TTL_MS));
  return `${deps.config.publicUrl}/dashboard/runs/${runId}?token=${token}`;
}
