import { z } from 'zod';
import type { Config } from '../config';
import { latencyHistogram } from '../db/histogram';
import { findRun } from '../db/runs';
import { findRunTargets } from '../db/run-targets';
import type { ComputedVerdict } from '../domain/verdict';
import { AppError, forbidden, notFound } from '../errors';
import { dashboardLinkActor, type Ctx, type Deps } from './context';
import { dashboardTokenExpiry, signDashboardToken, verifyDashboardToken } from './dashboard-token';
import { listRunHeads, type listHeadsQuery } from './runs/heads';
import { expiredRunMetrics, getRunMetrics } from './runs/metrics';
import { getRun } from './runs/get';
import { getVerdict, type VerdictResponse } from './runs/verdict';
import { getSuiteTrend } from './suite-trend';
import { assertTenantEnabled, tenantEnabled } from './tenants';

const runIdSchema = z.uuid();

/**
 * Whether a dashboard link may show this run: a well-formed run id and a token signed for exactly
 * that run that has not expired. Every failure looks the same to the caller (one 403).
 */
export function dashboardAccessAllowed(deps: Pick<Deps, 'box' | 'config'>, runId: string, token: unknown, now = new Date()): boolean {
  if (!runIdSchema.safeParse(runId).success) return false;
  if (typeof token !== 'string' || token.length === 0 || token.length > 512) return false;
  return verifyDashboardToken(deps.box, token, runId, now, deps.config.dashboardLinksNotBefore);
}

/**
 * Whether the run's tenant may be shown: a disabled tenant's links answer 401 until it is enabled
 * again, the page itself included. An unknown run is left to the data routes (404).
 */
export async function dashboardTenantEnabled(deps: Pick<Deps, 'sql'>, runId: string): Promise<boolean> {
  const row = await findRun(deps.sql, runId);
  return !row || tenantEnabled(deps, row.tenant_id);
}

/**
 * A link to the run's workflow in the Temporal Web UI, from RVS_TEMPORAL_UI_URL (which `npm start`
 * sets to its dev server's UI). Unset: we do not know where the cluster's UI lives, so no link (null).
 */
export function temporalUiUrl(config: Pick<Config, 'temporal'>, workflowId: string): string | null {
  const { uiUrl, namespace } = config.temporal;
  if (uiUrl === null) return null;
  return `${uiUrl}/namespaces/${encodeURIComponent(namespace)}/workflows/${encodeURIComponent(workflowId)}`;
}

/**
 * The verdict's (and the run's) dashboard_url carries a freshly signed token: handing it out to a
 * link holder would let anyone with a link renew it forever. The page already has its link, and
 * reads the run's branch and commit from the run.
 */
function withoutLink(verdict: VerdictResponse): ComputedVerdict {
  const { summary, checks, reference_comparison, baseline_comparison, freshness_comparison, thresholds, markdown_summary, exit_code, regions, capacity } = verdict;
  return {
    verdict: verdict.verdict,
    summary,
    checks,
    reference_comparison,
    baseline_comparison,
    ...(freshness_comparison ? { freshness_comparison } : {}),
    // A sweep's steps: the run page plots them.
    ...(capacity ? { capacity } : {}),
    thresholds,
    markdown_summary,
    exit_code,
    // The region × check table of a run with vantage points.
    ...(regions ? { regions } : {}),
  };
}

/**
 * Everything the dashboard page shows, from the same service verbs the API uses, acting as a
 * read-only dashboard-link actor of the run's tenant. Call only after dashboardAccessAllowed.
 */
export async function getDashboardData(deps: Deps, runId: string) {
  const row = await findRun(deps.sql, runId);
  if (!row) throw notFound('run');
  await assertTenantEnabled(deps, row.tenant_id);
  const ctx: Ctx = { principal: dashboardLinkActor(runId, row.tenant_id), deps };
  const input = { runId };
  const [run, verdict, metrics, histogram] = await Promise.all([
    getRun({ ctx, input }),
    getVerdict({ ctx, input }).catch((error: unknown) => {
      if (error instanceof AppError && error.code === 'run_not_finished') return null;
      throw error;
    }),
    // Past its sample retention the charts have no raw samples to draw from; the page says so
    // and shows what the stored verdict holds (statistics, intervals, checks).
    row.samples_expired_at ? findRunTargets(deps.sql, runId).then((targets) => expiredRunMetrics(runId, targets)) : getRunMetrics({ ctx, input }),
    row.samples_expired_at ? null : latencyHistogram(deps.sql, runId),
  ]);
  const names = new Map(metrics.targets.map((t) => [t.target_id, t]));
  // Same order as the run's targets (candidates first, then the reference), so colours match the other chart.
  const position = (targetId: string) => metrics.targets.findIndex((t) => t.target_id === targetId);
  const runWithoutLink: Partial<typeof run> = { ...run };
  delete runWithoutLink.dashboard_url;
  return {
    run: runWithoutLink as Omit<typeof run, 'dashboard_url'>,
    verdict: verdict && withoutLink(verdict),
    metrics,
    histogram: histogram && {
      from_ms: histogram.from_us / 1000,
      bucket_ms: histogram.bucket_us / 1000,
      buckets: histogram.buckets,
      targets: [...histogram.targets].sort((a, b) => position(a.target_id) - position(b.target_id)).map((t) => ({
        target_id: t.target_id,
        endpoint_name: names.get(t.target_id)?.endpoint_name ?? 'unknown',
        role: names.get(t.target_id)?.role ?? 'primary',
        counts: t.counts,
        overflow: t.overflow,
        total: t.total,
      })),
    },
    samples_expired_at: row.samples_expired_at ? row.samples_expired_at.toISOString() : null,
    temporal_ui_url: temporalUiUrl(deps.config, run.workflow_id),
    generated_at: new Date().toISOString(),
  };
}

export type DashboardData = Awaited<ReturnType<typeof getDashboardData>>;

/** Points the suite page shows: the newest finished runs of the suite. */
export const SUITE_PAGE_POINTS = 100;

/**
 * The suite page's data: the trend of the suite the run belongs to. A run's link token also
 * authorises this: the suite is the run's own (never a parameter). Every run the page lists gets
 * a link of its own (`run_links`) so that what the page shows opens: read-only like the token
 * used, and expiring when it does — never later, so following links can never renew one. What a
 * run link opens is that run's page and the same suite page again, so a link to one run of a
 * suite reaches the suite's finished runs and nothing else. Call only after
 * dashboardAccessAllowed (the token was verified for `runId`).
 */
export async function getDashboardSuiteTrend(deps: Deps, runId: string, token: string, now = new Date()) {
  const expiresAt = dashboardTokenExpiry(deps.box, token, runId, now, deps.config.dashboardLinksNotBefore);
  if (expiresAt === null) throw forbidden('this dashboard link is invalid or has expired');
  const row = await findRun(deps.sql, runId);
  if (!row) throw notFound('run');
  await assertTenantEnabled(deps, row.tenant_id);
  const ctx: Ctx = { principal: dashboardLinkActor(runId, row.tenant_id), deps };
  const trend = await getSuiteTrend({ ctx, input: { suiteId: row.test_suite_id, limit: SUITE_PAGE_POINTS, offset: 0 } });
  return {
    run_id: runId,
    suite: { id: row.test_suite_id, name: row.config_snapshot.suite.name },
    trend,
    run_links: trend.data.map((point) => ({
      run_id: point.run_id,
      path: dashboardPath(point.run_id, point.run_id === runId ? token : signDashboardToken(deps.box, point.run_id, expiresAt)),
    })),
    link_expires_at: expiresAt.toISOString(),
    generated_at: now.toISOString(),
  };
}

/** A run page's path with its token; the verdict's dashboard_url is this under the public base URL. */
export function dashboardPath(runId: string, token: string): string {
  return `/dashboard/runs/${runId}?token=${encodeURIComponent(token)}`;
}

/**
 * A page of the heads the run's head watch stored, for the page's arrival-lag chart: the same verb
 * as GET /v1/runs/:id/heads, as the run's dashboard-link actor. Call only after dashboardAccessAllowed.
 */
export async function getDashboardHeads(deps: Deps, runId: string, query: z.infer<typeof listHeadsQuery>) {
  const row = await findRun(deps.sql, runId);
  if (!row) throw notFound('run');
  await assertTenantEnabled(deps, row.tenant_id);
  const ctx: Ctx = { principal: dashboardLinkActor(runId, row.tenant_id), deps };
  return listRunHeads({ ctx, input: { runId, query } });
}
