import { ApplicationFailure } from '@temporalio/activity';
import type { Sql } from '../src/db/client';
import { claimRun as claimRunRow, findRun, findRunTargets } from '../src/db/runs';
import { runSettingsOf } from '../src/domain/run-plan';
import { TERMINAL_RUN_STATUSES } from '../src/domain/run-model';
import { sweepPlanOf } from '../src/domain/sweep';
import type { ClaimRunResult } from './types';

/**
 * queued → claimed, exactly once: a retried claim or a second start of the same run finds it
 * already claimed and returns the same plan without changing anything.
 */
export async function claimRun(sql: Sql, input: { runId: string }): Promise<ClaimRunResult> {
  const claimed = await claimRunRow(sql, input.runId);
  const run = await findRun(sql, input.runId);
  if (!run) throw ApplicationFailure.nonRetryable(`run ${input.runId} not found`, 'NotFound');
  const targets = await findRunTargets(sql, run.id);
  const { retry, workload, freshness, vantagePoints, vantageStartTimeoutMs } = runSettingsOf(run);
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
  };
}
