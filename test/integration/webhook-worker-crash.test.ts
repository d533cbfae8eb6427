import type { ChildProcess } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { workflowIdForWebhookDelivery } from '../../src/temporal/constants';
import { createSuite, get, post, waitForRun } from '../helpers/api';
import { answers, startFakeNode, type FakeNode } from '../helpers/json-rpc-node';
import { startStack, type Stack } from '../helpers/stack';
import { isRunning, killHard, startWorkerProcess, until } from '../helpers/worker-process';

interface Attempt {
  attempt: number;
  outcome: string;
  response_code: number | null;
  latency_ms: number | null;
  error_kind: string | null;
}

/** A receiver that holds the first request open without answering; later ones get 200. */
async function startHoldingReceiver() {
  const arrived: string[] = [];
  const server: Server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      arrived.push(String(req.headers['webhook-id']));
      if (arrived.length > 1) res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    arrived,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/**
 * At-least-once, visibly: a worker killed while an attempt waits for the receiver leaves that
 * attempt in the delivery's log (written before the request went out), and the redelivery comes
 * within the attempt's heartbeat timeout plus one retry interval, not after its 1-minute timeout.
 */
describe('a webhook attempt whose worker is killed mid-request', () => {
  let stack: Stack;
  let node: FakeNode;
  let receiver: Awaited<ReturnType<typeof startHoldingReceiver>>;
  const workers: ChildProcess[] = [];
  const workerEnv = { RVS_ALLOW_PRIVATE_WEBHOOKS: 'true' };

  beforeAll(async () => {
    stack = await startStack({ worker: false, env: workerEnv });
    node = await startFakeNode(answers.ok('0x10'));
    receiver = await startHoldingReceiver();
  });
  afterAll(async () => {
    for (const worker of workers) if (isRunning(worker)) await killHard(worker);
    await receiver?.close();
    await node?.close();
    await stack?.close();
  });

  it('shows the lost attempt in the log (sending, then attempt_lost) and redelivers promptly', { timeout: 120_000 }, async () => {
    const { auth } = await stack.newTenant();
    const hook = await post<{ id: string }>(stack.app, '/v1/webhooks', auth, { url: receiver.url, events: ['run.finished'] });
    expect(hook.status, JSON.stringify(hook.body)).toBe(201);
    const setup = await createSuite(stack.app, auth, { candidates: [node.url], config: { workload: { requests_per_target: 5, concurrency: 1, warmup_requests: 0 } } });
    const start = () => startWorkerProcess({ taskQueue: stack.taskQueue, secretKey: stack.config.secretKey!, env: workerEnv });
    workers.push(start());
    const run = await post<{ id: string }>(stack.app, `/v1/suites/${setup.suiteId}/runs`, auth);
    await waitForRun(stack.app, auth, run.body.id, 60_000);
    await until(() => receiver.arrived.length === 1, 60_000, 'the first attempt at the receiver');

    const attemptsOf = async () => {
      const page = await get<{ data: { id: string; status: string; attempts: number; attempt_log: Attempt[] }[] }>(stack.app, `/v1/webhooks/${hook.body.id}/deliveries`, auth);
      expect(page.status).toBe(200);
      return page.body.data[0]!;
    };
    // The receiver has the request and has not answered: the attempt is in the log already.
    const inFlight = await attemptsOf();
    expect(inFlight).toMatchObject({ status: 'pending', attempts: 1 });
    expect(inFlight.attempt_log).toEqual([
      expect.objectContaining({ attempt: 1, outcome: 'sending', response_code: null, latency_ms: null, error_kind: null }),
    ]);

    await killHard(workers[0]!);
    workers.push(start());
    // Redelivered within the heartbeat timeout (5 s) and one retry interval (10 s), plus a worker start.
    await until(() => receiver.arrived.length === 2, 45_000, 'the redelivery');
    expect(receiver.arrived[1]).toBe(receiver.arrived[0]);
    await until(async () => (await attemptsOf()).status === 'delivered', 15_000, 'the delivery recorded');
    const delivered = await attemptsOf();
    expect(delivered.attempts).toBe(2);
    expect(delivered.attempt_log).toEqual([
      expect.objectContaining({ attempt: 1, outcome: 'failed', response_code: null, latency_ms: null, error_kind: 'attempt_lost' }),
      expect.objectContaining({ attempt: 2, outcome: 'delivered', response_code: 200, error_kind: null }),
    ]);
    // The attempt's activity heartbeats under a short heartbeat timeout (what makes the retry prompt).
    const history = await stack.client.workflow.getHandle(workflowIdForWebhookDelivery(delivered.id)).fetchHistory();
    const scheduled = history.events!.find((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'deliverWebhook');
    expect(Number(scheduled!.activityTaskScheduledEventAttributes!.heartbeatTimeout!.seconds)).toBe(5);
  });
});
