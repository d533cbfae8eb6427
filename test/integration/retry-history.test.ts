import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSuite, post, waitForRun } from '../helpers/api';
import { answers, startFakeNode, type FakeNode } from '../helpers/json-rpc-node';
import { startStack, type Stack } from '../helpers/stack';
import { killHard, startWorkerProcess, until } from '../helpers/worker-process';
import { CHUNK_MAX_CALLS } from '../../activities/probe-chunk';

describe('retry_history keeps every failed attempt', () => {
  let stack: Stack;
  let node: FakeNode;
  const workers: ChildProcess[] = [];
  beforeAll(async () => {
    stack = await startStack({ worker: false });
    node = await startFakeNode(answers.delay(2));
  });
  afterAll(async () => {
    for (const worker of workers) await killHard(worker);
    await node.close();
    await stack.close();
  });

  it('records both lost attempts when a worker is killed in two different chunks of one target', { timeout: 150_000 }, async () => {
    // Three chunks: 0..~5k, then two more.
    const planned = 12_000;
    expect(planned).toBeGreaterThan(2 * CHUNK_MAX_CALLS);
    const { auth } = await stack.newTenant();
    const setup = await createSuite(stack.app, auth, {
      candidates: [node.url],
      config: {
        workload: { requests_per_target: planned, concurrency: 4, warmup_requests: 0 },
        retry: { max_attempts: 3, initial_interval_ms: 200 },
      },
    });
    const worker = () => {
      const child = startWorkerProcess({ taskQueue: stack.taskQueue, secretKey: stack.config.secretKey! });
      workers.push(child);
      return child;
    };
    worker();
    const created = await post<{ id: string }>(stack.app, `/v1/suites/${setup.suiteId}/runs`, auth);
    const runId = created.body.id;
    const committed = async () => {
      const [row] = await stack.sql<{ n: number | null }[]>`select max(seq) as n from run_samples where run_id = ${runId}`;
      return row!.n ?? -1;
    };

    // Kill 1 inside the first chunk (it ends at most CHUNK_MAX_CALLS after where its retry resumes).
    await until(async () => (await committed()) >= 1_500, 60_000, 'first chunk under way');
    await killHard(workers.at(-1)!);
    const resumedFrom = (await committed()) + 1;
    worker();
    // Kill 2 once samples past the first chunk's end are committed: the second chunk is under way.
    const secondChunkUnderWay = resumedFrom + CHUNK_MAX_CALLS + 1_000;
    expect(secondChunkUnderWay).toBeLessThan(2 * CHUNK_MAX_CALLS);
    await until(async () => (await committed()) >= secondChunkUnderWay, 60_000, 'second chunk under way');
    await killHard(workers.at(-1)!);
    worker();

    const run = await waitForRun(stack.app, auth, runId, 90_000);
    expect(run.status, JSON.stringify(run.retry_history)).toBe('success');
    const [counts] = await stack.sql<{ n: number; distinct_seq: number }[]>`
      select count(*)::int as n, count(distinct seq)::int as distinct_seq from run_samples where run_id = ${runId}`;
    expect(counts).toEqual({ n: planned, distinct_seq: planned });
    // Both lost attempts are attempt 1 of their chunk: keyed by chunk, neither hides the other.
    const targetId = run.targets[0].id;
    expect(run.retry_history).toEqual([
      expect.objectContaining({ activity: 'probeChunk', attempt: 1, error_type: 'attempt_lost', target_id: targetId, chunk: 0 }),
      expect.objectContaining({ activity: 'probeChunk', attempt: 1, error_type: 'attempt_lost', target_id: targetId, chunk: expect.any(Number) }),
    ]);
    // The second chunk starts where the resumed first one ended: the retry resumes from the last
    // progress Temporal kept, which its heartbeat throttling may still hold at the chunk's start.
    expect(run.retry_history[1].chunk).toBeGreaterThanOrEqual(CHUNK_MAX_CALLS);
    expect(run.retry_history[1].chunk).toBeLessThanOrEqual(resumedFrom + CHUNK_MAX_CALLS);
    expect(run.retry_count).toBe(2);
  });
});
