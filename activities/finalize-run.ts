import { ApplicationFailure } from '@temporalio/activity';
import type { Sql } from '../src/db/client';
import {
  findPreviousSuccessfulRun,
  findRun,
  findRunTargets,
  finishRun,
  finishTarget,
  type RunRow,
} from '../src/db/runs';
import { aggregateLatency } from '../src/db/samples';
import { emptyStats, type RunStats } from '../src/domain/stats';
import { computeVerdict } from '../src/domain/verdict';
import type { FinalizeRunInput, FinalizeRunResult } from './types';

/** Below this many milliseconds a slower p95 than the baseline is noise (DESIGN.md §7). */
export const REGRESSION_MIN_MS = 5;

async function resolveBaseline(sql: Sql, run: RunRow): Promise<RunRow | undefined> {
  if (run.baseline_run_id) return findRun(sql, run.baseline_run_id);
  const baseline = run.config_snapshot.suite.config.baseline;
  if (baseline.mode === 'run' && baseline.run_id) return findRun(sql, baseline.run_id);
  if (baseline.mode === 'previous_success') return findPreviousSuccessfulRun(sql, run);
  return undefined;
}

/**
 * Aggregates stats in Postgres, judges the run and moves it to its terminal state. Idempotent:
 * a run that is already terminal is reported as it is.
 */
export async function finalizeRun(sql: Sql, input: FinalizeRunInput): Promise<FinalizeRunResult> {
  const run = await findRun(sql, input.runId);
  if (!run) throw ApplicationFailure.nonRetryable(`run ${input.runId} not found`, 'NotFound');
  if (run.verdict && (run.status === 'success' || run.status === 'failed' || run.status === 'cancelled')) {
    return { status: run.status, verdict: run.verdict.verdict, exitCode: run.verdict.exit_code };
  }
  const targets = await findRunTargets(sql, run.id);
  const primaries = targets.filter((t) => t.role === 'primary');
  const reference = targets.find((t) => t.role === 'reference');

  if (input.status !== 'success') {
    const unfinished = input.status === 'cancelled' ? 'cancelled' : 'failed';
    for (const t of targets) {
      await finishTarget(sql, t.id, unfinished, { stats: await aggregateLatency(sql, run.id, [t.id]) });
    }
  }

  const measured = await aggregateLatency(sql, run.id, primaries.map((t) => t.id));
  const finishedTargets = await findRunTargets(sql, run.id);
  const primaryDone = finishedTargets.filter((t) => t.role === 'primary');
  const stats: RunStats = {
    ...measured,
    tests: {
      successful: primaryDone.filter((t) => t.status === 'success').length,
      failed: primaryDone.filter((t) => t.status !== 'success').length,
    },
  };
  const baseline = input.status === 'success' ? await resolveBaseline(sql, run) : undefined;
  const thresholds = run.config_snapshot.suite.config.thresholds;
  const verdict = computeVerdict({
    run: { id: run.id, status: input.status, failure_reason: input.failureReason },
    suiteName: run.config_snapshot.suite.name,
    thresholds,
    regressionMinMs: REGRESSION_MIN_MS,
    candidate: stats,
    reference: reference
      ? {
          endpoint_id: reference.endpoint_id,
          endpoint_name: reference.endpoint_name,
          stats: { ...emptyStats(), ...(await aggregateLatency(sql, run.id, [reference.id])) },
        }
      : null,
    baseline: baseline?.stats ? { run_id: baseline.id, stats: baseline.stats } : null,
  });
  await finishRun(sql, run.id, {
    status: input.status,
    failureReason: input.failureReason,
    stats,
    verdict,
    baselineRunId: baseline?.id ?? run.baseline_run_id,
  });
  const final = (await findRun(sql, run.id))!;
  return {
    status: final.status as FinalizeRunResult['status'],
    verdict: final.verdict?.verdict ?? verdict.verdict,
    exitCode: final.verdict?.exit_code ?? verdict.exit_code,
  };
}
