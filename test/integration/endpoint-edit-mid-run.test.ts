import { MockActivityEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createActivities, type Activities } from '../../activities';
import type { ProbeChunkResult, RetrySummary } from '../../activities/types';
import { CHUNK_MAX_CALLS } from '../../activities/probe-chunk';
import { findRunTargets } from '../../src/db/run-targets';
import { createSuite, post } from '../helpers/api';
import { answers, startFakeNode, type FakeNode } from '../helpers/json-rpc-node';
import { startStack, type Stack } from '../helpers/stack';

const RETRY: RetrySummary = { maxAttempts: 3, initialIntervalMs: 1000, backoffCoefficient: 2, maxIntervalMs: 30_000 };
const WARMUP = 2;
const SECOND_CHUNK = 20;

/**
 * docs/api.md: probes read the endpoint at the start of every chunk, so a run in progress uses a
 * changed URL or header from its next chunk on. The worker keeps a target's pool between chunks
 * (activities/client-cache.ts); these tests hold it to the docs on one worker, chunk by chunk.
 */
describe('an endpoint edited while its run is in progress', () => {
  let stack: Stack;
  let before: FakeNode;
  let after: FakeNode;
  let activities: Activities;
  beforeAll(async () => {
    // No worker: the tests drive the probe activities chunk by chunk, with the edit in between.
    stack = await startStack({ worker: false });
    before = await startFakeNode(answers.ok());
    after = await startFakeNode(answers.ok());
    // One activities instance for the whole file, as a worker has: one client cache.
    activities = createActivities({ sql: stack.sql, box: stack.box, allowPrivateTargets: true });
  });
  afterAll(async () => {
    await before.close();
    await after.close();
    await stack.close();
  });

  /** A run of one target whose first chunk ends before its last call, claimed and planned. */
  async function runOfTwoChunks() {
    const { auth } = await stack.newTenant();
    const setup = await createSuite(stack.app, auth, {
      candidates: [before.url],
      config: { workload: { requests_per_target: CHUNK_MAX_CALLS + SECOND_CHUNK, concurrency: 8, warmup_requests: WARMUP, timeout_ms: 2_000 } },
    });
    const run = await post<{ id: string }>(stack.app, `/v1/suites/${setup.suiteId}/runs`, auth);
    const [target] = await findRunTargets(stack.sql, run.body.id);
    await new MockActivityEnvironment({}).run(activities.claimRun, { runId: run.body.id });
    const chunk = (fromSeq: number) =>
      new MockActivityEnvironment({}).run(activities.probeChunk, {
        runId: run.body.id,
        targetId: target!.id,
        retry: RETRY,
        fromSeq,
        campaignEndsAtMs: null,
      }) as Promise<ProbeChunkResult>;
    return { auth, endpointId: setup.endpointIds[0]!, chunk };
  }

  function reset(): void {
    before.requests.length = 0;
    after.requests.length = 0;
  }

  it('sends the calls of every chunk after a URL change to the new URL', async () => {
    const { auth, endpointId, chunk } = await runOfTwoChunks();
    reset();
    const first = await chunk(0);
    expect(first).toMatchObject({ nextSeq: CHUNK_MAX_CALLS, done: false });
    expect(before.requests.length).toBe(CHUNK_MAX_CALLS + WARMUP);

    const patched = await stack.app.inject({ method: 'PATCH', url: `/v1/endpoints/${endpointId}`, headers: auth, payload: { url: `${after.url}/`, headers: { 'x-team': 'blue' } } });
    expect(patched.statusCode).toBe(200);
    reset();
    const second = await chunk(first.nextSeq);
    expect(second).toMatchObject({ nextSeq: CHUNK_MAX_CALLS + SECOND_CHUNK, done: true });
    // Every call of the next chunk went to the new URL with the new header, over a new pool (warmed up again).
    expect(before.requests.length).toBe(0);
    expect(after.requests.length).toBe(SECOND_CHUNK + WARMUP);
    expect(after.requests.every((r) => r.headers['x-team'] === 'blue')).toBe(true);
  });

  it('keeps the warm pool when only the name changed', async () => {
    const { auth, endpointId, chunk } = await runOfTwoChunks();
    const first = await chunk(0);
    const connections = before.connections();
    const renamed = await stack.app.inject({ method: 'PATCH', url: `/v1/endpoints/${endpointId}`, headers: auth, payload: { name: 'renamed' } });
    expect(renamed.statusCode).toBe(200);
    reset();
    await chunk(first.nextSeq);
    // Same URL and headers: no warm-up, no new connection.
    expect(before.requests.length).toBe(SECOND_CHUNK);
    expect(before.connections()).toBe(connections);
  });
});
