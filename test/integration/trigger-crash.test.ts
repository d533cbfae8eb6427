import { randomUUID } from 'node:crypto';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client, Connection, WorkflowNotFoundError } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { SCOPES } from '../../src/auth/scopes';
import { findRun } from '../../src/db/runs';
import { createLogger } from '../../src/logger';
import { reconcileOrphanRuns, startRunReconciler, ORPHAN_TOO_OLD_REASON, RECONCILE_LOCK_CLASS, type ReconcilerDeps } from '../../src/services/run-reconciler';
import { createRunRow, triggerRunInput } from '../../src/services/runs/trigger';
import { startRunWorkflow, UNSCHEDULED_RUN_REASON } from '../../src/services/runs/workflow';
import type { Ctx } from '../../src/services/context';
import { createSuite } from '../helpers/api';
import { freePort } from '../helpers/free-port';
import { answers, startFakeNode, type FakeNode } from '../helpers/json-rpc-node';
import { killGroup, spawnInGroup, until, type Spawned } from '../helpers/processes';
import { startStack, type Stack } from '../helpers/stack';
import { startStallableProxy, type StallableProxy } from '../helpers/stallable-proxy';

/*
 * Issue 10: an API process killed between committing a run and starting its workflow left a
 * `queued` run that nothing would ever start, and its Idempotency-Key reserved for 24 hours. Here
 * the real API entry point is killed with SIGKILL while its workflow start is held back by a proxy
 * in front of Temporal; a second API process (the restarted one) must start the orphan and let
 * the client's retry with the same key through. The in-process worker runs every workflow.
 */

const LEASE_S = 2;
const RUN_DONE_MS = 60_000;

describe('an API killed between committing a run and starting its workflow', () => {
  let stack: Stack;
  let node: FakeNode;
  let proxy: StallableProxy;
  let dataDir: string;
  let tenant: Awaited<ReturnType<Stack['newTenant']>>;
  let suiteId: string;
  const spawned: Spawned[] = [];

  beforeAll(async () => {
    stack = await startStack();
    node = await startFakeNode(answers.ok());
    proxy = await startStallableProxy(inject('temporalAddress'));
    dataDir = await mkdtemp(path.join(tmpdir(), 'rvs-trigger-crash-'));
    await chmod(dataDir, 0o755);
    tenant = await stack.newTenant();
    ({ suiteId } = await createSuite(stack.app, tenant.auth, {
      candidates: [node.url],
      config: { workload: { requests_per_target: 20, concurrency: 2, warmup_requests: 0, timeout_ms: 2_000 } },
    }));
  });
  afterAll(async () => {
    for (const api of spawned) killGroup(api);
    await proxy?.close();
    await node?.close();
    await stack?.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  /** The real API process (src/server.ts) on the shared database, with the test's task queue. */
  async function startApiProcess(temporalAddress: string): Promise<{ api: Spawned; url: string }> {
    const port = await freePort();
    const api = spawnInGroup(process.execPath, ['--import', 'tsx', 'src/server.ts'], {
      DATABASE_URL: inject('databaseUrl'),
      TEMPORAL_ADDRESS: temporalAddress,
      TEMPORAL_TASK_QUEUE: stack.taskQueue,
      PORT: String(port),
      HOST: '127.0.0.1',
      RVS_DATA_DIR: dataDir,
      RVS_SECRET_KEY: stack.config.secretKey!,
      RVS_ALLOW_PRIVATE_TARGETS: 'true',
      RVS_IDEMPOTENCY_LEASE_S: String(LEASE_S),
      LOG_LEVEL: 'info',
    });
    spawned.push(api);
    const url = `http://127.0.0.1:${port}`;
    await until(
      async () => {
        const answer = await fetch(`${url}/v1/users/me`, { headers: tenant.auth, signal: AbortSignal.timeout(2_000) }).catch(() => null);
        return answer?.status === 200 ? true : undefined;
      },
      60_000,
      () => `API answering\n${api.output()}`,
    );
    return { api, url };
  }

  const trigger = (url: string) =>
    fetch(`${url}/v1/suites/${suiteId}/runs`, {
      method: 'POST',
      headers: { ...tenant.auth, 'content-type': 'application/json', 'idempotency-key': 'ci-build-crash' },
      body: JSON.stringify({ metadata: { build: 'crash' } }),
      signal: AbortSignal.timeout(30_000),
    });

  async function workflowExecutions(runId: string): Promise<number> {
    const { count } = await stack.client.workflow.count(`WorkflowId = "run-${runId}"`);
    return count;
  }

  it('the retry with the same Idempotency-Key on the restarted API gets the orphan run, started, and no run gets two workflows', { timeout: 180_000 }, async () => {
    const first = await startApiProcess(proxy.address);
    proxy.stall();
    const lost = trigger(first.url).then(
      (response) => `answered ${response.status}`,
      () => 'no answer',
    );
    // The run row is committed before the workflow start, which the proxy now holds back.
    const orphanId = await until(
      async () => (await stack.sql<{ id: string }[]>`select id from runs where test_suite_id = ${suiteId}`)[0]?.id,
      30_000,
      () => `run row committed\n${first.api.output()}`,
    );
    killGroup(first.api);
    await first.api.exited;
    proxy.dropAll();
    expect(await lost).toBe('no answer');
    expect((await findRun(stack.sql, orphanId))!.status).toBe('queued');
    await expect(stack.client.workflow.getHandle(`run-${orphanId}`).describe()).rejects.toBeInstanceOf(WorkflowNotFoundError);

    // The restarted API; its lease (2 s) is long over by the time it answers.
    const second = await startApiProcess(inject('temporalAddress'));
    const retry = await trigger(second.url);
    const retried = (await retry.json()) as { id: string };
    expect(retry.status, JSON.stringify(retried)).toBe(201);
    expect(retry.headers.get('idempotency-replayed')).toBeNull();
    // One run per key: the retry answers with the run the killed request committed.
    expect(retried.id).toBe(orphanId);
    expect(await stack.sql`select id from runs where test_suite_id = ${suiteId}`).toHaveLength(1);

    const run = await until(
      async () => {
        const row = await findRun(stack.sql, orphanId);
        return row && ['success', 'failed', 'cancelled'].includes(row.status) ? row : undefined;
      },
      RUN_DONE_MS,
      () => `run ${orphanId} finished\n${second.api.output()}`,
    );
    expect(run.status, run.failure_reason ?? '').toBe('success');
    expect(await workflowExecutions(orphanId)).toBe(1);
    killGroup(second.api);
  });

  it('without a retry, the restarted API\'s reconciler starts the orphan run on its own', { timeout: 180_000 }, async () => {
    const first = await startApiProcess(proxy.address);
    proxy.stall();
    const before = new Set((await stack.sql<{ id: string }[]>`select id from runs where test_suite_id = ${suiteId}`).map((r) => r.id));
    const lost = fetch(`${first.url}/v1/suites/${suiteId}/runs`, {
      method: 'POST',
      headers: { ...tenant.auth, 'content-type': 'application/json' },
      body: '{}',
      signal: AbortSignal.timeout(30_000),
    }).then(
      (response) => `answered ${response.status}`,
      () => 'no answer',
    );
    const orphanId = await until(
      async () => (await stack.sql<{ id: string }[]>`select id from runs where test_suite_id = ${suiteId}`).find((r) => !before.has(r.id))?.id,
      30_000,
      () => `run row committed\n${first.api.output()}`,
    );
    killGroup(first.api);
    await first.api.exited;
    proxy.dropAll();
    expect(await lost).toBe('no answer');
    await expect(stack.client.workflow.getHandle(`run-${orphanId}`).describe()).rejects.toBeInstanceOf(WorkflowNotFoundError);

    const second = await startApiProcess(inject('temporalAddress'));
    const run = await until(
      async () => {
        const row = await findRun(stack.sql, orphanId);
        return row && ['success', 'failed', 'cancelled'].includes(row.status) ? row : undefined;
      },
      RUN_DONE_MS,
      () => `run ${orphanId} finished\n${second.api.output()}`,
    );
    expect(run.status, run.failure_reason ?? '').toBe('success');
    expect(await workflowExecutions(orphanId)).toBe(1);
    expect(second.api.output()).toContain('orphan run: workflow started');
    killGroup(second.api);
  });

  describe('the reconciler', () => {
    let ctx: Ctx;
    let deps: ReconcilerDeps;
    beforeAll(() => {
      const log = createLogger('silent', 'test');
      ctx = {
        principal: { kind: 'api_key', id: randomUUID(), name: 'test', email: null, tenantId: tenant.tenantId, scopes: SCOPES },
        deps: { config: stack.config, sql: stack.sql, box: stack.box, temporal: stack.client, jwt: null },
      };
      deps = { sql: stack.sql, temporal: stack.client, config: stack.config, log };
    });
    const orphan = async () => (await createRunRow({ ctx, input: { suiteId, body: triggerRunInput.parse({}) } })).run;

    it('two replicas sweeping at once start an orphan once; a young orphan is left to its trigger', async () => {
      const run = await orphan();
      const young = await reconcileOrphanRuns(deps, { graceMs: 60_000, giveUpMs: 600_000 });
      expect([...young.started, ...young.failed]).not.toContain(run.id);

      const sweeps = await Promise.all([1, 2, 3].map(() => reconcileOrphanRuns(deps, { graceMs: 0, giveUpMs: 600_000 })));
      expect(sweeps.flatMap((s) => s.started).filter((id) => id === run.id)).toHaveLength(1);
      const done = await until(
        async () => {
          const row = await findRun(stack.sql, run.id);
          return row?.status === 'success' ? row : undefined;
        },
        RUN_DONE_MS,
        'orphan run finished',
      );
      expect(done.status).toBe('success');
      expect(await workflowExecutions(run.id)).toBe(1);
      // Marked: later sweeps never look at it again.
      const [mark] = await stack.sql<{ workflow_started_at: Date | null }[]>`select workflow_started_at from runs where id = ${run.id}`;
      expect(mark!.workflow_started_at).not.toBeNull();
    });

    it('an orphan whose workflow ended without running it is failed with a reason, never given a second workflow', async () => {
      const run = await orphan();
      // A workflow on a task queue no worker polls, ended by an operator before anything claimed the run.
      await startRunWorkflow({ temporal: stack.client, config: { ...stack.config, temporal: { ...stack.config.temporal, taskQueue: `nowhere-${randomUUID()}` } } }, run);
      await stack.client.workflow.getHandle(run.workflow_id).terminate('operator');
      const sweep = await reconcileOrphanRuns(deps, { graceMs: 0, giveUpMs: 600_000 });
      expect(sweep.failed).toContain(run.id);
      const row = (await findRun(stack.sql, run.id))!;
      expect(row.status).toBe('failed');
      expect(row.failure_reason).toMatch(/workflow ended \(terminated\)/);
      expect(row.verdict).toMatchObject({ verdict: 'error', exit_code: 2 });
      expect(await workflowExecutions(run.id)).toBe(1);
    });

    it('an orphan too old to start is failed with a reason instead', async () => {
      const run = await orphan();
      const sweep = await reconcileOrphanRuns(deps, { graceMs: 0, giveUpMs: 0 });
      expect(sweep.failed).toContain(run.id);
      const row = (await findRun(stack.sql, run.id))!;
      expect(row.status).toBe('failed');
      expect(row.failure_reason).toBe(ORPHAN_TOO_OLD_REASON);
      await expect(stack.client.workflow.getHandle(run.workflow_id).describe()).rejects.toBeInstanceOf(WorkflowNotFoundError);
    });

    it('with Temporal unreachable a young orphan waits for the next sweep and an old one is failed', async () => {
      const connection = Connection.lazy({ address: `127.0.0.1:${await freePort()}`, interceptors: [] });
      try {
        const down = { ...deps, temporal: new Client({ connection, namespace: stack.config.temporal.namespace }) };
        const run = await orphan();
        const waiting = await reconcileOrphanRuns(down, { graceMs: 0, giveUpMs: 600_000 });
        expect(waiting.deferred).toContain(run.id);
        expect((await findRun(stack.sql, run.id))!.status).toBe('queued');

        const givenUp = await reconcileOrphanRuns(down, { graceMs: 0, giveUpMs: 0 });
        expect(givenUp.failed).toContain(run.id);
        const row = (await findRun(stack.sql, run.id))!;
        expect(row.status).toBe('failed');
        expect(row.failure_reason).toBe(UNSCHEDULED_RUN_REASON);
      } finally {
        await connection.close();
      }
    });

    it('stopping does not wait for a sweep stuck on Temporal (the API shutdown has a deadline)', async () => {
      const stuck = await startStallableProxy(inject('temporalAddress'));
      const connection = await Connection.connect({ address: stuck.address, interceptors: [] });
      try {
        const run = await orphan();
        stuck.stall();
        const reconciler = startRunReconciler(
          { ...deps, temporal: new Client({ connection, namespace: stack.config.temporal.namespace }) },
          { graceMs: 0, giveUpMs: 600_000, intervalMs: 1 },
        );
        // A sweep holds the reconcile lock for its whole transaction: held = a sweep in progress.
        const sweeping = async () =>
          (
            await stack.sql<{ n: number }[]>`
              select count(*)::int as n from pg_locks
              where locktype = 'advisory' and classid = ${RECONCILE_LOCK_CLASS} and objid = 0 and granted`
          )[0]!.n > 0;
        // The sweep is now waiting on its describe call (5 s deadline) through the stalled proxy.
        await until(async () => ((await sweeping()) ? true : undefined), 15_000, 'a sweep in progress');
        await reconciler.stop();
        // stop() came back while that sweep was still stuck on Temporal: it did not wait for it.
        expect(await sweeping()).toBe(true);
        expect((await findRun(stack.sql, run.id))!.status).toBe('queued');
        // Leave nothing behind for later sweeps of other files: end it the way a late sweep would,
        // once the stuck sweep (still running after stop) has reached its deadline and let go.
        await until(async () => ((await reconcileOrphanRuns(deps, { graceMs: 0, giveUpMs: 0 })).swept ? true : undefined), 15_000, 'sweep lock free');
        expect((await findRun(stack.sql, run.id))!.status).toBe('failed');
      } finally {
        await connection.close();
        await stuck.close();
      }
    });
  });
});
