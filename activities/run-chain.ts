import { ApplicationFailure } from '@temporalio/activity';
import { chainOfRun, UnsupportedChainFamilyError } from '../src/chains/registry';
import type { ChainAdapter } from '../src/chains/types';

/**
 * The chain adapter of a run (through the registry). A snapshot naming a family without an adapter
 * (the trigger refuses those, so only a hand-edited row) fails the activity for good: retrying
 * cannot give the family an adapter.
 */
export function chainOfRunOrFail(run: { config_snapshot: { chain: { family?: string } } }): ChainAdapter {
  try {
    return chainOfRun(run);
  } catch (error) {
    if (error instanceof UnsupportedChainFamilyError) throw ApplicationFailure.nonRetryable(error.message, 'UnsupportedChainFamily');
    throw error;
  }
}
