import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { MockActivityEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deliverWebhook } from '../../activities/deliver-webhook';
import { generateApiKey } from '../../src/auth/api-key';
import { findDeliveryToSend, findSubscribedWebhooks, recordDeliveries } from '../../src/db/webhooks';
import { scheduleFires } from '../../src/metrics/registry';
import { bootstrapDefaultTenant } from '../../src/services/bootstrap';
import { fireSchedule } from '../../src/services/schedules';
import { createSuite, get, post, waitForRun } from '../helpers/api';
import { answers, startFakeNode, type FakeNode } from '../helpers/json-rpc-node';
import { startStack, type Stack } from '../helpers/stack';

type Auth = { authorization: string };

/** A loopback webhook receiver that answers 200 and counts what it got. */
async function startReceiver() {
  let requests = 0;
  const server: Server = createServer((req, res) => {
    requests++;
    req.resume();
    req.on('end', () => res.writeHead(200).end('ok'));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    requests: () => requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** rvs_schedule_fires_total{outcome} as this process counted them. */
async function fireCounts(): Promise<Record<string, number>> {
  const { values } = await scheduleFires.get();
  return Object.fromEntries(values.map((v) => [String(v.labels.outcome), v.value]));
}

/**
 * What a tenant may do to the service beyond its own API calls: a disabled tenant's schedules do
 * not fire and its webhooks do not deliver; a tenant's webhooks and a run's acknowledgements are
 * capped (409 `conflict` past the cap, also under concurrent requests); concurrent fires of one
 * schedule start one run.
 */
describe('tenant boundaries of continuous verification', () => {
  let stack: Stack;
  let node: FakeNode;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let platform: Auth;

  const deps = () => ({ config: stack.config, sql: stack.sql, box: stack.box, temporal: stack.client, jwt: null });
  const setDisabled = async (tenantId: string, disabled: boolean) => {
    const response = await stack.app.inject({ method: 'PATCH', url: `/v1/tenants/${tenantId}`, headers: platform, payload: { disabled } });
    expect(response.statusCode, response.body).toBe(200);
  };
  const scheduledSuite = async (auth: Auth) => {
    const { suiteId } = await createSuite(stack.app, auth, {
      candidates: [node.url],
      config: { baseline: { mode: 'none' }, workload: { requests_per_target: 5, concurrency: 1, warmup_requests: 0, timeout_ms: 2_000 } },
    });
    const set = await stack.app.inject({ method: 'PATCH', url: `/v1/suites/${suiteId}`, headers: auth, payload: { schedule: { interval_s: 3600 } } });
    expect(set.statusCode, set.body).toBe(200);
    return suiteId;
  };
  const scheduledRuns = (suiteId: string) =>
    stack.sql<{ id: string }[]>`select id from runs where test_suite_id = ${suiteId} and triggered_by = 'schedule'`;

  beforeAll(async () => {
    stack = await startStack({ env: { RVS_ALLOW_PRIVATE_WEBHOOKS: 'true' } });
    node = await startFakeNode(answers.delay(3));
    receiver = await startReceiver();
    const bootstrap = generateApiKey().key;
    await bootstrapDefaultTenant(stack.sql, bootstrap);
    platform = { authorization: `Bearer ${bootstrap}` };
  });
  afterAll(async () => {
    await receiver?.close();
    await node?.close();
    await stack?.close();
  });

  it('disabling a tenant cancels its queued and running runs (as POST /runs/:id/cancel does) and says how many', async () => {
    const tenant = await stack.newTenant();
    const other = await stack.newTenant();
    const long = { baseline: { mode: 'none' }, workload: { requests_per_target: 200_000, concurrency: 1, warmup_requests: 0, timeout_ms: 2_000 } };
    const { suiteId } = await createSuite(stack.app, tenant.auth, { candidates: [node.url], config: long });
    const { suiteId: otherSuite } = await createSuite(stack.app, other.auth, { candidates: [node.url], config: long });
    const running = await post<{ id: string }>(stack.app, `/v1/suites/${suiteId}/runs`, tenant.auth);
    const queued = await post<{ id: string }>(stack.app, `/v1/suites/${suiteId}/runs`, tenant.auth);
    const untouched = await post<{ id: string }>(stack.app, `/v1/suites/${otherSuite}/runs`, other.auth);
    const statusOf = async (id: string) => (await stack.sql<{ status: string; failure_reason: string | null }[]>`select status, failure_reason from runs where id = ${id}`)[0]!;
    const deadline = Date.now() + 30_000;
    while ((await statusOf(running.body.id)).status !== 'running') {
      if (Date.now() > deadline) throw new Error('the run never started probing');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }

    const response = await stack.app.inject({ method: 'PATCH', url: `/v1/tenants/${tenant.tenantId}`, headers: platform, payload: { disabled: true } });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toMatchObject({ id: tenant.tenantId, disabled: true, cancelled_runs: 2 });
    for (const id of [running.body.id, queued.body.id]) {
      const end = Date.now() + 30_000;
      while (!['success', 'failed', 'cancelled'].includes((await statusOf(id)).status)) {
        if (Date.now() > end) throw new Error(`run ${id} still ${(await statusOf(id)).status}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(await statusOf(id)).toEqual({ status: 'cancelled', failure_reason: 'cancelled by request' });
    }
    // Another tenant's run goes on; disabling again finds nothing left to cancel.
    expect((await statusOf(untouched.body.id)).status).not.toBe('cancelled');
    const again = await stack.app.inject({ method: 'PATCH', url: `/v1/tenants/${tenant.tenantId}`, headers: platform, payload: { disabled: true } });
    expect(again.json()).toMatchObject({ disabled: true, cancelled_runs: 0 });
    const renamed = await stack.app.inject({ method: 'PATCH', url: `/v1/tenants/${other.tenantId}`, headers: platform, payload: { name: 'renamed' } });
    expect(renamed.json()).toMatchObject({ cancelled_runs: 0 });
    expect((await post(stack.app, `/v1/runs/${untouched.body.id}/cancel`, other.auth)).status).toBe(202);
  });

  it('a disabled tenant\'s schedule fire is skipped (counted as skipped) and starts no run; re-enabled, it fires again', async () => {
    const tenant = await stack.newTenant();
    const suiteId = await scheduledSuite(tenant.auth);
    await setDisabled(tenant.tenantId, true);
    const before = await fireCounts();
    expect(await fireSchedule(deps(), { suiteId, fireId: `test-fire-${randomUUID()}` })).toEqual({ outcome: 'skipped', reason: 'the tenant is disabled' });
    expect((await fireCounts()).skipped).toBe((before.skipped ?? 0) + 1);
    expect(await scheduledRuns(suiteId)).toHaveLength(0);

    await setDisabled(tenant.tenantId, false);
    const started = await fireSchedule(deps(), { suiteId, fireId: `test-fire-${randomUUID()}` });
    expect(started.outcome).toBe('started');
    if (started.outcome === 'started') await waitForRun(stack.app, tenant.auth, started.runId);
  });

  it('concurrent fires of one schedule start exactly one run', async () => {
    const tenant = await stack.newTenant();
    const suiteId = await scheduledSuite(tenant.auth);
    const outcomes = await Promise.all(Array.from({ length: 4 }, () => fireSchedule(deps(), { suiteId, fireId: `test-fire-${randomUUID()}` })));
    const started = outcomes.filter((o) => o.outcome === 'started');
    expect(started, JSON.stringify(outcomes)).toHaveLength(1);
    expect(await scheduledRuns(suiteId)).toHaveLength(1);
    for (const outcome of outcomes) {
      if (outcome.outcome === 'skipped') expect(outcome.reason).toMatch(/another fire of this schedule is in progress|previous scheduled run .* has not finished/);
    }
    if (started[0]?.outcome === 'started') await waitForRun(stack.app, tenant.auth, started[0].runId);
  });

  it('a disabled tenant\'s webhooks are not subscribed and its pending delivery is gone (nothing sent); re-enabled, both are back', async () => {
    const tenant = await stack.newTenant();
    const { suiteId } = await createSuite(stack.app, tenant.auth, {
      candidates: [node.url],
      config: { baseline: { mode: 'none' }, workload: { requests_per_target: 5, concurrency: 1, warmup_requests: 0, timeout_ms: 2_000 } },
    });
    // The run finishes before the webhook exists, so the worker records no delivery of its own.
    const created = await post<{ id: string }>(stack.app, `/v1/suites/${suiteId}/runs`, tenant.auth);
    const run = await waitForRun(stack.app, tenant.auth, created.body.id);
    const hook = await post<{ id: string }>(stack.app, '/v1/webhooks', tenant.auth, { url: receiver.url, events: ['run.finished'] });
    expect(hook.status).toBe(201);
    const [delivery] = await recordDeliveries(stack.sql, run.id, [
      { webhookId: hook.body.id, tenantId: tenant.tenantId, runId: run.id, event: 'run.finished', payload: '{}' },
    ]);
    expect((await findSubscribedWebhooks(stack.sql, tenant.tenantId, ['run.finished'])).map((w) => w.id)).toEqual([hook.body.id]);
    expect(await findDeliveryToSend(stack.sql, delivery!.id)).toMatchObject({ id: delivery!.id, status: 'pending' });

    await setDisabled(tenant.tenantId, true);
    expect(await findSubscribedWebhooks(stack.sql, tenant.tenantId, ['run.finished'])).toEqual([]);
    expect(await findDeliveryToSend(stack.sql, delivery!.id)).toBeUndefined();
    const sent = receiver.requests();
    const env = new MockActivityEnvironment({ attempt: 1 });
    expect(await env.run(() => deliverWebhook({ sql: stack.sql, box: stack.box, allowPrivateWebhooks: true }, { deliveryId: delivery!.id }))).toEqual({
      outcome: 'gone',
    });
    expect(receiver.requests()).toBe(sent);
    const [row] = await stack.sql<{ status: string; attempts: number }[]>`select status, attempts from webhook_deliveries where id = ${delivery!.id}`;
    expect(row).toEqual({ status: 'pending', attempts: 0 });

    await setDisabled(tenant.tenantId, false);
    expect(await findSubscribedWebhooks(stack.sql, tenant.tenantId, ['run.finished'])).toHaveLength(1);
    expect(await findDeliveryToSend(stack.sql, delivery!.id)).toMatchObject({ id: delivery!.id });
  });

  it('a tenant has at most 20 webhooks: of 25 concurrent creates 20 are 201 and 5 are 409 conflict; other tenants are unaffected', async () => {
    const tenant = await stack.newTenant();
    const responses = await Promise.all(
      Array.from({ length: 25 }, () => post<any>(stack.app, '/v1/webhooks', tenant.auth, { url: receiver.url, events: ['run.failed'] })),
    );
    expect(responses.filter((a) => a.status === 201)).toHaveLength(20);
    const refused = responses.filter((a) => a.status !== 201);
    expect(refused).toHaveLength(5);
    for (const answer of refused) {
      expect(answer.status).toBe(409);
      expect(answer.body).toEqual({
        error: { code: 'conflict', message: expect.stringContaining('at most 20 webhooks'), details: [], request_id: expect.any(String) },
      });
      expect(JSON.stringify(answer.body)).not.toContain(receiver.url);
    }
    expect((await get<any>(stack.app, '/v1/webhooks', tenant.auth)).body.pagination.total).toBe(20);

    // Deleting one makes room for one.
    const first = responses.find((a) => a.status === 201)!;
    expect((await stack.app.inject({ method: 'DELETE', url: `/v1/webhooks/${first.body.id}`, headers: tenant.auth })).statusCode).toBe(204);
    expect((await post(stack.app, '/v1/webhooks', tenant.auth, { url: receiver.url, events: ['run.failed'] })).status).toBe(201);
    expect((await post(stack.app, '/v1/webhooks', tenant.auth, { url: receiver.url, events: ['run.failed'] })).status).toBe(409);

    const other = await stack.newTenant();
    expect((await post(stack.app, '/v1/webhooks', other.auth, { url: receiver.url, events: ['run.failed'] })).status).toBe(201);

    const openapi = await stack.app.inject({ method: 'GET', url: '/v1/openapi.json' });
    const create = openapi.json<any>().paths['/v1/webhooks'].post;
    expect(create.responses['409'].description).toContain('20 webhooks');
  });

  it('a run has at most 100 acknowledgements: of 105 concurrent ones 100 are 201 and 5 are 409 conflict', async () => {
    const tenant = await stack.newTenant();
    const { suiteId } = await createSuite(stack.app, tenant.auth, {
      candidates: [node.url],
      config: { baseline: { mode: 'none' }, workload: { requests_per_target: 10, concurrency: 1, warmup_requests: 0, timeout_ms: 2_000 } },
    });
    // The node answers in ~3 ms: a p95 limit of 1 ms fails the verdict.
    const created = await post<{ id: string }>(stack.app, `/v1/suites/${suiteId}/runs`, tenant.auth, { thresholds: { latency_p95_max_ms: 1 } });
    const run = await waitForRun(stack.app, tenant.auth, created.body.id);
    expect((await get<any>(stack.app, `/v1/runs/${run.id}/verdict`, tenant.auth)).body.verdict).toBe('fail');

    const responses = await Promise.all(
      Array.from({ length: 105 }, (_, i) => post<any>(stack.app, `/v1/runs/${run.id}/acknowledgements`, tenant.auth, { note: `look ${i}` })),
    );
    expect(responses.filter((a) => a.status === 201)).toHaveLength(100);
    const refused = responses.filter((a) => a.status !== 201);
    expect(refused).toHaveLength(5);
    for (const answer of refused) {
      expect(answer.status).toBe(409);
      expect(answer.body.error).toMatchObject({ code: 'conflict', message: expect.stringContaining('at most 100 acknowledgements'), details: [] });
    }
    expect((await get<any>(stack.app, `/v1/runs/${run.id}`, tenant.auth)).body.acknowledged_count).toBe(100);
    expect((await get<any>(stack.app, `/v1/runs/${run.id}/acknowledgements`, tenant.auth)).body.pagination.total).toBe(100);
  });
});
