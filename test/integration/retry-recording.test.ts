import { ApplicationFailure } from '@temporalio/activity';
import { MockActivityEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withRetryRecording, type RetryScope } from '../../activities/retry-recording';
import type { RetryLedger, RetrySummary } from '../../activities/types';
import { createSql, type Sql } from '../../src/db/client';
import { findRunTargets } from '../../src/db/run-targets';
import { findRetryHistory } from '../../src/db/run-retries';
import { createSuite, post } from '../helpers/api';
import { freePort } from '../helpers/free-port';
import { startStack, type Stack } from '../helpers/stack';

const RETRY: RetrySummary = { maxAttempts: 2, initialIntervalMs: 300, backoffCoefficient: 2, maxIntervalMs: 10_000 };

/** Runs a body under withRetryRecording as attempt `attempt`, returning what it threw and its last heartbeat. */
async function attemptOf(sql: Sql, scope: RetryScope, attempt: number, heartbeatDetails: unknown, body: () => Promise<unknown>) {
  const env = new MockActivityEnvironment({ attempt, heartbeatDetails });
  let last: unknown;
  env.on('heartbeat', (details: unknown) => (last = details));
  const thrown = await env.run(() => withRetryRecording(sql, scope, body)).then(
    () => undefined,
    (error: unknown) => error,
  );
  return { thrown, heartbeat: last as { retries: RetryLedger } | undefined };
}

describe('withRetryRecording while our database is down', () => {
  let stack: Stack;
  let down: Sql;
  let scope: RetryScope;
  beforeAll(async () => {
    stack = await startStack({ worker: false });
    // Nothing listens there: every query is refused, as during an outage.
    down = createSql(`postgres://postgres@127.0.0.1:${await freePort()}/postgres`, { max: 1 });
    const { auth } = await stack.newTenant();
    const setup = await createSuite(stack.app, auth, { candidates: ['http://127.0.0.1:9/'] });
    const run = await post<{ id: string }>(stack.app, `/v1/suites/${setup.suiteId}/runs`, auth);
    const [target] = await findRunTargets(stack.sql, run.body.id);
    scope = { runId: run.body.id, targetId: target!.id, endpointId: null, activity: 'probeChunk', chunkSeq: 5_000, retry: RETRY };
  });
  afterAll(async () => {
    await down.end({ timeout: 1 });
    await stack.close();
  });

  it('counts an unrecognised failure as infrastructure, carries it, and the next attempt writes it', async () => {
    // A plain Error (no code): recognised as ours only because the database does not answer.
    const first = await attemptOf(down, scope, 1, undefined, () => Promise.reject(new Error('stream cut mid-write')));
    expect(first.thrown).toBeInstanceOf(ApplicationFailure);
    expect(first.thrown).toMatchObject({ type: 'InfrastructureFailure', nonRetryable: false });
    expect(first.heartbeat!.retries).toMatchObject({
      endpointFailures: 0,
      unrecorded: [{ attempt: 1, errorType: 'infrastructure', message: 'Error: stream cut mid-write' }],
    });

    // Attempts 2 and 3 fail on the database itself; the notes pile up, the budget stays untouched.
    const second = await attemptOf(down, scope, 2, first.heartbeat, () => Promise.resolve());
    const third = await attemptOf(down, scope, 3, second.heartbeat, () => Promise.resolve());
    expect(third.heartbeat!.retries.endpointFailures).toBe(0);
    expect(third.heartbeat!.retries.unrecorded.map((n) => [n.attempt, n.errorType])).toEqual([
      [1, 'infrastructure'],
      [2, 'infrastructure'],
      [3, 'infrastructure'],
    ]);
    expect(await findRetryHistory(stack.sql, scope.runId)).toEqual([]);

    // The database is back: attempt 4 writes all three (with their real failure times), then
    // an endpoint failure spends the first unit of the suite's budget.
    const fourth = await attemptOf(stack.sql, scope, 4, third.heartbeat, () => Promise.reject(new Error('the endpoint said no')));
    expect(fourth.thrown).toMatchObject({ type: 'Error', nonRetryable: false, nextRetryDelay: RETRY.initialIntervalMs });
    expect(fourth.heartbeat!.retries).toEqual({ endpointFailures: 1, unrecorded: [] });
    const history = await findRetryHistory(stack.sql, scope.runId);
    expect(history.map((h) => [h.chunk_seq, h.attempt, h.error_type])).toEqual([
      [5_000, 1, 'infrastructure'],
      [5_000, 2, 'infrastructure'],
      [5_000, 3, 'infrastructure'],
      [5_000, 4, 'Error'],
    ]);
    expect(history[0]!.failed_at.getTime()).toBe(third.heartbeat!.retries.unrecorded[0]!.failedAtMs);
    expect(history.every((h) => h.endpoint_id !== null)).toBe(true);

    // The second endpoint failure exhausts max_attempts 2: final, whatever Temporal's attempt number.
    const fifth = await attemptOf(stack.sql, scope, 5, fourth.heartbeat, () => Promise.reject(new Error('the endpoint said no')));
    expect(fifth.thrown).toMatchObject({ nonRetryable: true });
    const last = (await findRetryHistory(stack.sql, scope.runId)).at(-1)!;
    expect(last).toMatchObject({ attempt: 5, next_attempt_at: null });
  });
});
