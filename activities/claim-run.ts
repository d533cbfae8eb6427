import { ApplicationFailure } from '@temporalio/activity';
import type { Sql } from '../src/db/client';
import { findRun } from '../src/db/runs';
import { findRunTargets } from '../src/db/run-targets';
import { claimRunWithinTenantCap } from '../src/db/tenant-run-cap';
import { runSettingsOf } from '../src/domain/run-plan';
import { TERMINAL_RUN_STATUSES } from '../src/domain/run-model';
import { sweepPlanOf } from '../src/domain/sweep';
import type { ClaimRunResult } from './types';

/** Runs one tenant may have claimed or running at once when its row sets no cap (RVS_TENANT_MAX_RUNNING_RUNS). */
export const DEFAULT_TENANT_MAX_RUNNING_RUNS = 10;
/** How often a run over its tenant's cap asks again (a constant pace, not the infrastructure backoff). */
const OVER_CAP_RECHECK = '2 seconds';

/**
 * queued → claimed, exactly once: a retried claim or a second start of the same run finds it
 * already claimed and returns the same plan without changing anything. A run whose tenant has its
 * cap of runs claimed or running stays queued: the claim fails retryably and Temporal asks again
 * every OVER_CAP_RECHECK, without limit (DESIGN §17: over the cap waits, never fails).
 */
export async function claimRun(sql: Sql, input: { runId: string }, tenantCap = DEFAULT_TENANT_MAX_RUNNING_RUNS): Promise<ClaimRunResult> {
  const claim = await claimRunWithinTenantCap(sql, input.runId, tenantCap);
  if (claim === 'over_cap') {
    throw ApplicationFailure.create({
      message: 'the tenant has its cap of running runs; this run waits queued',
      type: 'TenantRunCap',
      nextRetryDelay: OVER_CAP_RECHECK,
    });
  }
  const claimed = claim === 'claimed';
  const run = await findRun(sql, input.runId);
  if (!run) throw ApplicationFailure.nonRetryable(`run ${input.runId} not found`, 'NotFound');
  const targets = await findRunTargets(sql, run.id);
  const { retry, workload, freshness, vantagePoints, vantageStartTimeoutMs, integrity } = runSettingsOf(run);
  return {
    outcome: claimed ? 'claimed' : TERMINAL_RUN_STATUSES.includes(run.status) ? 'terminal' : 'already_claimed',
    targets: targets.map((t) => ({ targetId: t.id, role: t.role })),
    retry: {
      maxAttempts: retry.max_attempts,
      initialIntervalMs: retry.initial_interval_ms,
      backoffCoefficient: retry.backoff_coefficient,
      maxIntervalMs: retry.max_interval_ms,
    },
    durationMs: workload.duration_s === null ? null : workload.duration_s * 1000,
    ratePerSecond: workload.rate_per_second,
    freshnessDurationS: freshness?.duration_s ?? null,
    vantagePoints,
    vantageStartTimeoutMs,
    // Only on sweep runs, so claims of other runs stay as they were recorded.
    ...(workload.sweep ? { sweepSteps: sweepPlanOf(workload.sweep)!.steps.map((s) => s.fromSeq) } : {}),
    // Likewise only on runs that verify integrity.
    ...(integrity ? { integrity: true as const } : {}),
  };
}
