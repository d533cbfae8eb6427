import { ApplicationFailure } from '@temporalio/activity';
import { finalizeRun as finalize, RunNotFoundError } from '../src/services/finalize-run';
import { explainMismatches } from './explain-mismatches';
import { heartbeating } from './heartbeating';
import { recheckHeadMovedDifferences, type RecheckDeps } from './recheck-head-moved';
import type { FinalizeRunInput, FinalizeRunResult } from './types';

/**
 * The run workflow's last step: the one finalize path (src/services/finalize-run.ts), with the
 * worker's re-check of head-moved differences and explanation of the listed mismatches (both
 * talk to the endpoints) and heartbeats.
 */
export async function finalizeRun(deps: RecheckDeps, input: FinalizeRunInput): Promise<FinalizeRunResult> {
  try {
    const { status, verdict, exitCode } = await heartbeating(() =>
      finalize(
        {
          sql: deps.sql,
          recheck: (tx, run, candidates, reference) => recheckHeadMovedDifferences(deps, tx, run, candidates, reference),
          explain: (tx, run, candidates, reference, mismatches) => explainMismatches(deps, tx, run, candidates, reference, mismatches),
        },
        input,
      ),
    );
    return { status, verdict, exitCode };
  } catch (error) {
    if (error instanceof RunNotFoundError) throw ApplicationFailure.nonRetryable(error.message, 'NotFound');
    throw error;
  }
}
