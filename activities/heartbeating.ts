import { Context } from '@temporalio/activity';

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
  const timer = context ? setInterval(() => context.heartbeat(), HEARTBEAT_EVERY_MS) : undefined;
  context?.heartbeat();
  try {
    return await work();
  } finally {
    clearInterval(timer);
  }
}
