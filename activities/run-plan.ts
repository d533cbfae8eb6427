import { ApplicationFailure } from '@temporalio/activity';
import { runPlanOf, UnsupportedChainFamilyError, type RunPlan } from '../src/chains/registry';
import type { RunRow } from '../src/db/runs';

/**
 * The plan of a run (settings, chain adapter and request planner), built from the run row the
 * activity loaded. A snapshot naming a family without an adapter (the trigger refuses those, so
 * only a hand-edited row) fails the activity for good: retrying cannot give the family an adapter.
 */
export function runPlanOrFail(run: RunRow): RunPlan {
  try {
    return runPlanOf(run);
  } catch (error) {
    if (error instanceof UnsupportedChainFamilyError) throw ApplicationFailure.nonRetryable(error.message, 'UnsupportedChainFamily');
    throw error;
  }
}
