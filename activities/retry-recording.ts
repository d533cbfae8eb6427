import { ApplicationFailure, Context } from '@temporalio/activity';
import type { Sql } from '../src/db/client';
import { findRetryHistory, recordRetry } from '../src/db/runs';
import type { RetrySummary } from './types';

function nextAttemptAt(retry: RetrySummary, attempt: number, failedAt: Date): Date | null {
  if (attempt >= retry.maxAttempts) return null;
  const delay = Math.min(retry.initialIntervalMs * retry.backoffCoefficient ** (attempt - 1), retry.maxIntervalMs);
  return new Date(failedAt.getTime() + delay);
}

/** A short, secret-free description of an infrastructure failure for retry_history. */
function describe(error: unknown): { type: string; message: string } {
  const e = error as { name?: string; code?: string; message?: string };
  const type = error instanceof ApplicationFailure && error.type ? error.type : (e.code ?? e.name ?? 'Error');
  // Messages of our own errors never contain endpoint URLs; cap length all the same.
  return { type, message: String(e.message ?? error).slice(0, 500) };
}

/**
 * Runs an activity body and writes every failed attempt into retry_history. An attempt that
 * never got to write (worker killed, heartbeat timeout) is recorded by the attempt after it.
 */
export async function withRetryRecording<T>(
  sql: Sql,
  scope: { runId: string; targetId: string | null; endpointId: string | null; activity: string; retry: RetrySummary },
  body: () => Promise<T>,
): Promise<T> {
  const { attempt } = Context.current().info;
  if (attempt > 1) {
    const history = await findRetryHistory(sql, scope.runId);
    const previousRecorded = history.some(
      (r) => r.activity === scope.activity && r.target_id === scope.targetId && r.attempt === attempt - 1,
    );
    if (!previousRecorded) {
      await recordRetry(sql, {
        ...scope,
        attempt: attempt - 1,
        errorType: 'attempt_lost',
        message: 'the attempt stopped without reporting (worker stopped, or heartbeat or start-to-close timeout)',
        failedAt: new Date(),
        nextAttemptAt: new Date(),
      });
    }
  }
  try {
    return await body();
  } catch (error) {
    if (!Context.current().cancellationSignal.aborted) {
      const failedAt = new Date();
      const { type, message } = describe(error);
      const nonRetryable = (error as { nonRetryable?: boolean }).nonRetryable === true;
      await recordRetry(sql, {
        ...scope,
        attempt,
        errorType: type,
        message,
        failedAt,
        nextAttemptAt: nonRetryable ? null : nextAttemptAt(scope.retry, attempt, failedAt),
      }).catch(() => undefined);
    }
    throw error;
  }
}
