import { AsyncLocalStorage } from 'node:async_hooks';
import { Context } from '@temporalio/activity';
import { LOST_ATTEMPTS_BUDGET } from '../src/domain/retry-policy';

/**
 * The steps that end a run (re-check, explanations, finalize) are retried on the infrastructure
 * policy: our outages are waited out. A worker that dies in one of them, though — an answer or a
 * run too large for its heap — would die again on every attempt, and the run would never end. So
 * an attempt that failed says so in its heartbeat details (the SDK sends the last ones with the
 * failure); an attempt that left no such word died, and beyond LOST_ATTEMPTS_BUDGET of those the
 * step gives up its way (`whenSpent`). A cancel ends the step at once, whatever it was waiting on.
 */
export interface EndingLedger {
  /** Earlier attempts that failed and reported it (not lost). */
  reportedFailures: number;
}

const ledgers = new AsyncLocalStorage<EndingLedger>();

/** What heartbeating sends as details while a run-ending step runs (undefined elsewhere). */
export function currentEndingLedger(): EndingLedger | undefined {
  return ledgers.getStore();
}

function currentContext(): Context | undefined {
  try {
    return Context.current();
  } catch {
    return undefined;
  }
}

/** Earlier attempts of this activity that died without reporting a failure. */
export function lostAttempts(context: Context): number {
  const reported = (context.info.heartbeatDetails as Partial<EndingLedger> | undefined)?.reportedFailures ?? 0;
  return Math.max(0, context.info.attempt - 1 - reported);
}

export async function runEndingStep<T>(body: (signal: AbortSignal | undefined) => Promise<T>, whenSpent: (lost: number) => Promise<T>): Promise<T> {
  const context = currentContext();
  if (!context) return body(undefined);
  const lost = lostAttempts(context);
  const ledger: EndingLedger = { reportedFailures: context.info.attempt - 1 - lost };
  if (lost >= LOST_ATTEMPTS_BUDGET) return whenSpent(lost);
  const signal = context.cancellationSignal;
  let onAbort: (() => void) | undefined;
  const cancelled = new Promise<never>((_, reject) => {
    onAbort = () => reject(signal.reason instanceof Error ? signal.reason : new Error('cancelled'));
    signal.addEventListener('abort', onAbort, { once: true });
  });
  // The body's own rejection after a cancel has nobody to hear it.
  cancelled.catch(() => undefined);
  try {
    return await Promise.race([ledgers.run(ledger, () => body(signal)), cancelled]);
  } catch (error) {
    if (!signal.aborted) {
      ledger.reportedFailures += 1;
      context.heartbeat({ ...ledger });
    }
    throw error;
  } finally {
    if (onAbort) signal.removeEventListener('abort', onAbort);
  }
}
