import { randomUUID } from 'node:crypto';
import { Client, Connection, ScheduleNotFoundError } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateApiKey, hashApiKeySecret } from '../../src/auth/api-key';
import { insertApiKey } from '../../src/db/api-keys';
import { AppError } from '../../src/errors';
import { scheduleActor } from '../../src/services/context';
import { createRunRow, triggerRunInput } from '../../src/services/runs/trigger';
import { fireSchedule } from '../../src/services/schedules';
import { createSuite as createSuiteVerb } from '../../src/services/suites';
import { scheduleIdForSuite } from '../../src/temporal/constants';
import { scheduledTriggerWorkflow } from '../../workflows/scheduled-trigger';
import { createSuite, get, post, waitForRun } from '../helpers/api';
import { freePort } from '../helpers/free-port';
import { answers, startFakeNode, type FakeNode } from '../helpers/json-rpc-node';
import { startStack, type Stack } from '../helpers/stack';
import { until } from '../helpers/worker-process';

type Auth = { authorization: string };
interface ScheduleBody {
  cron?: string;
  timezone?: string;
  interval_s?: number;
  paused: boolean;
  next_fire_times: string[] | null;
}

async function patch<T = Record<string, unknown>>(stack: Stack, url: string, auth: Auth, payload: unknown) {
  const response = await stack.app.inject({ method: 'PATCH', url, headers: auth, payload: payload as object });
  return { status: response.statusCode, body: response.json<T>() };
}

async function runsOf(stack: Stack, suiteId: string): Promise<{ id: string; triggered_by: string; requested_at: Date }[]> {
  return stack.sql<{ id: string; triggered_by: string; requested_at: Date }[]>`
    select id, triggered_by, requested_at from runs where test_suite_id = ${suiteId} order by requested_at`;
}

describe('suite schedules on the Temporal dev server', () => {
  let stack: Stack;
  let node: FakeNode;
  let auth: Auth;

  beforeAll(async () => {
    // Intervals of a few seconds, so a fire is seen within a test.
    stack = await startStack({ env: { RVS_SCHEDULE_MIN_INTERVAL_S: '1' } });
    node = await startFakeNode(answers.ok('0x10'));
    ({ auth } = await stack.newTenant());
  });
  afterAll(async () => {
    await node?.close();
    await stack?.close();
  });

  it('an interval schedule fires runs with triggered_by "schedule"; pause stops it and resume restarts it', async () => {
    const { suiteId } = await createSuite(stack.app, auth, { candidates: [node.url], config: { workload: { requests_per_target: 5, concurrency: 1, warmup_requests: 0 } } });
    const set = await patch<{ name: string; schedule: ScheduleBody }>(stack, `/v1/suites/${suiteId}`, auth, { schedule: { interval_s: 2 } });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    expect(set.body.schedule).toMatchObject({ interval_s: 2, paused: false });
    const times = set.body.schedule.next_fire_times!.map((t) => Date.parse(t));
    expect(times).toHaveLength(3);
    expect(times[1]! - times[0]!).toBe(2_000);
    expect(times[2]! - times[1]!).toBe(2_000);

    // One Temporal Schedule per suite, named after it, overlap skip, the suite name in its note and memo.
    const description = await stack.client.schedule.getHandle(scheduleIdForSuite(suiteId)).describe();
    expect(description.policies.overlap).toBe('SKIP');
    expect(description.state.note).toContain(`suite "${set.body.name}"`);
    expect(description.memo).toMatchObject({ suite_name: set.body.name });

    await until(async () => (await runsOf(stack, suiteId)).length > 0, 45_000, 'a scheduled run');
    const [first] = await runsOf(stack, suiteId);
    expect(first!.triggered_by).toBe('schedule');
    const run = await waitForRun(stack.app, auth, first!.id);
    expect(run).toMatchObject({ status: 'success', triggered_by: 'schedule' });

    const paused = await post<ScheduleBody>(stack.app, `/v1/suites/${suiteId}/schedule/pause`, auth);
    expect(paused.status).toBe(200);
    expect(paused.body).toMatchObject({ interval_s: 2, paused: true, next_fire_times: [] });
    expect((await stack.client.schedule.getHandle(scheduleIdForSuite(suiteId)).describe()).state.paused).toBe(true);
    // A fire already on its way when the pause landed may still make its run; then nothing more.
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    const before = (await runsOf(stack, suiteId)).length;
    await new Promise((resolve) => setTimeout(resolve, 7_000));
    expect((await runsOf(stack, suiteId)).length).toBe(before);

    const resumed = await post<ScheduleBody>(stack.app, `/v1/suites/${suiteId}/schedule/resume`, auth);
    expect(resumed.status).toBe(200);
    expect(resumed.body.paused).toBe(false);
    expect(resumed.body.next_fire_times).toHaveLength(3);
    await until(async () => (await runsOf(stack, suiteId)).length > before, 45_000, 'a run after resume');

    // Removing the schedule (null) deletes the Temporal Schedule too.
    await post(stack.app, `/v1/suites/${suiteId}/schedule/pause`, auth);
    const removed = await patch<{ schedule: null }>(stack, `/v1/suites/${suiteId}`, auth, { schedule: null });
    expect(removed.status).toBe(200);
    expect(removed.body.schedule).toBeNull();
    await expect(stack.client.schedule.getHandle(scheduleIdForSuite(suiteId)).describe()).rejects.toBeInstanceOf(ScheduleNotFoundError);
  });

  it('a cron schedule in a time zone lists its next three fire times; trigger fires it now through the same path', async () => {
    const { suiteId } = await createSuite(stack.app, auth, { candidates: [node.url], config: { workload: { requests_per_target: 5, concurrency: 1, warmup_requests: 0 } } });
    const set = await patch<{ schedule: ScheduleBody }>(stack, `/v1/suites/${suiteId}`, auth, { schedule: { cron: '30 6 * * *', timezone: 'Asia/Kolkata' } });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    expect(set.body.schedule).toMatchObject({ cron: '30 6 * * *', timezone: 'Asia/Kolkata', paused: false });
    // 06:30 in Kolkata (UTC+05:30) is 01:00 UTC, one day apart.
    const times = set.body.schedule.next_fire_times!.map((t) => new Date(t));
    expect(times).toHaveLength(3);
    for (const t of times) expect([t.getUTCHours(), t.getUTCMinutes()]).toEqual([1, 0]);
    expect(times[1]!.getTime() - times[0]!.getTime()).toBe(24 * 3600_000);

    const read = await get<{ schedule: ScheduleBody }>(stack.app, `/v1/suites/${suiteId}`, auth);
    expect(read.body.schedule.next_fire_times).toEqual(set.body.schedule.next_fire_times);
    const listed = await get<{ data: { id: string; schedule: ScheduleBody | null }[] }>(stack.app, '/v1/suites?limit=100', auth);
    expect(listed.body.data.find((s) => s.id === suiteId)?.schedule?.cron).toBe('30 6 * * *');

    const triggered = await post(stack.app, `/v1/suites/${suiteId}/schedule/trigger`, auth);
    expect(triggered.status).toBe(202);
    expect(triggered.body).toEqual({ triggered: true });
    await until(async () => (await runsOf(stack, suiteId)).length > 0, 45_000, 'the triggered run');
    expect((await runsOf(stack, suiteId))[0]!.triggered_by).toBe('schedule');
  });

  it('deleting a suite deletes its Temporal Schedule', async () => {
    const { chainId, endpointIds } = await createSuite(stack.app, auth, { candidates: [node.url] });
    const created = await post<{ id: string; schedule: ScheduleBody }>(stack.app, '/v1/suites', auth, {
      chain_id: chainId,
      name: 'hourly',
      config: { targets: [{ endpoint_id: endpointIds[0] }] },
      schedule: { interval_s: 3600 },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.schedule).toMatchObject({ interval_s: 3600, paused: false });
    const handle = stack.client.schedule.getHandle(scheduleIdForSuite(created.body.id));
    expect((await handle.describe()).scheduleId).toBe(scheduleIdForSuite(created.body.id));

    const deleted = await stack.app.inject({ method: 'DELETE', url: `/v1/suites/${created.body.id}`, headers: auth });
    expect(deleted.statusCode).toBe(204);
    await expect(handle.describe()).rejects.toBeInstanceOf(ScheduleNotFoundError);
    expect(await stack.sql`select 1 from suite_schedules where suite_id = ${created.body.id}`).toHaveLength(0);
  });

  it('validates the schedule: shape, the smallest interval, cron and time zone', async () => {
    const { suiteId } = await createSuite(stack.app, auth, { candidates: [node.url] });
    for (const schedule of [
      { interval_s: 0 },
      { interval_s: 1.5 },
      { interval_s: 10, cron: '* * * * *' },
      { cron: 'every minute' },
      { cron: '* * * * *', timezone: 'Mars/Olympus' },
      { interval_s: 10, paused: 'yes' },
      {},
    ]) {
      const response = await patch<{ error: { code: string } }>(stack, `/v1/suites/${suiteId}`, auth, { schedule });
      expect(response.status, JSON.stringify(schedule)).toBe(400);
      expect(response.body.error.code).toBe('validation_error');
    }
    // The deployment's minimum (10 s unless lowered): this stack allows 1 s, a default one does not.
    const strict = { ...stack.config, scheduleMinIntervalS: 10 };
    const ctx = { principal: { kind: 'api_key' as const, id: 'x', name: 'x', email: null, tenantId: (await stack.sql<{ tenant_id: string }[]>`select tenant_id from suites where id = ${suiteId}`)[0]!.tenant_id, scopes: ['suites:write' as const, 'runs:write' as const] }, deps: { config: strict, sql: stack.sql, box: stack.box, temporal: stack.client, jwt: null } };
    const suite = (await stack.sql<{ chain_id: string; config: Record<string, unknown> }[]>`select chain_id, config from suites where id = ${suiteId}`)[0]!;
    await expect(
      createSuiteVerb({ ctx, input: { chain_id: suite.chain_id, name: 'too often', description: '', config: suite.config, schedule: { interval_s: 5, paused: false } } }),
    ).rejects.toMatchObject({ code: 'validation_error', details: [{ field: 'schedule.interval_s', message: 'must be at least 10' }] });
  });

  it('pause, resume and trigger: 409 without a schedule, 403 for another tenant\'s suite, 404 for none', async () => {
    const { suiteId } = await createSuite(stack.app, auth, { candidates: [node.url] });
    for (const action of ['pause', 'resume', 'trigger']) {
      expect((await post(stack.app, `/v1/suites/${suiteId}/schedule/${action}`, auth)).status).toBe(409);
    }
    await patch(stack, `/v1/suites/${suiteId}`, auth, { schedule: { interval_s: 3600, paused: true } });
    const other = await stack.newTenant();
    expect((await post(stack.app, `/v1/suites/${suiteId}/schedule/resume`, other.auth)).status).toBe(403);
    expect((await post(stack.app, '/v1/suites/00000000-0000-4000-8000-000000000000/schedule/pause', auth)).status).toBe(404);
    const readOnly = await stack.newTenant(['suites:read']);
    expect((await post(stack.app, `/v1/suites/${suiteId}/schedule/pause`, readOnly.auth)).status).toBe(403);
    await stack.app.inject({ method: 'PATCH', url: `/v1/suites/${suiteId}`, headers: auth, payload: { schedule: null } });
  });

  it('Temporal unreachable: 503 and the suite change is rolled back', async () => {
    const { suiteId } = await createSuite(stack.app, auth, { candidates: [node.url] });
    const tenantId = (await stack.sql<{ tenant_id: string }[]>`select tenant_id from suites where id = ${suiteId}`)[0]!.tenant_id;
    const suite = (await stack.sql<{ chain_id: string; config: Record<string, unknown> }[]>`select chain_id, config from suites where id = ${suiteId}`)[0]!;
    // A real client whose server is not there (a closed loopback port).
    const connection = Connection.lazy({ address: `127.0.0.1:${await freePort()}`, connectTimeout: 500 });
    const dead = new Client({ connection });
    const ctx = { principal: { kind: 'api_key' as const, id: 'x', name: 'x', email: null, tenantId, scopes: ['suites:write' as const, 'runs:write' as const] }, deps: { config: stack.config, sql: stack.sql, box: stack.box, temporal: dead, jwt: null } };
    const name = `unreachable-${Date.now()}`;
    const error = await createSuiteVerb({ ctx, input: { chain_id: suite.chain_id, name, description: '', config: suite.config, schedule: { interval_s: 60, paused: false } } }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AppError);
    expect(error).toMatchObject({ code: 'service_unavailable' });
    expect(await stack.sql`select 1 from suites where name = ${name}`).toHaveLength(0);
    await connection.close().catch(() => undefined);
  });

  it('schedule fires have a quota of their own: they never use up the tenant\'s trigger quota (CI keys), nor it theirs', async () => {
    const tenant = await stack.newTenant();
    const { suiteId } = await createSuite(stack.app, tenant.auth, { candidates: [node.url], config: { workload: { requests_per_target: 5, concurrency: 1, warmup_requests: 0 } } });
    await patch(stack, `/v1/suites/${suiteId}`, tenant.auth, { schedule: { interval_s: 3600, paused: false } });
    // The API trigger takes the tenant's only trigger of this minute.
    expect((await post(stack.app, `/v1/suites/${suiteId}/runs`, tenant.auth)).status).toBe(201);
    const deps = { config: stack.config, sql: stack.sql, box: stack.box, temporal: stack.client, jwt: null };
    const limits = (l: Partial<typeof stack.config.rateLimits>) => ({ ...deps, config: { ...stack.config, rateLimits: { ...stack.config.rateLimits, ...l } } });
    const fire = () => `test-fire-${randomUUID()}`;
    // A trigger quota used up by CI does not stop the schedule, and fires do not count in it.
    const started: string[] = [];
    for (let i = 0; i < 2; i++) {
      const outcome = await fireSchedule(limits({ tenantTriggersPerMinute: 1, tenantScheduleFiresPerMinute: 2 }), { suiteId, fireId: fire() });
      expect(outcome.outcome, JSON.stringify(outcome)).toBe('started');
      if (outcome.outcome === 'started') started.push(outcome.runId);
      await waitForRun(stack.app, tenant.auth, started.at(-1)!);
    }
    const [triggers] = await stack.sql<{ n: number }[]>`
      select coalesce(sum(count), 0)::int as n from rate_limit_windows where bucket = ${`triggers:tenant:${tenant.tenantId}`}`;
    expect(triggers!.n).toBe(1);
    // The schedule's own quota used up (as many fires this minute as it allows): the next fire is skipped.
    const [window] = await stack.sql<{ n: number }[]>`
      select coalesce(max(count), 0)::int as n from rate_limit_windows
      where bucket = ${`schedule-fires:tenant:${tenant.tenantId}`} and window_start = date_trunc('minute', now())`;
    expect(await fireSchedule(limits({ tenantScheduleFiresPerMinute: window!.n }), { suiteId, fireId: fire() })).toEqual({
      outcome: 'skipped',
      reason: 'rate limit exceeded for schedule fires of this tenant',
    });
    await stack.app.inject({ method: 'PATCH', url: `/v1/suites/${suiteId}`, headers: tenant.auth, payload: { schedule: null } });
  });

  it('a fire skips while the previous scheduled run is unfinished', async () => {
    const tenant = await stack.newTenant();
    const { suiteId } = await createSuite(stack.app, tenant.auth, { candidates: [node.url], config: { workload: { requests_per_target: 5, concurrency: 1, warmup_requests: 0 } } });
    await patch(stack, `/v1/suites/${suiteId}`, tenant.auth, { schedule: { interval_s: 3600, paused: false } });
    const deps = { config: stack.config, sql: stack.sql, box: stack.box, temporal: stack.client, jwt: null };
    const started = await fireSchedule(deps, { suiteId, fireId: `test-fire-${randomUUID()}` });
    expect(started.outcome).toBe('started');
    const again = await fireSchedule(deps, { suiteId, fireId: `test-fire-${randomUUID()}` });
    if (again.outcome === 'skipped') expect(again.reason).toMatch(/previous scheduled run .* has not finished/);
    const runs = await runsOf(stack, suiteId);
    expect(runs).toHaveLength(again.outcome === 'started' ? 2 : 1);
    await stack.app.inject({ method: 'PATCH', url: `/v1/suites/${suiteId}`, headers: tenant.auth, payload: { schedule: null } });
  });

  it('one fire starts one run: its activity retried after the first run finished (a worker lost before the activity completed) answers with that run', async () => {
    const tenant = await stack.newTenant();
    const { suiteId } = await createSuite(stack.app, tenant.auth, { candidates: [node.url], config: { workload: { requests_per_target: 5, concurrency: 1, warmup_requests: 0 } } });
    await patch(stack, `/v1/suites/${suiteId}`, tenant.auth, { schedule: { interval_s: 3600, paused: false } });
    // The fire workflow as the Temporal Schedule starts it (id suite-<id>-fire-<fire time>), run
    // twice under that id: the second run is what a retried attempt of the fire activity sees.
    const workflowId = `${scheduleIdForSuite(suiteId)}-fire-2026-11-25T10:00:00Z`;
    const fire = () => stack.client.workflow.execute(scheduledTriggerWorkflow, { workflowId, taskQueue: stack.taskQueue, args: [{ suiteId }] });
    const first = await fire();
    expect(first.outcome, JSON.stringify(first)).toBe('started');
    const runId = (first as { runId: string }).runId;
    // The run finished before the retry: the overlap check alone would let a second run through.
    await waitForRun(stack.app, tenant.auth, runId);
    const retried = await fire();
    expect(retried).toEqual({ outcome: 'started', runId });
    expect((await runsOf(stack, suiteId)).map((r) => r.id)).toEqual([runId]);
    const [row] = await stack.sql<{ schedule_fire_id: string }[]>`select schedule_fire_id from runs where id = ${runId}`;
    expect(row!.schedule_fire_id).toBe(workflowId);
    // The fire's activity heartbeats under a 5 s heartbeat timeout: a lost fire is retried in seconds.
    const history = await stack.client.workflow.getHandle(workflowId).fetchHistory();
    const scheduled = history.events!.find((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'triggerScheduledRun');
    expect(Number(scheduled!.activityTaskScheduledEventAttributes!.heartbeatTimeout!.seconds)).toBe(5);
    // The unique (suite, fire) key is the backstop should two attempts race past the checks.
    const other = await post<{ id: string }>(stack.app, `/v1/suites/${suiteId}/runs`, tenant.auth);
    await expect(stack.sql`update runs set schedule_fire_id = ${workflowId} where id = ${other.body.id}`).rejects.toMatchObject({ code: '23505' });
    await waitForRun(stack.app, tenant.auth, other.body.id);
    await stack.app.inject({ method: 'PATCH', url: `/v1/suites/${suiteId}`, headers: tenant.auth, payload: { schedule: null } });
  });

  it('a fire retried after its first attempt committed the run but died before starting its workflow starts that run, not another', async () => {
    const tenant = await stack.newTenant();
    const { suiteId } = await createSuite(stack.app, tenant.auth, { candidates: [node.url], config: { workload: { requests_per_target: 5, concurrency: 1, warmup_requests: 0 } } });
    await patch(stack, `/v1/suites/${suiteId}`, tenant.auth, { schedule: { interval_s: 3600, paused: false } });
    const fireId = `${scheduleIdForSuite(suiteId)}-fire-2026-11-25T11:00:00Z`;
    const deps = { config: stack.config, sql: stack.sql, box: stack.box, temporal: stack.client, jwt: null };
    // What the first attempt left: the run row of this fire, committed, no workflow.
    const ctx = { principal: scheduleActor({ id: suiteId, tenant_id: tenant.tenantId }), deps };
    const { run: orphan } = await createRunRow({ ctx, input: { suiteId, body: triggerRunInput.parse({}), triggeredBy: 'schedule', scheduleFireId: fireId } });
    expect(orphan.status).toBe('queued');
    expect(await fireSchedule(deps, { suiteId, fireId })).toEqual({ outcome: 'started', runId: orphan.id });
    expect(await waitForRun(stack.app, tenant.auth, orphan.id)).toMatchObject({ status: 'success', triggered_by: 'schedule' });
    expect((await runsOf(stack, suiteId)).map((r) => r.id)).toEqual([orphan.id]);
    await stack.app.inject({ method: 'PATCH', url: `/v1/suites/${suiteId}`, headers: tenant.auth, payload: { schedule: null } });
  });

  it('trigger on a paused schedule is 409 and starts nothing; resume, then it fires', async () => {
    const tenant = await stack.newTenant();
    const { suiteId } = await createSuite(stack.app, tenant.auth, { candidates: [node.url], config: { workload: { requests_per_target: 5, concurrency: 1, warmup_requests: 0 } } });
    await patch(stack, `/v1/suites/${suiteId}`, tenant.auth, { schedule: { interval_s: 3600, paused: true } });
    const refused = await post<{ error: { code: string; message: string } }>(stack.app, `/v1/suites/${suiteId}/schedule/trigger`, tenant.auth);
    expect(refused.status, JSON.stringify(refused.body)).toBe(409);
    expect(refused.body.error).toMatchObject({ code: 'conflict', message: expect.stringContaining('paused') });
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    expect(await runsOf(stack, suiteId)).toHaveLength(0);
    expect((await post(stack.app, `/v1/suites/${suiteId}/schedule/resume`, tenant.auth)).status).toBe(200);
    expect((await post(stack.app, `/v1/suites/${suiteId}/schedule/trigger`, tenant.auth)).status).toBe(202);
    await until(async () => (await runsOf(stack, suiteId)).length > 0, 45_000, 'the triggered run');
    await post(stack.app, `/v1/suites/${suiteId}/schedule/pause`, tenant.auth);
  });

  it('whatever makes a schedule fire needs runs:write besides suites:write; pausing or removing one does not', async () => {
    const admin = await stack.newTenant();
    const { suiteId } = await createSuite(stack.app, admin.auth, { candidates: [node.url] });
    // A second key of the same tenant that may edit suites but not start runs.
    const key = generateApiKey();
    await insertApiKey(stack.sql, { tenantId: admin.tenantId, name: 'suites only', prefix: key.prefix, secretHash: hashApiKeySecret(key.secret), scopes: ['suites:read', 'suites:write'] });
    const suitesOnly = { authorization: `Bearer ${key.key}` };
    const needsRuns = (r: { status: number; body: unknown }) => {
      expect(r.status, JSON.stringify(r.body)).toBe(403);
      expect(r.body).toMatchObject({ error: { code: 'forbidden', message: 'this operation needs the scope runs:write' } });
    };
    needsRuns(await patch(stack, `/v1/suites/${suiteId}`, suitesOnly, { schedule: { interval_s: 3600 } }));
    expect(await stack.sql`select 1 from suite_schedules where suite_id = ${suiteId}`).toHaveLength(0);
    const { chainId, endpointIds } = await createSuite(stack.app, admin.auth, { candidates: [node.url] });
    needsRuns(
      await post(stack.app, '/v1/suites', suitesOnly, { chain_id: chainId, name: 'scheduled', config: { targets: [{ endpoint_id: endpointIds[0] }] }, schedule: { cron: '0 * * * *' } }),
    );
    // A paused schedule starts nothing: suites:write is enough, and so for pause and removal.
    expect((await patch(stack, `/v1/suites/${suiteId}`, suitesOnly, { schedule: { interval_s: 3600, paused: true } })).status).toBe(200);
    needsRuns(await post(stack.app, `/v1/suites/${suiteId}/schedule/resume`, suitesOnly));
    needsRuns(await post(stack.app, `/v1/suites/${suiteId}/schedule/trigger`, suitesOnly));
    expect((await post(stack.app, `/v1/suites/${suiteId}/schedule/pause`, suitesOnly)).status).toBe(200);
    expect((await patch(stack, `/v1/suites/${suiteId}`, suitesOnly, { schedule: null })).status).toBe(200);
    // With runs:write as well, the same requests go through.
    expect((await patch(stack, `/v1/suites/${suiteId}`, admin.auth, { schedule: { interval_s: 3600, paused: true } })).status).toBe(200);
    expect((await post(stack.app, `/v1/suites/${suiteId}/schedule/resume`, admin.auth)).status).toBe(200);
    await patch(stack, `/v1/suites/${suiteId}`, admin.auth, { schedule: null });
  });

  it('a fire for a suite that is gone deletes its orphaned Temporal Schedule', async () => {
    const { chainId, endpointIds } = await createSuite(stack.app, auth, { candidates: [node.url] });
    const created = await post<{ id: string }>(stack.app, '/v1/suites', auth, {
      chain_id: chainId,
      name: 'orphan',
      config: { targets: [{ endpoint_id: endpointIds[0] }] },
      schedule: { interval_s: 3600 },
    });
    // The suite row goes without its schedule (as after a commit that failed once Temporal was changed).
    await stack.sql`delete from suites where id = ${created.body.id}`;
    const deps = { config: stack.config, sql: stack.sql, box: stack.box, temporal: stack.client, jwt: null };
    expect(await fireSchedule(deps, { suiteId: created.body.id, fireId: `test-fire-${randomUUID()}` })).toEqual({ outcome: 'skipped', reason: 'the suite was deleted' });
    await expect(stack.client.schedule.getHandle(scheduleIdForSuite(created.body.id)).describe()).rejects.toBeInstanceOf(ScheduleNotFoundError);
  });
});
