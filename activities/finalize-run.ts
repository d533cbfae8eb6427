import { ApplicationFailure } from '@temporalio/activity';
import { finalizeRun as finalize, RunNotFoundError } from '../src/services/finalize-run';
import { explainRunMismatches } from './explain-mismatches';
import { heartbeating } from './heartbeating';
import { recheckHeadMoved, type RecheckDeps } from './recheck-head-moved';
import { runEndingStep } from './run-ending-step';
import type { FinalizeRunInput, FinalizeRunResult } from './types';

/**
 * The run workflow's last step: the one finalize path (src/services/finalize-run.ts), which only
 * reads and writes the database, with heartbeats. The steps that talk to the endpoints — the
 * re-check of head-moved differences and the explanation of the listed mismatches — are
 * activities of their own that the workflow runs before. A finalize scheduled by a workflow
 * recorded before they existed (`stepsDone` absent) runs them here first, still outside
 * finalize's transaction; both are idempotent, so nothing is asked twice.
 *
 * Bounded (runEndingStep): once its worker died LOST_ATTEMPTS_BUDGET times, the run is ended
 * without judging (failed, saying so; a cancel stays a cancel), which reads aggregates only. A
 * cancel rolls its transaction back (the cancelled run is then finalized as such).
 */
export async function finalizeRun(deps: RecheckDeps, input: FinalizeRunInput): Promise<FinalizeRunResult> {
  try {
    return await runEndingStep(
      async (signal) => {
        if (input.status === 'success' && !input.stepsDone) {
          await recheckHeadMoved(deps, { runId: input.runId });
          await explainRunMismatches(deps, { runId: input.runId });
        }
        const { status, verdict, exitCode } = await heartbeating(() =>
          finalize({ sql: deps.sql }, { runId: input.runId, status: input.status, failureReason: input.failureReason }, signal),
        );
        return { status, verdict, exitCode };
      },
      async (lost) => {
        const reason = `the worker died ${lost} times finalizing the run`;
        const ending = input.status === 'success' ? { status: 'failed' as const, failureReason: reason } : { status: input.status, failureReason: input.failureReason };
        const { status, verdict, exitCode } = await heartbeating(() => finalize({ sql: deps.sql }, { runId: input.runId, ...ending }));
        return { status, verdict, exitCode };
      },
    );
  } catch (error) {
    if (error instanceof RunNotFoundError) throw ApplicationFailure.nonRetryable(error.message, 'NotFound');
    throw error;
  }
}
