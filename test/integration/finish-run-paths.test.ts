import { randomUUID } from 'node:crypto';
import { MockActivityEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createActivities } from '../../activities';
import { SCOPES } from '../../src/auth/scopes';
import { findRun } from '../../src/db/runs';
import { findRunTargets } from '../../src/db/run-targets';
import { runStatsSchema } from '../../src/domain/run-stats';
import type { Ctx } from '../../src/services/context';
import { finalizeRun } from '../../src/services/finalize-run';
import { createRunRow, triggerRunInput } from '../../src/services/runs/trigger';
import { failUnscheduledRun } from '../../src/services/runs/workflow';
import { createSuite, post } from '../helpers/api';
import { answers, startFakeNode, type FakeNode } from '../helpers/json-rpc-node';
import { startStack, type Stack } from '../helpers/stack';

/*
 * Issue 12 item 3: a run ends one way (src/services/finalize-run.ts), whoever ends it — the run
 * workflow's finalize activity, a cancel of a run that has no workflow, or the API giving up on a
 * run it could not schedule. Every path closes the targets and writes the same error verdict.
 */
describe('every way a run ends goes through one finalize', () => {
  let stack: Stack;
  let node: FakeNode;
  let ctx: Ctx;
  let suiteId: string;
  let auth: { authorization: string };
  beforeAll(async () => {
    // No worker: runs made here have no workflow unless a test starts one.
    stack = await startStack({ worker: false });
    node = await startFakeNode(answers.ok());
    const tenant = await stack.newTenant();
    auth = tenant.auth;
    ({ suiteId } = await createSuite(stack.app, auth, { candidates: [node.url], reference: node.url }));
    ctx = {
      principal: { kind: 'api_key', id: randomUUID(), name: 'test', email: null, tenantId: tenant.tenantId, scopes: SCOPES },
      deps: { config: stack.config, sql: stack.sql, box: stack.box, temporal: stack.client, jwt: null },
    };
  });
  afterAll(async () => {
    await node.close();
    await stack.close();
  });

  /** A run row whose workflow was never started (the trigger died, or Temporal was down). */
  const runWithoutWorkflow = async () => (await createRunRow({ ctx, input: { suiteId, body: triggerRunInput.parse({}) } })).run;

  async function expectEnded(runId: string, status: 'failed' | 'cancelled', reason: string) {
    const run = (await findRun(stack.sql, runId))!;
    expect(run).toMatchObject({ status, failure_reason: reason });
    expect(run.verdict).toMatchObject({ verdict: 'error', exit_code: 2, checks: [], summary: `Run ${status}: ${reason}; nothing to judge.` });
    expect(runStatsSchema.parse(run.stats)).toMatchObject({ calls: { total: 0 }, tests: { successful: 0, failed: 1 } });
    // Its targets are closed too, each with stats of the run's shape.
    const targets = await findRunTargets(stack.sql, runId);
    expect(targets.map((t) => t.status)).toEqual([status, status]);
    for (const t of targets) expect(runStatsSchema.parse(t.metadata.stats).tests).toEqual({ successful: 0, failed: 1 });
  }

  it('a cancel of a run without a workflow ends it cancelled, targets included', async () => {
    const run = await runWithoutWorkflow();
    const cancelled = await post(stack.app, `/v1/runs/${run.id}/cancel`, auth);
    expect(cancelled.status).toBe(202);
    await expectEnded(run.id, 'cancelled', 'cancelled by request');
  });

  it('a run that could not be scheduled ends failed once; a second attempt changes nothing', async () => {
    const run = await runWithoutWorkflow();
    expect(await failUnscheduledRun(stack.sql, run, 'the run could not be scheduled (test)')).toBe(true);
    await expectEnded(run.id, 'failed', 'the run could not be scheduled (test)');
    const before = (await findRun(stack.sql, run.id))!;
    expect(await failUnscheduledRun(stack.sql, run, 'another reason')).toBe(false);
    expect(await findRun(stack.sql, run.id)).toEqual(before);
  });

  it('a run its workflow has claimed is not failed as unscheduled (it belongs to the workflow)', async () => {
    const run = await runWithoutWorkflow();
    const activities = createActivities({ sql: stack.sql, box: stack.box, allowPrivateTargets: true });
    await new MockActivityEnvironment({}).run(activities.claimRun, { runId: run.id });
    expect(await failUnscheduledRun(stack.sql, run, 'too late')).toBe(false);
    expect((await findRun(stack.sql, run.id))!).toMatchObject({ status: 'claimed', verdict: null });
    // The workflow's own finalize (the same function) ends it.
    const ended = await finalizeRun({ sql: stack.sql }, { runId: run.id, status: 'failed', failureReason: 'a probe exhausted its retries: test' });
    expect(ended).toEqual({ status: 'failed', verdict: 'error', exitCode: 2, ended: true });
    await expectEnded(run.id, 'failed', 'a probe exhausted its retries: test');
    // A retried finalize reports the run as it is.
    expect(await finalizeRun({ sql: stack.sql }, { runId: run.id, status: 'success', failureReason: null })).toEqual({ ...ended, ended: false });
  });
});
