import { createServer, type ServerResponse } from 'node:http';
import { MockActivityEnvironment } from '@temporalio/testing';
import { NativeConnection, type Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createActivities } from '../../activities';
import { recordDeliveries } from '../../src/db/webhooks';
import { workflowIdForRun } from '../../src/temporal/constants';
import { createRunWorker } from '../../src/worker';
import { createSuite, get, post, waitForRun } from '../helpers/api';
import { answers, startFakeNode, type FakeNode } from '../helpers/json-rpc-node';
import { until } from '../helpers/processes';
import { startStack, workflowBundle, type Stack } from '../helpers/stack';

/**
 * A hostile receiver on loopback: `/drip` answers 200 headers at once, then one body byte every
 * 2 s and never ends (undici's body timeout is an idle timeout, so it never trips); `/silent`
 * reads the request and never answers.
 */
async function startSlowReceiver() {
  const hits = new Map<string, number>();
  const drips = new Set<NodeJS.Timeout>();
  const server = createServer((req, res: ServerResponse) => {
    req.resume();
    req.on('end', () => {
      const path = req.url ?? '';
      hits.set(path, (hits.get(path) ?? 0) + 1);
      if (path !== '/drip') return;
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.flushHeaders();
      const drip = setInterval(() => res.write('.'), 2_000);
      drips.add(drip);
      res.on('close', () => {
        clearInterval(drip);
        drips.delete(drip);
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    base: `http://127.0.0.1:${port}`,
    hits: (path: string) => hits.get(path) ?? 0,
    close: async () => {
      for (const drip of drips) clearInterval(drip);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

describe('webhook delivery to a slow receiver', () => {
  let stack: Stack;
  let node: FakeNode;
  let receiver: Awaited<ReturnType<typeof startSlowReceiver>>;
  let connection: NativeConnection;
  let worker: Worker;
  let workerRun: Promise<void>;

  beforeAll(async () => {
    stack = await startStack({ worker: false, env: { RVS_ALLOW_PRIVATE_WEBHOOKS: 'true' } });
    // The stack's worker, with a 3 s deadline per attempt instead of 15 s.
    connection = await NativeConnection.connect({ address: stack.config.temporal.address! });
    worker = await createRunWorker({
      connection,
      namespace: stack.config.temporal.namespace,
      taskQueue: stack.taskQueue,
      deps: { sql: stack.sql, box: stack.box, allowPrivateTargets: true, allowPrivateWebhooks: true, webhookDeadlineMs: 3_000 },
      workflowBundle: await workflowBundle(),
    });
    workerRun = worker.run();
    node = await startFakeNode(answers.delay(3));
    receiver = await startSlowReceiver();
  });
  afterAll(async () => {
    await receiver?.close();
    await node?.close();
    worker?.shutdown();
    await workerRun;
    await connection?.close();
    await stack?.close();
  });

  it('judges a dripping 200 on its headers (delivered) and gives a silent receiver a timeout, each attempt recorded', async () => {
    const { auth } = await stack.newTenant();
    const setup = await createSuite(stack.app, auth, {
      candidates: [node.url],
      config: { baseline: { mode: 'none' }, workload: { requests_per_target: 10, concurrency: 2, warmup_requests: 1, timeout_ms: 2_000 } },
    });
    const hook = async (path: string) => {
      const created = await post<{ id: string }>(stack.app, '/v1/webhooks', auth, { url: `${receiver.base}${path}`, events: ['run.finished'] });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      return created.body.id;
    };
    const drip = await hook('/drip');
    const silent = await hook('/silent');
    const created = await post<{ id: string }>(stack.app, `/v1/suites/${setup.suiteId}/runs`, auth, {});
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const run = await waitForRun(stack.app, auth, created.body.id);

    const firstAttempt = (webhookId: string) => async () => {
      const page = await get<any>(stack.app, `/v1/webhooks/${webhookId}/deliveries`, auth);
      const delivery = page.body.data[0];
      // Answered (or timed out): an attempt is in the log as `sending` from before it is sent.
      return delivery?.attempt_log[0] && delivery.attempt_log[0].outcome !== 'sending' ? delivery : undefined;
    };
    // Generous bounds: the point is that the attempts end at all, not how fast.
    const dripped = await until(firstAttempt(drip), 40_000, 'the dripping receiver’s attempt recorded');
    expect(dripped).toMatchObject({ run_id: run.id, status: 'delivered', attempts: 1, last_response_code: 200, last_error_kind: null });
    const silenced = await until(firstAttempt(silent), 40_000, 'the silent receiver’s attempt recorded');
    expect(silenced.run_id).toBe(run.id);
    expect(silenced.attempt_log[0]).toMatchObject({ attempt: 1, outcome: 'failed', response_code: null, error_kind: 'timeout' });
    expect(receiver.hits('/drip')).toBe(1);
    expect(receiver.hits('/silent')).toBeGreaterThanOrEqual(1);
  }, 120_000);

  it('bounds the delivery attempts one tenant has in flight on a worker; the next is put off without being sent, other tenants go on', async () => {
    // A finished run per tenant, with no webhook yet (so the stack's worker delivers nothing), then
    // webhooks on the silent path and their deliveries written directly: only the activities below send.
    const tenantRun = async () => {
      const tenant = await stack.newTenant();
      const setup = await createSuite(stack.app, tenant.auth, {
        candidates: [node.url],
        config: { baseline: { mode: 'none' }, workload: { requests_per_target: 5, concurrency: 1, warmup_requests: 0, timeout_ms: 2_000 } },
      });
      const created = await post<{ id: string }>(stack.app, `/v1/suites/${setup.suiteId}/runs`, tenant.auth, {});
      await waitForRun(stack.app, tenant.auth, created.body.id);
      // The workflow enqueues the run's webhooks after the run is final: wait for it to end first.
      await stack.client.workflow.getHandle(workflowIdForRun(created.body.id)).result();
      const deliveryIds = async (count: number) => {
        const hooks: string[] = [];
        for (let i = 0; i < count; i++) {
          const hook = await post<{ id: string }>(stack.app, '/v1/webhooks', tenant.auth, { url: `${receiver.base}/silent-bound`, events: ['run.finished'] });
          expect(hook.status).toBe(201);
          hooks.push(hook.body.id);
        }
        const rows = await recordDeliveries(
          stack.sql,
          created.body.id,
          hooks.map((webhookId) => ({ webhookId, tenantId: tenant.tenantId, runId: created.body.id, event: 'run.finished' as const, payload: '{}' })),
        );
        return rows.map((row) => row.id);
      };
      return { deliveryIds };
    };
    const a = await (await tenantRun()).deliveryIds(4);
    const [b] = await (await tenantRun()).deliveryIds(1);

    const activities = createActivities({
      sql: stack.sql,
      box: stack.box,
      allowPrivateTargets: true,
      allowPrivateWebhooks: true,
      webhookDeadlineMs: 3_000,
      webhookAttemptsPerTenant: 2,
    });
    const deliver = (deliveryId: string) => new MockActivityEnvironment({ attempt: 1 }).run(() => activities.deliverWebhook({ deliveryId }));
    const before = receiver.hits('/silent-bound');
    // Two of tenant A's attempts hold the receiver (it never answers; each ends at its 3 s deadline).
    const held = [deliver(a[0]!), deliver(a[1]!)].map((p) => p.catch((error: unknown) => error));
    await until(async () => receiver.hits('/silent-bound') === before + 2 || undefined, 10_000, 'two attempts at the receiver');
    // The third is refused at once, sends nothing and writes no attempt; tenant B's goes through.
    await expect(deliver(a[2]!)).rejects.toMatchObject({ type: 'WebhookTenantBusy', nextRetryDelay: expect.anything() });
    const other = deliver(b!).catch((error: unknown) => error);
    await until(async () => receiver.hits('/silent-bound') === before + 3 || undefined, 10_000, 'tenant B’s attempt at the receiver');
    expect(receiver.hits('/silent-bound')).toBe(before + 3);
    expect((await stack.sql`select count(*)::int as n from webhook_delivery_attempts where delivery_id = ${a[2]!}`)[0]!.n).toBe(0);
    // Once A's attempts ended (timeouts, retried by Temporal as usual), A may send again.
    expect(await Promise.all(held)).toEqual([expect.objectContaining({ type: 'WebhookDeliveryFailed' }), expect.objectContaining({ type: 'WebhookDeliveryFailed' })]);
    const next = deliver(a[3]!).catch((error: unknown) => error);
    await until(async () => receiver.hits('/silent-bound') === before + 4 || undefined, 10_000, 'tenant A’s next attempt at the receiver');
    await Promise.all([other, next]);
  }, 120_000);
});
