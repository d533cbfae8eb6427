import { WorkflowNotFoundError } from '@temporalio/client';
import { findRun, type RunRow } from '../../db/runs';
import { AppError } from '../../errors';
import type { Ctx, Deps } from '../context';
import { finalizeRun } from '../finalize-run';
import { loadOwned } from '../load-owned';
import { isTerminal, presentStoredRun, type RunResponse } from './present';

/** Asks the workflow to stop; probes stop within seconds and the run ends `cancelled`. */
export async function cancelRun({ ctx, input }: { ctx: Ctx; input: { runId: string } }): Promise<RunResponse> {
  const run = await loadOwned(ctx, 'run', findRun, input.runId);
  if (isTerminal(run)) {
    throw new AppError('conflict', `run is already ${run.status}; only a queued or running run can be cancelled`);
  }
  await requestRunCancel(ctx.deps, run);
  return presentStoredRun(ctx, await loadOwned(ctx, 'run', findRun, input.runId));
}

/**
 * The one way a run is cancelled (POST /v1/runs/:id/cancel, disabling its tenant): its workflow is
 * asked to stop, so probes stop within seconds and the run ends `cancelled`.
 */
export async function requestRunCancel(deps: Pick<Deps, 'sql' | 'temporal'>, run: Pick<RunRow, 'id' | 'workflow_id'>): Promise<void> {
  try {
    await deps.temporal.workflow.getHandle(run.workflow_id).cancel();
  } catch (error) {
    if (!(error instanceof WorkflowNotFoundError)) throw error;
    // No workflow behind the run (it could not be scheduled): end it here, the way a workflow would.
    await finalizeRun({ sql: deps.sql }, { runId: run.id, status: 'cancelled', failureReason: 'cancelled by request' });
  }
}
