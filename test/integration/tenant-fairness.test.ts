import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSuite, get, post, waitForRun } from '../helpers/api';
import { answers, startFakeNode, type FakeNode } from '../helpers/json-rpc-node';
import { startStack, type Stack } from '../helpers/stack';
import { fork, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { setTenantRunCap } from '../../src/db/tenant-run-cap';
import { probeLeasesHeld, setTenantProbeCap } from '../../src/db/tenant-probe-cap';
import { PRIORITY_CLASSES } from '../../src/domain/run-priority';

const TERMINAL = ['success', 'failed', 'cancelled'];

/** bench/rpc-server.ts in a child process (answers at once); it reports its port over IPC. */
async function startRpcServer(): Promise<{ url: string; close(): Promise<void> }> {
  const child: ChildProcess = fork(path.join(__dirname, '../../bench/rpc-server.ts'), [], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const port = await new Promise<number>((resolve, reject) => {
    child.once('message', (message: { port: number }) => resolve(message.port));
    child.once('exit', (code) => reject(new Error(`rpc server exited with code ${code}`)));
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    url: `http://127.0.0.1:${port}/`,
    async close() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/** Tenants share the worker (issue 31, DESIGN §17): priority by class, fairness by tenant, caps per tenant. */
describe('tenants sharing a worker', () => {
  let stack: Stack;
  let fast: FakeNode;
  let slow: FakeNode;
  // The saturated node of the last test answers from a process of its own: in the test's process
  // it would be slowed by the very load it serves, and B's endpoint would really be slower.
  let outOfProcess: { url: string; close(): Promise<void> };
  beforeAll(async () => {
    stack = await startStack();
    fast = await startFakeNode(answers.ok());
    slow = await startFakeNode(answers.delay(40));
    outOfProcess = await startRpcServer();
  });
  afterAll(async () => {
    await outOfProcess?.close();
    await fast?.close();
    await slow?.close();
    await stack?.close();
  });

  const trigger = async (auth: { authorization: string }, suiteId: string) => {
    const created = await post<{ id: string }>(stack.app, `/v1/suites/${suiteId}/runs`, auth);
    expect(created.status).toBe(201);
    return created.body.id;
  };
  const verdictOf = async (auth: { authorization: string }, runId: string) => {
    const run = await waitForRun(stack.app, auth, runId, 120_000);
    expect(run.status).toBe('success');
    const verdict = await get<any>(stack.app, `/v1/runs/${runId}/verdict`, auth);
    expect(verdict.status).toBe(200);
    return verdict.body;
  };

  it('starts a small API-triggered run as interactive, keyed by its tenant; a campaign as campaign', async () => {
    const { auth, tenantId } = await stack.newTenant();
    const small = await createSuite(stack.app, auth, { candidates: [fast.url] });
    const campaign = await createSuite(stack.app, auth, {
      candidates: [fast.url],
      config: { workload: { requests_per_target: null, duration_s: 2, concurrency: 2, warmup_requests: 0, timeout_ms: 2_000 } },
    });
    for (const [suiteId, priorityKey] of [
      [small.suiteId, PRIORITY_CLASSES.interactive],
      [campaign.suiteId, PRIORITY_CLASSES.campaign],
    ] as const) {
      const runId = await trigger(auth, suiteId);
      await verdictOf(auth, runId);
      const description = await stack.client.workflow.getHandle(`run-${runId}`).describe();
      expect(description.priority).toMatchObject({ priorityKey, fairnessKey: tenantId });
    }
  });

  it('keeps a run over its tenant\'s cap queued until the running one ends, then runs it', async () => {
    const { auth, tenantId } = await stack.newTenant();
    await setTenantRunCap(stack.sql, tenantId, 1);
    // 40 ms answers, 2 at a time: each run probes for about 2 s.
    const setup = await createSuite(stack.app, auth, {
      candidates: [slow.url],
      config: { workload: { requests_per_target: 100, concurrency: 2, warmup_requests: 0, timeout_ms: 2_000 } },
    });
    const first = await trigger(auth, setup.suiteId);
    const second = await trigger(auth, setup.suiteId);
    let sawSecondWaiting = false;
    for (;;) {
      const statuses = await stack.sql<{ id: string; status: string }[]>`select id, status from runs where id in (${first}, ${second})`;
      const active = statuses.filter((r) => r.status === 'claimed' || r.status === 'running');
      // Never both at once: the cap is 1.
      expect(active.length, JSON.stringify(statuses)).toBeLessThanOrEqual(1);
      if (active.length === 1 && statuses.some((r) => r.status === 'queued')) sawSecondWaiting = true;
      if (statuses.every((r) => TERMINAL.includes(r.status))) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(sawSecondWaiting).toBe(true);
    expect((await verdictOf(auth, first)).verdict).toBe('pass');
    expect((await verdictOf(auth, second)).verdict).toBe('pass');
  });

  it("keeps a tenant's probe activities within its cap: the second target waits for the first, and the waits are no retries", async () => {
    const { auth, tenantId } = await stack.newTenant();
    await setTenantProbeCap(stack.sql, tenantId, 1);
    // Two targets, 40 ms answers, 2 at a time: each probes for about 6 s, so the second asks again
    // (every 2 s) more often than the suite's retry budget (2) and the lost-attempt budget allow.
    const setup = await createSuite(stack.app, auth, {
      candidates: [slow.url, slow.url],
      config: { workload: { requests_per_target: 300, concurrency: 2, warmup_requests: 0, timeout_ms: 2_000 } },
    });
    const runId = await trigger(auth, setup.suiteId);
    for (;;) {
      expect(await probeLeasesHeld(stack.sql, tenantId)).toBeLessThanOrEqual(1);
      const [run] = await stack.sql<{ status: string }[]>`select status from runs where id = ${runId}`;
      if (TERMINAL.includes(run!.status)) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const run = await get<any>(stack.app, `/v1/runs/${runId}`, auth);
    expect(run.body.retry_history).toEqual([]);
    expect((await verdictOf(auth, runId)).verdict).toBe('pass');
    // One target probed after the other: their samples do not overlap in time.
    const spans = await stack.sql<{ first: Date; last: Date; n: number }[]>`
      select min(started_at) as first, max(started_at) as last, count(*)::int as n
      from run_samples where run_id = ${runId} group by target_id order by min(started_at)`;
    expect(spans.map((s) => s.n)).toEqual([300, 300]);
    expect(spans[0]!.last.getTime()).toBeLessThanOrEqual(spans[1]!.first.getTime());
    expect(await probeLeasesHeld(stack.sql, tenantId)).toBe(0);
  });

  it("gives tenant B's small run the verdict it gets when idle while tenant A's closed-loop campaign saturates the worker", async () => {
    const a = await stack.newTenant();
    const b = await stack.newTenant();
    const small = await createSuite(stack.app, b.auth, {
      candidates: [outOfProcess.url],
      config: { workload: { requests_per_target: 10, concurrency: 2, warmup_requests: 1, timeout_ms: 5_000 } },
    });
    const idle = await verdictOf(b.auth, await trigger(b.auth, small.suiteId));
    expect(idle.verdict).toBe('pass');

    // Three closed-loop campaigns of A against the same fast loopback node, 64 calls in flight each.
    const campaign = await createSuite(stack.app, a.auth, {
      candidates: [outOfProcess.url],
      config: { workload: { requests_per_target: null, duration_s: 20, concurrency: 64, warmup_requests: 0, timeout_ms: 5_000 } },
    });
    const campaigns = [];
    for (let i = 0; i < 3; i++) campaigns.push(await trigger(a.auth, campaign.suiteId));
    // B triggers once A's campaigns probe.
    for (;;) {
      const [row] = await stack.sql<{ n: number }[]>`select count(*)::int as n from runs where id in ${stack.sql(campaigns)} and status = 'running'`;
      if (row!.n === campaigns.length) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const loaded = await verdictOf(b.auth, await trigger(b.auth, small.suiteId));
    const statuses = (v: any) => Object.fromEntries(v.checks.map((c: any) => [c.name, c.status]));
    expect(loaded.verdict, loaded.markdown_summary).toBe(idle.verdict);
    // No latency check fails because of A: at worst it names the prober (inconclusive).
    for (const check of loaded.checks) expect(check.status, check.message).not.toBe('fail');
    // Every check judged idle is judged the same under A (A's campaigns yield while B runs): the
    // later run only adds latency_vs_baseline, against the idle run's history.
    for (const [name, status] of Object.entries(statuses(idle))) expect({ name, status: statuses(loaded)[name] }).toEqual({ name, status });
    console.log(`B idle: ${JSON.stringify(statuses(idle))} prober ${JSON.stringify(idle.prober)}; under A: ${JSON.stringify(statuses(loaded))} prober ${JSON.stringify(loaded.prober)}`);
    for (const runId of campaigns) await verdictOf(a.auth, runId);
  });
});
