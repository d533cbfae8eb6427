import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { MockActivityEnvironment } from '@temporalio/testing';
import { NativeConnection, type Worker } from '@temporalio/worker';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createActivities } from '../../activities';
import { SCOPES } from '../../src/auth/scopes';
import { webhookDeliveries } from '../../src/metrics/registry';
import { workflowIdForWebhookDelivery } from '../../src/temporal/constants';
import { createRunWorker } from '../../src/worker';
import { createSuite, get, post, waitForRun } from '../helpers/api';
import { answers, startFakeNode, type FakeNode } from '../helpers/json-rpc-node';
import { startStack, workflowBundle, type Stack } from '../helpers/stack';

type Auth = { authorization: string };

interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  /** What the reference Standard Webhooks implementation made of it (null: the check failed). */
  verified: unknown;
  answered: number;
}

/**
 * A webhook receiver on loopback. Every request is checked with `standardwebhooks` (the
 * specification's reference implementation, not our signing code) against the secret of its path;
 * `answer` decides the status code.
 */
async function startReceiver() {
  const secrets = new Map<string, string>();
  const received: Received[] = [];
  let answer: (path: string, count: number) => number = () => 200;
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    req.on('end', () => {
      const path = req.url ?? '';
      const secret = secrets.get(path);
      let verified: unknown = null;
      try {
        verified = secret ? new Webhook(secret).verify(body, req.headers as Record<string, string>) : null;
      } catch {
        verified = null;
      }
      const status = answer(path, received.filter((r) => r.path === path).length + 1);
      received.push({ path, headers: req.headers, body, verified, answered: status });
      res.writeHead(status, { 'content-type': 'text/plain' });
      res.end(status === 200 ? 'ok' : 'try again');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    base: `http://127.0.0.1:${port}`,
    received,
    of: (path: string) => received.filter((r) => r.path === path),
    setSecret: (path: string, secret: string) => secrets.set(path, secret),
    setAnswer: (next: typeof answer) => {
      answer = next;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** rvs_webhook_deliveries_total by outcome, as this process's worker counted them. */
async function deliveryCounts(): Promise<Record<string, number>> {
  const { values } = await webhookDeliveries.get();
  return Object.fromEntries(values.map((v) => [String(v.labels.outcome), v.value]));
}

async function until<T>(what: string, read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`${what}: still ${JSON.stringify(value)} after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('webhooks', () => {
  let stack: Stack;
  let node: FakeNode;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let connection: NativeConnection;
  let worker: Worker;
  let workerRun: Promise<void>;

  beforeAll(async () => {
    stack = await startStack({ worker: false, captureLogs: true, env: { RVS_ALLOW_PRIVATE_WEBHOOKS: 'true' } });
    // Our own worker: the stack's, with retries of failed deliveries 200 ms apart (then doubling).
    connection = await NativeConnection.connect({ address: stack.config.temporal.address! });
    await startWorker();
    node = await startFakeNode(answers.delay(3));
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await receiver?.close();
    await node?.close();
    worker?.shutdown();
    await workerRun;
    await connection?.close();
    await stack?.close();
  });

  const startWorker = async () => {
    worker = await createRunWorker({
      connection,
      namespace: stack.config.temporal.namespace,
      taskQueue: stack.taskQueue,
      deps: { sql: stack.sql, box: stack.box, allowPrivateTargets: true, allowPrivateWebhooks: true, publicUrl: stack.config.publicUrl, webhookRetryInitialIntervalMs: 200 },
      workflowBundle: await workflowBundle(),
    });
    workerRun = worker.run();
  };

  const createWebhook = async (auth: Auth, body: Record<string, unknown>) => {
    const created = await post<any>(stack.app, '/v1/webhooks', auth, body);
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    return created.body as { id: string; secret: string; url: string };
  };

  /** A small suite; each run passes or fails on its p95 threshold (the node answers in ~3 ms). */
  const smallSuite = (auth: Auth) =>
    createSuite(stack.app, auth, {
      candidates: [node.url],
      config: {
        baseline: { mode: 'none' },
        workload: { requests_per_target: 20, concurrency: 2, warmup_requests: 1, timeout_ms: 2_000 },
      },
    });
  const runSuite = async (auth: Auth, suiteId: string, verdict: 'pass' | 'fail') => {
    const created = await post<{ id: string }>(stack.app, `/v1/suites/${suiteId}/runs`, auth, {
      thresholds: { latency_p95_max_ms: verdict === 'pass' ? 10_000 : 1 },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const run = await waitForRun(stack.app, auth, created.body.id);
    const got = await get<any>(stack.app, `/v1/runs/${run.id}/verdict`, auth);
    expect(got.body.verdict, got.body.markdown_summary).toBe(verdict);
    return run.id as string;
  };
  const deliveriesOf = async (auth: Auth, webhookId: string) => {
    const page = await get<any>(stack.app, `/v1/webhooks/${webhookId}/deliveries?limit=200`, auth);
    expect(page.status).toBe(200);
    return page.body.data as any[];
  };

  it('creates, reads, changes and deletes a webhook; the secret is returned once and stored sealed', async () => {
    const { auth } = await stack.newTenant();
    const created = await post<any>(stack.app, '/v1/webhooks', { ...auth, 'idempotency-key': 'create-hook-1' } as Auth, {
      url: 'https://user:pw@hooks.example.com/services/T0/B0/XXXXSECRET?x=1',
      events: ['verdict.failed', 'run.finished'],
    });
    expect(created.status).toBe(201);
    expect(created.headers.location).toBe(`/v1/webhooks/${created.body.id}`);
    expect(created.body).toMatchObject({
      url: 'https://****@hooks.example.com/****/****/****/****?****',
      // Kept in a fixed order whatever the request's order.
      events: ['run.finished', 'verdict.failed'],
      format: 'standard',
    });
    const secret = created.body.secret as string;
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);

    // An Idempotency-Key replay answers the same webhook without its secret.
    const replay = await post<any>(stack.app, '/v1/webhooks', { ...auth, 'idempotency-key': 'create-hook-1' } as Auth, {
      url: 'https://user:pw@hooks.example.com/services/T0/B0/XXXXSECRET?x=1',
      events: ['verdict.failed', 'run.finished'],
    });
    expect(replay.headers['idempotency-replayed']).toBe('true');
    expect(replay.body.id).toBe(created.body.id);
    expect(replay.body).not.toHaveProperty('secret');

    const id = created.body.id as string;
    const read = await get<any>(stack.app, `/v1/webhooks/${id}`, auth);
    expect(read.status).toBe(200);
    expect(read.body).not.toHaveProperty('secret');
    const list = await get<any>(stack.app, '/v1/webhooks', auth);
    expect(list.body.pagination).toEqual({ total: 1, limit: 50, offset: 0, has_more: false });
    expect(list.body.data[0]).not.toHaveProperty('secret');

    // Given secret (rotation) is accepted and never shown back.
    const rotated = `whsec_${Buffer.alloc(32, 9).toString('base64')}`;
    const patched = await stack.app.inject({ method: 'PATCH', url: `/v1/webhooks/${id}`, headers: auth, payload: { secret: rotated, format: 'slack' } });
    expect(patched.statusCode).toBe(200);
    expect(patched.json()).toMatchObject({ id, format: 'slack' });
    expect(patched.body).not.toContain('whsec_');

    // At rest: URL and secret sealed, nothing of either in the row in clear.
    const [row] = await stack.sql<any[]>`select * from webhooks where id = ${id}`;
    const stored = JSON.stringify(row);
    for (const clear of ['XXXXSECRET', 'user:pw', secret, rotated, rotated.slice(6)]) expect(stored).not.toContain(clear);
    expect(stack.box.decrypt(row.secret_encrypted)).toBe(rotated);
    // Nor in any line the API logged (at trace level) for these requests.
    expect(stack.logs.length).toBeGreaterThan(0);
    for (const line of stack.logs) for (const clear of ['XXXXSECRET', 'user:pw', secret.slice(6), rotated.slice(6)]) expect(line).not.toContain(clear);

    // Another tenant: 403 as every resource of another tenant; an unknown id 404.
    const other = await stack.newTenant();
    expect((await get(stack.app, `/v1/webhooks/${id}`, other.auth)).status).toBe(403);
    expect((await get(stack.app, `/v1/webhooks/${id}/deliveries`, other.auth)).status).toBe(403);
    expect((await stack.app.inject({ method: 'DELETE', url: `/v1/webhooks/${id}`, headers: other.auth })).statusCode).toBe(403);
    expect((await get(stack.app, '/v1/webhooks/00000000-0000-4000-8000-000000000000', auth)).status).toBe(404);

    expect((await stack.app.inject({ method: 'DELETE', url: `/v1/webhooks/${id}`, headers: auth })).statusCode).toBe(204);
    expect((await get(stack.app, `/v1/webhooks/${id}`, auth)).status).toBe(404);
  });

  it.each([
    { name: 'a link-local IP literal', body: { url: 'http://169.254.169.254/hook', events: ['run.finished'] }, field: 'url' },
    { name: 'a non-http URL', body: { url: 'ftp://example.com/hook', events: ['run.finished'] }, field: 'url' },
    { name: 'no events', body: { url: 'https://example.com/hook', events: [] }, field: 'events' },
    { name: 'an unknown event', body: { url: 'https://example.com/hook', events: ['run.started'] }, field: 'events.0' },
    { name: 'a secret without whsec_', body: { url: 'https://example.com/hook', events: ['run.finished'], secret: 'hunter2hunter2hunter2hunter2' }, field: 'secret' },
    { name: 'an unknown format', body: { url: 'https://example.com/hook', events: ['run.finished'], format: 'teams' }, field: 'format' },
    { name: 'an unknown field', body: { url: 'https://example.com/hook', events: ['run.finished'], suite_id: 'x' }, field: '' },
  ])('refuses $name with a validation error on its field (the secret never echoed)', async ({ body, field }) => {
    const { auth } = await stack.newTenant();
    const response = await post<any>(stack.app, '/v1/webhooks', auth, body);
    expect(response.status).toBe(400);
    expect(response.body.error.code).toBe('validation_error');
    if (field) expect(response.body.error.details.map((d: any) => d.field)).toContain(field);
    expect(JSON.stringify(response.body)).not.toContain('hunter2');
  });

  it('needs webhooks:write to change and webhooks:read to read', async () => {
    const owner = await stack.newTenant();
    const hook = await createWebhook(owner.auth, { url: `${receiver.base}/scopes`, events: ['run.finished'] });
    const reader = await stack.newTenant(SCOPES.filter((s) => s !== 'webhooks:write' && s !== 'tenants:admin'));
    expect((await post(stack.app, '/v1/webhooks', reader.auth, { url: `${receiver.base}/x`, events: ['run.finished'] })).status).toBe(403);
    expect((await get(stack.app, '/v1/webhooks', reader.auth)).status).toBe(200);
    const writer = await stack.newTenant(SCOPES.filter((s) => s !== 'webhooks:read' && s !== 'tenants:admin'));
    expect((await get(stack.app, '/v1/webhooks', writer.auth)).status).toBe(403);
    expect((await get(stack.app, `/v1/webhooks/${hook.id}/deliveries`, writer.auth)).status).toBe(403);
  });

  it('delivers a signed run.finished after two failed attempts (3 attempts logged, same webhook-id), and a Slack message', async () => {
    const { auth } = await stack.newTenant();
    const setup = await smallSuite(auth);
    const standard = await createWebhook(auth, { url: `${receiver.base}/flaky`, events: ['run.finished'] });
    const slack = await createWebhook(auth, { url: `${receiver.base}/slack`, events: ['run.finished'], format: 'slack' });
    receiver.setSecret('/flaky', standard.secret);
    receiver.setSecret('/slack', slack.secret);
    receiver.setAnswer((path, count) => (path === '/flaky' && count <= 2 ? 500 : 200));
    const countsBefore = await deliveryCounts();

    const runId = await runSuite(auth, setup.suiteId, 'pass');
    const [delivery] = await until(
      'the flaky delivery',
      () => deliveriesOf(auth, standard.id),
      (rows) => rows.length === 1 && rows[0].status !== 'pending',
    );
    expect(delivery).toMatchObject({ event: 'run.finished', run_id: runId, status: 'delivered', attempts: 3, last_response_code: 200, last_error_kind: null });
    expect(delivery.last_latency_ms).toBeGreaterThanOrEqual(0);
    expect(delivery.attempt_log.map((a: any) => [a.attempt, a.outcome, a.response_code, a.error_kind])).toEqual([
      [1, 'failed', 500, 'http_status'],
      [2, 'failed', 500, 'http_status'],
      [3, 'delivered', 200, null],
    ]);
    expect(JSON.stringify(delivery)).not.toContain(standard.secret);
    const counts = await deliveryCounts();
    expect((counts.retried ?? 0) - (countsBefore.retried ?? 0)).toBe(2);
    expect((counts.delivered ?? 0) - (countsBefore.delivered ?? 0)).toBeGreaterThanOrEqual(1);

    const attempts = receiver.of('/flaky');
    expect(attempts.map((a) => a.answered)).toEqual([500, 500, 200]);
    // Every attempt passes the reference implementation's check, with one webhook-id throughout.
    for (const attempt of attempts) expect(attempt.verified).not.toBeNull();
    expect(new Set(attempts.map((a) => a.headers['webhook-id']))).toEqual(new Set([delivery.id]));
    expect(new Set(attempts.map((a) => a.body)).size).toBe(1);
    const payload = JSON.parse(attempts[2]!.body);
    expect(payload).toMatchObject({
      type: 'run.finished',
      data: { run_id: runId, suite: { id: setup.suiteId, name: 'suite under test' }, status: 'success', verdict: 'pass', exit_code: 0 },
    });
    expect(payload.data.dashboard_url).toMatch(new RegExp(`^http://rvs\\.test/dashboard/runs/${runId}\\?token=`));
    // The dashboard link in the payload opens the run's page.
    const page = await stack.app.inject({ method: 'GET', url: payload.data.dashboard_url.replace('http://rvs.test', '') });
    expect(page.statusCode).toBe(200);

    const [slackAttempt] = await until('the slack delivery', async () => receiver.of('/slack'), (rows) => rows.length === 1);
    expect(slackAttempt!.verified).not.toBeNull();
    const message = JSON.parse(slackAttempt!.body);
    expect(Object.keys(message).sort()).toEqual(['blocks', 'text']);
    expect(message.text).toContain('suite under test: verdict pass (the run completed)');
    expect(message.blocks.map((b: any) => b.type)).toEqual(['header', 'section', 'section', 'actions']);
    expect(message.blocks[3].elements[0].url).toBe(payload.data.dashboard_url);
    expect(message.blocks[2].text.text).toContain('```');

    // Temporal holds only the delivery id: no URL, secret or body in the delivery workflow's history.
    const history = JSON.stringify(await stack.client.workflow.getHandle(workflowIdForWebhookDelivery(delivery.id)).fetchHistory());
    for (const secretThing of [standard.secret, standard.secret.slice(6), '/flaky', receiver.base, 'suite under test']) {
      expect(history).not.toContain(secretThing);
      expect(history).not.toContain(Buffer.from(secretThing).toString('base64'));
    }
  });

  it('fires verdict.changed once per flip and holds verdict.failed back while the streak is acknowledged', async () => {
    const { auth } = await stack.newTenant();
    const setup = await smallSuite(auth);
    const hook = await createWebhook(auth, { url: `${receiver.base}/flips`, events: ['verdict.changed', 'verdict.failed'] });
    receiver.setSecret('/flips', hook.secret);
    receiver.setAnswer(() => 200);

    /** [run id, event] of every delivery, oldest run first, a run's events in name order. */
    const eventsOf = async (expected: number) => {
      const rows = await until('deliveries', () => deliveriesOf(auth, hook.id), (r) => r.length >= expected && r.every((d) => d.status === 'delivered'));
      expect(rows).toHaveLength(expected);
      rows.sort((a, b) => a.created_at.localeCompare(b.created_at) || a.event.localeCompare(b.event));
      return rows.map((d) => [d.run_id, d.event]);
    };

    const r1 = await runSuite(auth, setup.suiteId, 'pass');
    const r2 = await runSuite(auth, setup.suiteId, 'fail');
    const r3 = await runSuite(auth, setup.suiteId, 'fail');
    const r4 = await runSuite(auth, setup.suiteId, 'pass');
    const afterFour = await eventsOf(4);
    // pass → fail → fail → pass: two flips; each failure notified.
    expect(afterFour).toEqual([
      [r2, 'verdict.changed'],
      [r2, 'verdict.failed'],
      [r3, 'verdict.failed'],
      [r4, 'verdict.changed'],
    ]);
    expect(afterFour.some(([run]) => run === r1)).toBe(false);

    const r5 = await runSuite(auth, setup.suiteId, 'fail');
    await eventsOf(6);
    const ack = await post<any>(stack.app, `/v1/runs/${r5}/acknowledgements`, auth, { note: 'looking into it' });
    expect(ack.status).toBe(201);
    // The acknowledged streak: no verdict.failed for r6 (and no flip).
    const r6 = await runSuite(auth, setup.suiteId, 'fail');
    // The suite passes again, then fails: verdict.failed is sent again.
    const r7 = await runSuite(auth, setup.suiteId, 'pass');
    const r8 = await runSuite(auth, setup.suiteId, 'fail');
    const all = await eventsOf(9);
    expect(all.slice(4)).toEqual([
      [r5, 'verdict.changed'],
      [r5, 'verdict.failed'],
      [r7, 'verdict.changed'],
      [r8, 'verdict.changed'],
      [r8, 'verdict.failed'],
    ]);
    expect(all.some(([run]) => run === r6)).toBe(false);
    for (const attempt of receiver.of('/flips')) expect(attempt.verified).not.toBeNull();
  }, 180_000);

  it('a delivery failing while the worker stops is delivered by the next worker (nothing lost on a restart)', async () => {
    const { auth } = await stack.newTenant();
    const setup = await smallSuite(auth);
    const hook = await createWebhook(auth, { url: `${receiver.base}/restart`, events: ['run.finished'] });
    receiver.setSecret('/restart', hook.secret);
    let receiverUp = false;
    receiver.setAnswer((path) => (path !== '/restart' || receiverUp ? 200 : 503));
    const runId = await runSuite(auth, setup.suiteId, 'pass');
    await until('a failed attempt', async () => receiver.of('/restart').length, (n) => n >= 1);

    worker.shutdown();
    await workerRun;
    const attemptsWhileDown = receiver.of('/restart').length;
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    // No worker, no attempt: the retries wait in Temporal.
    expect(receiver.of('/restart').length).toBe(attemptsWhileDown);
    receiverUp = true;
    await startWorker();

    const [delivery] = await until('delivery after the restart', () => deliveriesOf(auth, hook.id), (r) => r.length === 1 && r[0].status === 'delivered');
    expect(delivery).toMatchObject({ run_id: runId, status: 'delivered', last_response_code: 200 });
    const attempts = receiver.of('/restart');
    expect(attempts.at(-1)!.answered).toBe(200);
    expect(attempts.length).toBeGreaterThanOrEqual(2);
    expect(delivery.attempts).toBe(attempts.length);
    expect(new Set(attempts.map((a) => a.headers['webhook-id']))).toEqual(new Set([delivery.id]));
    for (const attempt of attempts) expect(attempt.verified).not.toBeNull();
  });

  it('refuses a loopback target unless private webhooks are allowed — private probe targets do not open them — and a link-local one always (failed for good after one attempt)', async () => {
    const { auth, tenantId } = await stack.newTenant();
    const setup = await smallSuite(auth);
    const hook = await createWebhook(auth, { url: `${receiver.base}/guarded`, events: ['run.finished'] });
    const runId = await runSuite(auth, setup.suiteId, 'pass');
    // The worker allows loopback webhooks (tests); wait for its delivery, then send the same
    // delivery again as a worker that allows private probe targets but not private webhooks would.
    // Before RVS_ALLOW_PRIVATE_WEBHOOKS, RVS_ALLOW_PRIVATE_TARGETS opened both.
    const [first] = await until('delivery', () => deliveriesOf(auth, hook.id), (r) => r.length === 1 && r[0].status !== 'pending');
    await stack.sql`update webhook_deliveries set status = 'pending' where id = ${first.id}`;
    const before = receiver.of('/guarded').length;
    const env = new MockActivityEnvironment({ attempt: 4 });
    const probesOnly = createActivities({ sql: stack.sql, box: stack.box, allowPrivateTargets: true });
    await expect(env.run(() => probesOnly.deliverWebhook({ deliveryId: first.id }))).rejects.toMatchObject({
      type: 'OutboundAddressRefused',
      nonRetryable: true,
      message: 'the delivery failed: address_refused',
    });
    expect(receiver.of('/guarded').length).toBe(before);
    const [row] = await stack.sql<any[]>`
      select d.tenant_id, d.run_id, a.error_kind, a.response_code from webhook_deliveries d
      join webhook_delivery_attempts a on a.delivery_id = d.id and a.attempt = 4 where d.id = ${first.id}`;
    expect(row).toEqual({ tenant_id: tenantId, run_id: runId, error_kind: 'address_refused', response_code: null });

    // A link-local target is refused even where loopback is allowed (a stored URL from before the
    // check, or a name resolving there): the delivery workflow gives up after one attempt.
    const metadata = await createWebhook(auth, { url: 'https://example.com/hook', events: ['run.finished'] });
    await stack.sql`update webhooks set url_encrypted = ${stack.box.encrypt('http://169.254.169.254/latest/meta-data')} where id = ${metadata.id}`;
    await runSuite(auth, setup.suiteId, 'pass');
    const [refused] = await until('refused delivery', () => deliveriesOf(auth, metadata.id), (r) => r.length === 1 && r[0].status !== 'pending');
    expect(refused).toMatchObject({ status: 'failed', attempts: 1, last_error_kind: 'address_refused', last_response_code: null });
    expect(refused.finished_at).not.toBeNull();
  });
});

describe('acknowledgements', () => {
  let stack: Stack;
  let node: FakeNode;
  beforeAll(async () => {
    stack = await startStack();
    node = await startFakeNode(answers.delay(3));
  });
  afterAll(async () => {
    await node?.close();
    await stack?.close();
  });

  it('records who acknowledged a failed run, counts them on the run, and is tenant-scoped', async () => {
    const { auth } = await stack.newTenant();
    const setup = await createSuite(stack.app, auth, {
      candidates: [node.url],
      config: { baseline: { mode: 'none' }, workload: { requests_per_target: 20, concurrency: 2, warmup_requests: 1, timeout_ms: 2_000 } },
    });
    const trigger = async (p95: number) => {
      const created = await post<{ id: string }>(stack.app, `/v1/suites/${setup.suiteId}/runs`, auth, { thresholds: { latency_p95_max_ms: p95 } });
      return (await waitForRun(stack.app, auth, created.body.id)).id as string;
    };
    const failed = await trigger(1);
    const passed = await trigger(10_000);
    expect((await get<any>(stack.app, `/v1/runs/${failed}`, auth)).body.acknowledged_count).toBe(0);

    const first = await post<any>(stack.app, `/v1/runs/${failed}/acknowledgements`, auth, { note: '  p95 regression known: node upgrade  ' });
    expect(first.status).toBe(201);
    const me = await get<any>(stack.app, '/v1/users/me', auth);
    expect(first.body).toMatchObject({ run_id: failed, note: 'p95 regression known: node upgrade', acknowledged_by: { kind: 'api_key', id: me.body.id, name: 'test' } });
    expect(Date.parse(first.body.created_at)).toBeGreaterThan(Date.now() - 60_000);
    expect(first.headers.location).toBe(`/v1/runs/${failed}/acknowledgements/${first.body.id}`);
    expect((await get<any>(stack.app, first.headers.location as string, auth)).body).toEqual(first.body);
    expect((await get(stack.app, `/v1/runs/${passed}/acknowledgements/${first.body.id}`, auth)).status).toBe(404);
    await post(stack.app, `/v1/runs/${failed}/acknowledgements`, auth, { note: 'second look' });

    const run = await get<any>(stack.app, `/v1/runs/${failed}`, auth);
    expect(run.body.acknowledged_count).toBe(2);
    const list = await get<any>(stack.app, `/v1/runs/${failed}/acknowledgements`, auth);
    expect(list.body.pagination).toEqual({ total: 2, limit: 50, offset: 0, has_more: false });
    expect(list.body.data.map((a: any) => a.note)).toEqual(['second look', 'p95 regression known: node upgrade']);

    // A run that passed has nothing to acknowledge; a note is 1 to 1,000 characters.
    expect((await post<any>(stack.app, `/v1/runs/${passed}/acknowledgements`, auth, { note: 'x' })).body.error.code).toBe('conflict');
    const long = await post<any>(stack.app, `/v1/runs/${failed}/acknowledgements`, auth, { note: 'x'.repeat(1001) });
    expect(long.status).toBe(400);
    expect(long.body.error.details[0].field).toBe('note');
    expect((await post<any>(stack.app, `/v1/runs/${failed}/acknowledgements`, auth, { note: '   ' })).status).toBe(400);
    expect((await post<any>(stack.app, `/v1/runs/${failed}/acknowledgements`, auth, {})).status).toBe(400);

    // Another tenant can neither acknowledge nor read, and its attempt counts nothing; unknown run 404.
    const other = await stack.newTenant();
    expect((await post(stack.app, `/v1/runs/${failed}/acknowledgements`, other.auth, { note: 'not mine' })).status).toBe(403);
    expect((await get(stack.app, `/v1/runs/${failed}/acknowledgements`, other.auth)).status).toBe(403);
    expect((await get<any>(stack.app, `/v1/runs/${failed}`, auth)).body.acknowledged_count).toBe(2);
    expect((await post(stack.app, '/v1/runs/00000000-0000-4000-8000-000000000000/acknowledgements', auth, { note: 'x' })).status).toBe(404);

    // runs:write acknowledges, runs:read reads.
    const readerKey = await post<any>(stack.app, '/v1/api-keys', auth, { name: 'reader', scopes: ['runs:read'] });
    expect(readerKey.status).toBe(201);
    const reader = { authorization: `Bearer ${readerKey.body.key}` };
    expect((await post(stack.app, `/v1/runs/${failed}/acknowledgements`, reader, { note: 'x' })).status).toBe(403);
    expect((await get(stack.app, `/v1/runs/${failed}/acknowledgements`, reader)).status).toBe(200);
  });
});
