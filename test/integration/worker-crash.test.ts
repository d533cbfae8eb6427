import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { workflowIdForRun } from '../../src/temporal/constants';
import { createSuite, get, post, waitForRun } from '../helpers/api';
import { answers, startFakeNode, type FakeNode } from '../helpers/json-rpc-node';
import { startStack, type Stack } from '../helpers/stack';
import { isRunning, killHard, startWorkerProcess, until } from '../helpers/worker-process';

describe('a worker killed in the middle of a probe chunk', () => {
  let stack: Stack;
  let node: FakeNode;
  const workers: ChildProcess[] = [];
  beforeAll(async () => {
    stack = await startStack({ worker: false });
    node = await startFakeNode(answers.delay(5));
  });
  afterAll(async () => {
    for (const worker of workers) if (isRunning(worker)) await killHard(worker);
    await node.close();
    await stack.close();
  });

  it('loses nothing and counts nothing twice: the run succeeds with exactly the planned samples', { timeout: 120_000 }, async () => {
    const planned = 3_000;
    const { auth } = await stack.newTenant();
    const setup = await createSuite(stack.app, auth, {
      candidates: [node.url],
      config: {
        workload: { requests_per_target: planned, concurrency: 2, warmup_requests: 0 },
        retry: { max_attempts: 3, initial_interval_ms: 200 },
      },
    });
    workers.push(startWorkerProcess({ taskQueue: stack.taskQueue, secretKey: stack.config.secretKey! }));
    const created = await post<{ id: string }>(stack.app, `/v1/suites/${setup.suiteId}/runs`, auth);

    // Kill -9 once the chunk is well under way: some batches committed, the rest in flight.
    await until(() => node.requests.length >= 1_400, 60_000);
    await killHard(workers[0]!);
    const sentBeforeCrash = node.requests.length;
    expect(sentBeforeCrash).toBeLessThan(planned);

    workers.push(startWorkerProcess({ taskQueue: stack.taskQueue, secretKey: stack.config.secretKey! }));
    const run = await waitForRun(stack.app, auth, created.body.id, 90_000);

    expect(run.status).toBe('success');
    expect(run.stats.calls.total).toBe(planned);
    const [counts] = await stack.sql<{ n: number; distinct_seq: number; max_seq: number }[]>`
      select count(*)::int as n, count(distinct seq)::int as distinct_seq, max(seq) as max_seq
      from run_samples where run_id = ${run.id}`;
    expect(counts).toEqual({ n: planned, distinct_seq: planned, max_seq: planned - 1 });
    // The lost attempt is in the history, and counted.
    expect(run.retry_history).toEqual([
      expect.objectContaining({ activity: 'probeChunk', attempt: 1, error_type: 'attempt_lost', target_id: run.targets[0].id }),
    ]);
    expect(run.retry_count).toBe(1);
    // Resumed after the last committed batch rather than from the start.
    expect(node.requests.length).toBeLessThan(planned + sentBeforeCrash);
  });

  it('a run cancelled while its probe\'s worker is dead ends cancelled, not failed by the probe\'s heartbeat timeout', { timeout: 120_000 }, async () => {
    const { auth } = await stack.newTenant();
    const setup = await createSuite(stack.app, auth, {
      candidates: [node.url],
      config: { workload: { requests_per_target: 200_000, concurrency: 2, warmup_requests: 0 }, retry: { max_attempts: 3, initial_interval_ms: 200 } },
    });
    // Two workers: one will lose its probe activity, the other takes the cancel's workflow task
    // before that activity's heartbeat times out — so Temporal, asked to cancel it, does not retry
    // it and it ends by its heartbeat timeout instead.
    for (const worker of workers) if (isRunning(worker)) await killHard(worker);
    const pair = [0, 1].map(() => startWorkerProcess({ taskQueue: stack.taskQueue, secretKey: stack.config.secretKey! }));
    workers.push(...pair);
    const created = await post<{ id: string }>(stack.app, `/v1/suites/${setup.suiteId}/runs`, auth);
    const handle = stack.client.workflow.getHandle(workflowIdForRun(created.body.id));
    let identity = '';
    await until(async () => {
      const pending = (await handle.describe()).raw.pendingActivities ?? [];
      identity = pending.find((a) => a.activityType?.name === 'probeChunk' && a.lastWorkerIdentity)?.lastWorkerIdentity ?? '';
      return identity !== '';
    }, 60_000, 'the probe under way');
    const holder = pair.find((worker) => identity.startsWith(`${worker.pid}@`));
    expect(holder, `activity on ${identity}, workers ${pair.map((w) => w.pid).join(', ')}`).toBeDefined();
    await killHard(holder!);
    const cancel = await post(stack.app, `/v1/runs/${created.body.id}/cancel`, auth);
    expect(cancel.status, JSON.stringify(cancel.body)).toBe(202);
    const run = await waitForRun(stack.app, auth, created.body.id, 90_000);
    expect({ status: run.status, failure_reason: run.failure_reason }).toEqual({ status: 'cancelled', failure_reason: 'cancelled by request' });
    const verdict = await get<{ verdict: string; exit_code: number }>(stack.app, `/v1/runs/${created.body.id}/verdict`, auth);
    expect(verdict.body).toMatchObject({ verdict: 'error', exit_code: 2 });
  });
});
