import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SAMPLE_EXPIRY_SCHEDULE_ID } from '../../src/temporal/constants';
import { ensureSampleExpirySchedule } from '../../src/temporal/sample-expiry-schedule';
import { createSuite, get, post, waitForRun } from '../helpers/api';
import { answers, startFakeNode, type FakeNode } from '../helpers/json-rpc-node';
import { startStack, type Stack } from '../helpers/stack';
import { until } from '../helpers/worker-process';

/**
 * Sample retention (issue 36 item 1, DESIGN §18): a finished run aged past its retention loses its
 * raw samples, through a fire of the service's own Temporal Schedule, and keeps its verdict,
 * Markdown and trend point; the samples API answers 410 samples_expired. Runs are aged by moving
 * their finish back (no sleeping); the platform default is 90 days, a suite may keep longer.
 */
describe('sample retention', () => {
  let stack: Stack;
  let node: FakeNode;

  beforeAll(async () => {
    stack = await startStack();
    node = await startFakeNode(answers.ok('0x1234'));
  });
  afterAll(async () => {
    await node?.close();
    await stack?.close();
  });

  it('the expiry schedule deletes the samples of runs past retention; verdict, Markdown and trend stay; samples answer 410', async () => {
    const { auth } = await stack.newTenant();
    const config = { workload: { requests_per_target: 20, concurrency: 2, warmup_requests: 0 } };
    const expiring = await createSuite(stack.app, auth, { candidates: [node.url], config });
    const keeping = await createSuite(stack.app, auth, { candidates: [node.url], config });
    // The suite's override outlives the platform default (RVS_SAMPLE_RETENTION_DAYS, 90).
    await stack.sql`update suites set sample_retention_days = 365 where id = ${keeping.suiteId}`;
    const finish = async (suiteId: string) => {
      const created = await post<{ id: string }>(stack.app, `/v1/suites/${suiteId}/runs`, auth);
      const run = await waitForRun(stack.app, auth, created.body.id);
      expect(run.status).toBe('success');
      return created.body.id;
    };
    const old = await finish(expiring.suiteId);
    const kept = await finish(keeping.suiteId);
    const recent = await finish(expiring.suiteId);
    expect((await get<{ data: unknown[] }>(stack.app, `/v1/runs/${old}/samples`, auth)).body.data).toHaveLength(20);

    // 100 days old: past the default, within the keeping suite's 365.
    await stack.sql`update runs set finished_at = finished_at - interval '100 days' where id in ${stack.sql([old, kept])}`;
    const verdictBefore = (await get<Record<string, unknown>>(stack.app, `/v1/runs/${old}/verdict`, auth)).body;
    const trendBefore = (await get<{ data: unknown[] }>(stack.app, `/v1/suites/${expiring.suiteId}/trend`, auth)).body.data;
    // A schedule left on another task queue (an earlier deployment's, or an earlier test file's
    // worker process: one schedule id per namespace) is brought to this worker's queue, else its
    // fires would start where no worker polls.
    await ensureSampleExpirySchedule(stack.client, `gone-${stack.taskQueue}`);
    await ensureSampleExpirySchedule(stack.client, stack.taskQueue);
    await ensureSampleExpirySchedule(stack.client, stack.taskQueue); // a second worker's start: no error
    await stack.client.schedule.getHandle(SAMPLE_EXPIRY_SCHEDULE_ID).trigger();
    const expiredAt = async () => (await stack.sql<{ at: Date | null }[]>`select samples_expired_at as at from runs where id = ${old}`)[0]!.at;
    await until(async () => (await expiredAt()) !== null, 60_000, 'the expiry fire');

    const count = async (runId: string) => (await stack.sql<{ n: number }[]>`select count(*)::int as n from run_samples where run_id = ${runId}`)[0]!.n;
    expect(await count(old)).toBe(0);
    expect(await count(kept)).toBe(20);
    expect(await count(recent)).toBe(20);

    const samples = await get<{ error: { code: string; message: string; request_id: string } }>(stack.app, `/v1/runs/${old}/samples`, auth);
    expect(samples.status).toBe(410);
    expect(samples.body.error).toMatchObject({ code: 'samples_expired', details: [] });
    expect((await get(stack.app, `/v1/runs/${old}/metrics`, auth)).status).toBe(410);
    expect((await get(stack.app, `/v1/runs/${kept}/samples`, auth)).status).toBe(200);
    expect((await get(stack.app, `/v1/runs/${recent}/samples`, auth)).status).toBe(200);

    // Everything judged from the run's stored verdict and summary is served as before.
    const verdictAfter = await get<Record<string, unknown>>(stack.app, `/v1/runs/${old}/verdict`, auth);
    expect(verdictAfter.status).toBe(200);
    expect(verdictAfter.body.verdict).toBe(verdictBefore.verdict);
    expect(verdictAfter.body.markdown_summary).toBe(verdictBefore.markdown_summary);
    expect(verdictAfter.body.checks).toEqual(verdictBefore.checks);
    const trendAfter = await get<{ data: unknown[] }>(stack.app, `/v1/suites/${expiring.suiteId}/trend`, auth);
    expect(trendAfter.body.data).toEqual(trendBefore);
    // The dashboard's data: the verdict as stored, charts without samples, and why.
    const token = new URL(verdictAfter.body.dashboard_url as string).searchParams.get('token')!;
    const dashboard = await stack.app.inject({ method: 'GET', url: `/dashboard/api/runs/${old}?token=${token}` });
    expect(dashboard.statusCode).toBe(200);
    const data = dashboard.json<{ samples_expired_at: string | null; verdict: { markdown_summary: string }; metrics: { by_method: unknown[]; targets: { buckets: unknown[] }[] }; histogram: unknown }>();
    expect(data.samples_expired_at).toBe((await expiredAt())!.toISOString());
    expect(data.verdict.markdown_summary).toBe(verdictBefore.markdown_summary);
    expect(data.metrics.by_method).toEqual([]);
    expect(data.metrics.targets.map((t) => t.buckets)).toEqual([[]]);
    expect(data.histogram).toBeNull();
    const keptDashboardToken = new URL((await get<{ dashboard_url: string }>(stack.app, `/v1/runs/${kept}/verdict`, auth)).body.dashboard_url).searchParams.get('token')!;
    const keptData = (await stack.app.inject({ method: 'GET', url: `/dashboard/api/runs/${kept}?token=${keptDashboardToken}` })).json<{ samples_expired_at: string | null; histogram: unknown }>();
    expect(keptData.samples_expired_at).toBeNull();
    expect(keptData.histogram).not.toBeNull();
  });
});
