import { randomUUID } from 'node:crypto';
import { MockActivityEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createActivities, type Activities } from '../../activities';
import { findRun } from '../../src/db/runs';
import { workflowIdForRun } from '../../src/temporal/constants';
import { createSuite, post } from '../helpers/api';
import { startStack, type Stack } from '../helpers/stack';

/**
 * A baseline run is another tenant's data: naming one must neither work nor tell whether it
 * exists, and a suite stored before that check (or written behind the API's back) must not make
 * the verdict read another tenant's run.
 */
describe('baseline runs stay within their tenant', () => {
  let stack: Stack;
  let activities: Activities;
  const runIds: string[] = [];

  beforeAll(async () => {
    // No worker: the tests finalize runs themselves through the real activity.
    stack = await startStack({ worker: false });
    activities = createActivities({ sql: stack.sql, box: stack.box, allowPrivateTargets: true });
  });
  afterAll(async () => {
    await Promise.all(runIds.map((id) => stack.client.workflow.getHandle(workflowIdForRun(id)).terminate('test finished').catch(() => undefined)));
    await stack.close();
  });

  const finalize = (runId: string) =>
    new MockActivityEnvironment({}).run(activities.finalizeRun, { runId, status: 'success' as const, failureReason: null });

  /** A finished run with stats in a fresh tenant: what a victim's baseline would look like. */
  async function finishedRunOfAnotherTenant(): Promise<string> {
    const owner = await stack.newTenant();
    const setup = await createSuite(stack.app, owner.auth, { candidates: ['http://127.0.0.1:9/'] });
    const run = await post<{ id: string }>(stack.app, `/v1/suites/${setup.suiteId}/runs`, owner.auth);
    expect(run.status).toBe(201);
    runIds.push(run.body.id);
    await finalize(run.body.id);
    expect((await findRun(stack.sql, run.body.id))!.stats).not.toBeNull();
    return run.body.id;
  }

  it('refuses another tenant\'s run as a suite baseline with the same answer as a run that does not exist', async () => {
    const foreignRun = await finishedRunOfAnotherTenant();
    const { auth } = await stack.newTenant();
    const setup = await createSuite(stack.app, auth, { candidates: ['http://127.0.0.1:9/'] });
    const suite = await stack.app.inject({ method: 'GET', url: `/v1/suites/${setup.suiteId}`, headers: auth });
    const config = suite.json().config;

    const answers = [];
    for (const runId of [foreignRun, randomUUID()]) {
      for (const mode of ['run', 'previous_success']) {
        const baseline = { mode, run_id: runId };
        const created = await post(stack.app, '/v1/suites', auth, { chain_id: setup.chainId, name: 'x', config: { ...config, baseline } });
        const patched = await stack.app.inject({
          method: 'PATCH',
          url: `/v1/suites/${setup.suiteId}`,
          headers: auth,
          payload: { config: { ...config, baseline } },
        });
        for (const response of [{ status: created.status, body: created.body }, { status: patched.statusCode, body: patched.json() }]) {
          expect(response.status, JSON.stringify(response.body)).toBe(400);
          const error = (response.body as { error: { code: string; details: unknown[] } }).error;
          expect(error.code).toBe('validation_error');
          answers.push(error.details);
        }
      }
    }
    // Existence is not revealed: the same details whether the run is someone else's or no one's.
    expect(answers[0]).toEqual([{ field: 'config.baseline.run_id', message: expect.any(String) }]);
    for (const details of answers) expect(details).toEqual(answers[0]);
    // The suite kept its config.
    const after = await stack.app.inject({ method: 'GET', url: `/v1/suites/${setup.suiteId}`, headers: auth });
    expect(after.json().config.baseline.run_id).toBeNull();
  });

  it('accepts a run of the caller\'s own tenant as a suite baseline', async () => {
    const { auth } = await stack.newTenant();
    const setup = await createSuite(stack.app, auth, { candidates: ['http://127.0.0.1:9/'] });
    const run = await post<{ id: string }>(stack.app, `/v1/suites/${setup.suiteId}/runs`, auth);
    runIds.push(run.body.id);
    const suite = await stack.app.inject({ method: 'GET', url: `/v1/suites/${setup.suiteId}`, headers: auth });
    const config = { ...suite.json().config, baseline: { mode: 'run', run_id: run.body.id } };
    const patched = await stack.app.inject({ method: 'PATCH', url: `/v1/suites/${setup.suiteId}`, headers: auth, payload: { config } });
    expect(patched.statusCode, patched.body).toBe(200);
    expect(patched.json().config.baseline).toEqual({ mode: 'run', run_id: run.body.id, window: 10, min_runs: 5, branch: 'main' });
    const created = await post(stack.app, '/v1/suites', auth, { chain_id: setup.chainId, name: 'own baseline', config });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
  });

  it('refuses another tenant\'s run as a per-run baseline_run_id override, like a missing one', async () => {
    const foreignRun = await finishedRunOfAnotherTenant();
    const { auth } = await stack.newTenant();
    const setup = await createSuite(stack.app, auth, { candidates: ['http://127.0.0.1:9/'] });
    const foreign = await post(stack.app, `/v1/suites/${setup.suiteId}/runs`, auth, { baseline_run_id: foreignRun });
    const missing = await post(stack.app, `/v1/suites/${setup.suiteId}/runs`, auth, { baseline_run_id: randomUUID() });
    expect(foreign.status).toBe(400);
    expect((foreign.body as any).error.details).toEqual([{ field: 'baseline_run_id', message: expect.any(String) }]);
    expect((foreign.body as any).error.details).toEqual((missing.body as any).error.details);
  });

  it('never judges against another tenant\'s run, even when a stored suite names one', async () => {
    const foreignRun = await finishedRunOfAnotherTenant();
    const { auth } = await stack.newTenant();
    const setup = await createSuite(stack.app, auth, { candidates: ['http://127.0.0.1:9/'] });
    // As a suite saved before the API checked baselines, or written by hand.
    await stack.sql`
      update suites set config = jsonb_set(config, '{baseline}', ${stack.sql.json({ mode: 'run', run_id: foreignRun })})
      where id = ${setup.suiteId}`;
    const run = await post<{ id: string }>(stack.app, `/v1/suites/${setup.suiteId}/runs`, auth);
    expect(run.status).toBe(201);
    runIds.push(run.body.id);
    await finalize(run.body.id);
    const finished = (await findRun(stack.sql, run.body.id))!;
    expect(finished.status).toBe('success');
    expect(finished.baseline_run_id).toBeNull();
    expect(finished.verdict!.baseline_comparison).toBeNull();
    expect(finished.verdict!.checks.map((c) => c.name)).not.toContain('latency_vs_baseline');
  });
});
