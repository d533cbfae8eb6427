import { ApplicationFailure, Context } from '@temporalio/activity';
import { isDatabaseUnavailable, type Sql } from '../src/db/client';
import { findEndpoint } from '../src/db/endpoints';
import { findRunTargets } from '../src/db/run-targets';
import { recordedAttempts, recordRetries, type NewRetry } from '../src/db/run-retries';
import {
  endpointBudgetLeft,
  INFRASTRUCTURE_BACKOFF,
  INFRASTRUCTURE_ERROR_TYPE,
  LOST_ATTEMPTS_BUDGET,
  RETRIES_EXHAUSTED,
  retryDelayMs,
  type FailureClass,
} from '../src/domain/retry-policy';
import type { AttemptNote, RetryLedger, RetrySummary } from './types';

/** Error type of a failure an activity attributes to the probed endpoint (retried on the suite's budget). */
export const ENDPOINT_FAILURE = 'EndpointFailure';
/** Error type the activity throws for an infrastructure failure (retried on the activity's own policy). */
export const INFRASTRUCTURE_FAILURE = 'InfrastructureFailure';

/** Notes carried in heartbeat details at most; older ones are recorded as attempt_lost instead. */
const MAX_CARRIED_NOTES = 50;
const MAX_MESSAGE_CHARS = 500;
const LOST_MESSAGE = 'the attempt ended without a record of why (worker stopped, a timeout, or our database unreachable)';
const LOST = 'attempt_lost';
/** Error type of the failure that ends a chunk whose worker died LOST_ATTEMPTS_BUDGET times. */
export const ATTEMPTS_LOST_FAILURE = 'AttemptsLost';

export interface RetryScope {
  runId: string;
  targetId: string | null;
  /** Null: the target's endpoint, looked up when the row is written. */
  endpointId: string | null;
  activity: string;
  /** First seq of the probe chunk; null for activities that are no chunk. */
  chunkSeq: number | null;
  /** The suite's retry: the endpoint's budget. */
  retry: RetrySummary;
}

/** Marks a failure of the probed endpoint, so that it spends the suite's budget and nothing else does. */
export function endpointFailure(message: string): ApplicationFailure {
  return ApplicationFailure.retryable(message, ENDPOINT_FAILURE);
}

/**
 * Infrastructure: our database unreachable or going away. Endpoint: what an activity marked as
 * the endpoint's, and anything unrecognised (a bug, a misconfigured worker), which keeps the
 * suite's bounded budget instead of retrying for ever. Final: non-retryable failures.
 */
export function classifyFailure(error: unknown): FailureClass {
  if (error instanceof ApplicationFailure) {
    if (error.nonRetryable) return 'final';
    if (error.type === INFRASTRUCTURE_FAILURE) return 'infrastructure';
    if (error.type === ENDPOINT_FAILURE) return 'endpoint';
  }
  if (isDatabaseUnavailable(error)) return 'infrastructure';
  const cause = (error as { cause?: unknown } | null)?.cause;
  return cause !== undefined && cause !== error && isDatabaseUnavailable(cause) ? 'infrastructure' : 'endpoint';
}

/**
 * Whether our database answers right now. An unrecognised failure while it does not (a COPY
 * stream cut mid-write can surface as a plain Error) is our outage, not the endpoint's.
 */
async function databaseUnreachable(sql: Sql): Promise<boolean> {
  try {
    await sql`select 1`;
    return false;
  } catch (error) {
    return isDatabaseUnavailable(error);
  }
}

/** A short, secret-free description of a failure for retry_history. */
function describe(error: unknown): { type: string; message: string } {
  const e = error as { name?: string; code?: string; message?: string };
  const type = error instanceof ApplicationFailure && error.type ? error.type : (e.code ?? e.name ?? 'Error');
  // Messages of our own errors never contain endpoint URLs; cap length all the same.
  return { type, message: String(e.message ?? error).slice(0, MAX_MESSAGE_CHARS) };
}

function toRow(scope: RetryScope, note: AttemptNote): NewRetry {
  return {
    runId: scope.runId,
    targetId: scope.targetId,
    endpointId: scope.endpointId,
    activity: scope.activity,
    chunkSeq: scope.chunkSeq,
    attempt: note.attempt,
    errorType: note.errorType,
    message: note.message,
    failedAt: new Date(note.failedAtMs),
    nextAttemptAt: note.nextAttemptAtMs === null ? null : new Date(note.nextAttemptAtMs),
  };
}

/**
 * Writes what earlier attempts could not: the notes they carried (our database was down when
 * they failed) and, for any attempt with neither a row nor a note (its worker died), an
 * attempt_lost row. Clears the carried notes once they are written. Returns how many earlier
 * attempts were lost.
 */
async function recordEarlierAttempts(sql: Sql, scope: RetryScope, attempt: number, ledger: RetryLedger, waited: WaitedAttempts): Promise<number> {
  const recorded = await recordedAttempts(sql, scope);
  const notes = new Map(ledger.unrecorded.map((n) => [n.attempt, n]));
  const missing: NewRetry[] = [];
  let lost = 0;
  for (let earlier = 1; earlier < attempt; earlier++) {
    if (waited.some(([from, to]) => earlier >= from && earlier <= to)) continue;
    if (recorded.has(earlier)) {
      if (recorded.get(earlier) === LOST) lost++;
      continue;
    }
    const now = Date.now();
    const note = notes.get(earlier) ?? {
      attempt: earlier,
      errorType: LOST,
      message: LOST_MESSAGE,
      failedAtMs: now,
      nextAttemptAtMs: now,
    };
    if (note.errorType === LOST) lost++;
    missing.push(toRow(scope, note));
  }
  await recordRetries(sql, missing);
  ledger.unrecorded = [];
  return lost;
}

/**
 * Attempts that ended waiting to be admitted (a tenant's probe-activity cap), as inclusive
 * [first, last] ranges: no failure of anyone's, so neither recorded nor counted as lost.
 */
export type WaitedAttempts = [number, number][];

/** Heartbeat-details key of the WaitedAttempts (beside the body's own details and `retries`). */
const WAITED = 'waited';

/**
 * Ends this attempt as one that waited to be admitted, before its body ran: the attempt goes on
 * record in the heartbeat details as waited (withRetryRecording skips it when it writes the
 * attempts before a later one) and `failure`, retryable with its own delay, is thrown. The SDK
 * sends the last heartbeat with the failure, and Temporal hands it to the next attempt.
 */
export function endAttemptWaiting(failure: ApplicationFailure): never {
  const context = Context.current();
  const details = (context.info.heartbeatDetails ?? {}) as { [WAITED]?: WaitedAttempts };
  const waited = [...(details[WAITED] ?? [])];
  const last = waited[waited.length - 1];
  const { attempt } = context.info;
  if (last && last[1] === attempt - 1) waited[waited.length - 1] = [last[0], attempt];
  else waited.push([attempt, attempt]);
  context.heartbeat({ ...details, [WAITED]: waited });
  throw failure;
}

/** The endpoint a scope's failures are the endpoint's of, by name (for a failure_reason; never its URL). */
async function endpointName(sql: Sql, scope: RetryScope): Promise<string> {
  const target = scope.targetId ? (await findRunTargets(sql, scope.runId)).find((t) => t.id === scope.targetId) : undefined;
  if (target) return target.endpoint_name;
  const endpoint = scope.endpointId ? await findEndpoint(sql, scope.endpointId) : undefined;
  return endpoint?.name ?? 'an endpoint';
}

/**
 * Runs an activity body, records every failed attempt in retry_history and decides how it is
 * retried. The activity's Temporal retry policy is the infrastructure one (unlimited, up to a
 * minute apart); the suite's budget is enforced here: an endpoint failure is retried after the
 * suite's backoff (nextRetryDelay) until `retry.maxAttempts` endpoint failures, then it is final.
 *
 * What must survive from one attempt to the next — endpoint failures so far, and failures that
 * could not be written because our database was down — travels in the heartbeat details (the SDK
 * flushes the last heartbeat with a failure, and a killed worker's last heartbeat stays), next to
 * whatever the body heartbeats (a probe's resume point). `heartbeat` merges them; bodies must use it.
 */
export async function withRetryRecording<T>(
  sql: Sql,
  scope: RetryScope,
  body: (heartbeat: (details: object) => void) => Promise<T>,
): Promise<T> {
  const context = Context.current();
  const { attempt } = context.info;
  const { retries: carried, [WAITED]: waited = [], ...previous } = (context.info.heartbeatDetails ?? {}) as { retries?: RetryLedger; [WAITED]?: WaitedAttempts };
  const ledger: RetryLedger = { endpointFailures: carried?.endpointFailures ?? 0, unrecorded: [...(carried?.unrecorded ?? [])] };
  // Until the body heartbeats, the previous attempt's details (a resume point) are kept as they were.
  let details: object = previous;
  const heartbeat = (next: object) => {
    details = next;
    context.heartbeat({ ...next, retries: ledger, ...(waited.length > 0 ? { [WAITED]: waited } : {}) });
  };
  try {
    if (attempt > 1) {
      // A worker that died on this chunk LOST_ATTEMPTS_BUDGET times would die on it again: an
      // answer it cannot survive. The run fails, naming the endpoint, instead of retrying for ever.
      const lost = await recordEarlierAttempts(sql, scope, attempt, ledger, waited);
      if (lost >= LOST_ATTEMPTS_BUDGET) {
        throw ApplicationFailure.nonRetryable(`the worker died ${lost} times processing answers from ${await endpointName(sql, scope)}`, ATTEMPTS_LOST_FAILURE);
      }
    }
    return await body(heartbeat);
  } catch (error) {
    if (context.cancellationSignal.aborted) throw error;
    const failedAt = Date.now();
    let failureClass = classifyFailure(error);
    const marked = error instanceof ApplicationFailure && error.type === ENDPOINT_FAILURE;
    if (failureClass === 'endpoint' && !marked && (await databaseUnreachable(sql))) failureClass = 'infrastructure';
    const described = describe(error);
    let thrown: unknown = error;
    let nextAttemptAtMs: number | null = null;
    if (failureClass === 'infrastructure') {
      nextAttemptAtMs = failedAt + retryDelayMs(INFRASTRUCTURE_BACKOFF, attempt);
      // A distinct type, so the workflow and the Temporal UI can tell it from the endpoint's failures.
      thrown = ApplicationFailure.create({ type: INFRASTRUCTURE_FAILURE, message: `${described.type}: ${described.message}` });
    } else if (failureClass === 'endpoint') {
      ledger.endpointFailures += 1;
      if (endpointBudgetLeft(scope.retry.maxAttempts, ledger.endpointFailures)) {
        const delay = retryDelayMs(scope.retry, ledger.endpointFailures);
        nextAttemptAtMs = failedAt + delay;
        thrown = ApplicationFailure.create({ type: described.type, message: described.message, nextRetryDelay: delay });
      } else {
        // Marked, so the run's failure_reason says "exhausted its retries" only when they were.
        thrown = ApplicationFailure.create({
          message: described.message,
          type: described.type,
          nonRetryable: true,
          details: [{ [RETRIES_EXHAUSTED]: ledger.endpointFailures }],
        });
      }
    }
    const note: AttemptNote = {
      attempt,
      errorType: failureClass === 'infrastructure' ? INFRASTRUCTURE_ERROR_TYPE : described.type,
      message: failureClass === 'infrastructure' ? `${described.type}: ${described.message}` : described.message,
      failedAtMs: failedAt,
      nextAttemptAtMs,
    };
    try {
      await recordRetries(sql, [toRow(scope, note)]);
    } catch {
      // Our database is down: the next attempt writes it (the oldest notes beyond the cap become attempt_lost).
      ledger.unrecorded = [...ledger.unrecorded, note].slice(-MAX_CARRIED_NOTES);
    }
    heartbeat(details);
    throw thrown;
  }
}
