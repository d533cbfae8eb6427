import { Context } from '@temporalio/activity';
import { currentEndingLedger } from './run-ending-step';

const HEARTBEAT_EVERY_MS = 1_000;

/**
 * Heartbeats while `work` runs, so an activity whose worker died is retried within its heartbeat
 * timeout instead of its (longer) start-to-close timeout.
 */
export async function heartbeating<T>(work: () => Promise<T>): Promise<T> {
  let context: Context | undefined;
  try {
    context = Context.current();
  } catch {
    // Called outside an activity: nobody to heartbeat to.
  }
  // A run-ending step's ledger rides along, so a worker lost mid-step leaves it in the details.
  const beat = () => context?.heartbeat(currentEndingLedger());
  const timer = context ? setInterval(beat, HEARTBEAT_EVERY_MS) : undefined;
  beat();
  try {
    return await work();
  } finally {
    clearInterval(timer);
  }
}
