import { listSuiteTrend, type SuiteTrendRow } from '../db/run-history';
import { findSuite } from '../db/suites';
import { branchName, DEFAULT_BASELINE_BRANCH, isBaselineBranch } from '../domain/branch';
import type { BaselineLimits, BaselineModelUsed, PercentileMs, VerdictValue } from '../domain/verdict';
import { page, paginationQuery, type Page } from './pagination';
import type { Ctx } from './context';
import { loadOwned } from './load-owned';
import { storedMember } from './stored-vocabulary';

export const suiteTrendQuery = paginationQuery.extend({
  branch: branchName.optional(),
});

const finiteOrNull = (value: unknown): number | null => (typeof value === 'number' && Number.isFinite(value) ? value : null);

function isPercentile(value: unknown): value is PercentileMs {
  const v = value as Partial<PercentileMs> | null;
  return typeof v === 'object' && v !== null && typeof v.point === 'number' && typeof v.lower === 'number' && (v.upper === null || typeof v.upper === 'number');
}

/** The latency_p95 check's intervals, or null for runs judged before they were stored (or without successful calls). */
function intervalsOf(value: unknown): { p50: PercentileMs; p95: PercentileMs; p99: PercentileMs } | null {
  const v = value as Record<string, unknown> | null;
  if (typeof v !== 'object' || v === null) return null;
  const { p50, p95, p99 } = v;
  return isPercentile(p50) && isPercentile(p95) && isPercentile(p99) ? { p50, p95, p99 } : null;
}

/** One point of a suite's trend: a finished run, its verdict and what it was judged on. */
function presentPoint(row: SuiteTrendRow) {
  const latency = row.latency;
  return {
    run_id: row.id,
    // Only finished runs have a finished_at, and the trend reads only those.
    status: storedMember(['success', 'failed', 'cancelled'], row.status, 'runs.status of a finished run'),
    requested_at: row.requested_at,
    finished_at: row.finished_at,
    verdict: (row.verdict ?? 'error') as VerdictValue,
    candidate: {
      p50_ms: finiteOrNull(latency?.p50_ms),
      p95_ms: finiteOrNull(latency?.p95_ms),
      p99_ms: finiteOrNull(latency?.p99_ms),
      intervals_ms: intervalsOf(row.intervals_ms),
    },
    match_rate_pct: finiteOrNull(row.match_rate_pct),
    branch: row.branch,
    commit: row.commit_sha,
    // Whether the run belongs to (and could join) the baseline it was requested under.
    on_baseline_branch: isBaselineBranch(row.branch, row.baseline_branch ?? DEFAULT_BASELINE_BRANCH),
    baseline:
      row.baseline_model === null && row.baseline_limits === null
        ? null
        : {
            model: (row.baseline_model ?? null) as BaselineModelUsed | null,
            limits: (row.baseline_limits ?? null) as BaselineLimits | null,
          },
  };
}

export type SuiteTrendPoint = ReturnType<typeof presentPoint>;

/**
 * The suite's finished runs, newest first, one point each (DESIGN §7, issue 11 item 7). A suite of
 * another tenant answers like every suite route (403); an unknown one 404.
 */
export async function getSuiteTrend({
  ctx,
  input,
}: {
  ctx: Ctx;
  input: { suiteId: string; limit: number; offset: number; branch?: string };
}): Promise<Page<SuiteTrendPoint>> {
  const suite = await loadOwned(ctx, 'suite', findSuite, input.suiteId);
  const { rows, total } = await listSuiteTrend(ctx.deps.sql, ctx.principal.tenantId, suite.id, { ...input, branch: input.branch ?? null });
  return page(rows.map(presentPoint), total, input.limit, input.offset);
}
