import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { workflowIdForRun } from '../../src/temporal/constants';
import { createSuite, get, post, runWithHistoryBudget, waitForRun } from '../helpers/api';
import { answers, startFakeNode, type Behaviour, type FakeNode } from '../helpers/json-rpc-node';
import { startStack, type Stack } from '../helpers/stack';

describe('run engine', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack();
  });
  afterAll(async () => {
    await stack.close();
  });

  async function withNode<T>(behaviour: Behaviour, body: (node: FakeNode) => Promise<T>): Promise<T> {
    const node = await startFakeNode(behaviour);
    try {
      return await body(node);
    } finally {
      await node.close();
    }
  }

  async function runOnce(node: FakeNode, config: Record<string, unknown> = {}) {
    const { auth } = await stack.newTenant();
    const setup = await createSuite(stack.app, auth, { candidates: [node.url], config });
    const created = await post<{ id: string }>(stack.app, `/v1/suites/${setup.suiteId}/runs`, auth);
    expect(created.status).toBe(201);
    return { auth, setup, run: await waitForRun(stack.app, auth, created.body.id) };
  }

  it.each([
    ['times out', answers.delay(1_500), 'timeout', null],
    ['answers malformed JSON', answers.malformed(), 'invalid_response', 200],
    ['redirects (never followed)', answers.redirect(), 'http_error', 307],
    ['resets the connection', answers.reset(), 'connection_error', null],
    ['answers HTTP 503', answers.httpError(503), 'http_error', 503],
    ['answers a JSON-RPC error with HTTP 200', answers.rpcError(-32601), 'rpc_error', 200],
  ])('records every call of an endpoint that %s as a failed sample', async (_case, behaviour, outcome, httpStatus) => {
    await withNode(behaviour, async (node) => {
      const { auth, run } = await runOnce(node, {
        workload: { requests_per_target: 6, concurrency: 2, warmup_requests: 0, timeout_ms: 500 },
      });
      expect(run.status).toBe('success');
      expect(run.stats.calls).toEqual({ total: 6, successful: 0, failed: 6 });
      const samples = await get<any>(stack.app, `/v1/runs/${run.id}/samples?limit=10`, auth);
      expect(samples.body.pagination.total).toBe(6);
      for (const sample of samples.body.data) {
        expect(sample).toMatchObject({ ok: false, outcome, http_status: httpStatus });
      }
    });
  });

  it('pins templated parameters to head − block_lag read before probing', async () => {
    const behaviour: Behaviour = (req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ jsonrpc: '2.0', id: req.id, result: req.method === 'eth_blockNumber' ? '0x64' : '0x0' }));
    };
    await withNode(behaviour, async (node) => {
      const { run } = await runOnce(node, {
        workload: {
          methods: [{ method: 'eth_getBalance', params: ['0x0000000000000000000000000000000000000001', '{{pinned_block}}'] }],
          requests_per_target: 5,
          warmup_requests: 0,
          block_lag: 10,
        },
      });
      expect(run.status).toBe('success');
      expect(run.stats.calls.successful).toBe(5);
      // The plan step read the head once; every probe asked for block 100 − 10 = 0x5a.
      expect(node.requests.map((r) => r.method)).toEqual(['eth_blockNumber', ...Array(5).fill('eth_getBalance')]);
      for (const request of node.requests.slice(1)) {
        expect(request.params).toEqual(['0x0000000000000000000000000000000000000001', '0x5a']);
      }
    });
  });

  it('probes on a fixed schedule in open loop, measuring from the intended send time', async () => {
    await withNode(answers.ok(), async (node) => {
      const { run } = await runOnce(node, {
        workload: { requests_per_target: 20, rate_per_second: 50, concurrency: 2, warmup_requests: 0 },
      });
      expect(run.status).toBe('success');
      expect(run.stats.calls.total).toBe(20);
      const started = (await stack.sql<{ started_at: Date }[]>`
        select started_at from run_samples where run_id = ${run.id} order by seq`).map((r) => r.started_at.getTime());
      // 20 requests at 50/s are spread over about 380 ms, not fired at once.
      expect(started.at(-1)! - started[0]!).toBeGreaterThanOrEqual(300);
    });
  });

  it('runs a duration-bound campaign for its duration, with gap-free samples', async () => {
    await withNode(answers.delay(5), async (node) => {
      const { auth } = await stack.newTenant();
      const setup = await createSuite(stack.app, auth, {
        candidates: [node.url],
        config: { workload: { requests_per_target: null, duration_s: 3, concurrency: 1, warmup_requests: 0 } },
      });
      const created = await post<{ id: string }>(stack.app, `/v1/suites/${setup.suiteId}/runs`, auth);
      const run = await waitForRun(stack.app, auth, created.body.id);
      expect(run.status).toBe('success');
      expect(run.progress.calls_planned).toBeNull();
      expect(run.stats.calls.total).toBeGreaterThan(50);
      const [seqs] = await stack.sql<{ n: number; max: number }[]>`
        select count(*)::int as n, max(seq) as max from run_samples where run_id = ${run.id}`;
      expect(seqs!.max).toBe(seqs!.n - 1); // gap-free
    });
  });

  it('continues as new between chunks when the history budget is reached, losing and repeating nothing', async () => {
    await withNode(answers.ok(), async (node) => {
      // The API of a stack without a worker writes the run and starts a workflow nobody picks up;
      // the test replaces it with one on the worker's queue that has a tiny history budget.
      const idle = await startStack({ worker: false, env: { RVS_SECRET_KEY: stack.config.secretKey! } });
      try {
        const { auth } = await idle.newTenant();
        const setup = await createSuite(idle.app, auth, {
          candidates: [node.url],
          config: { workload: { requests_per_target: 12_000, concurrency: 8, warmup_requests: 0 } },
        });
        const { runId, workflowId, firstExecutionRunId } = await runWithHistoryBudget(idle, stack, auth, setup.suiteId, 20);
        const first = await stack.client.workflow.getHandle(workflowId, firstExecutionRunId).describe();
        expect(first.status.name).toBe('CONTINUED_AS_NEW');
        const run = await waitForRun(idle.app, auth, runId);
        expect(run.status).toBe('success');
        expect(run.stats.calls.total).toBe(12_000);
        const [counts] = await stack.sql<{ n: number; distinct_seq: number }[]>`
          select count(*)::int as n, count(distinct seq)::int as distinct_seq from run_samples where run_id = ${run.id}`;
        expect(counts).toEqual({ n: 12_000, distinct_seq: 12_000 });
        expect(node.requests.length).toBe(12_000);
      } finally {
        await idle.close();
      }
    });
  });

  it('cancels a running run within seconds; the run ends cancelled with an error verdict', async () => {
    await withNode(answers.delay(50), async (node) => {
      const { auth } = await stack.newTenant();
      const setup = await createSuite(stack.app, auth, {
        candidates: [node.url],
        config: { workload: { requests_per_target: 100_000, concurrency: 2, warmup_requests: 0 } },
      });
      const created = await post<{ id: string }>(stack.app, `/v1/suites/${setup.suiteId}/runs`, auth);
      for (let i = 0; i < 100 && node.requests.length < 10; i++) await new Promise((r) => setTimeout(r, 100));
      const cancelled = await post<any>(stack.app, `/v1/runs/${created.body.id}/cancel`, auth);
      expect(cancelled.status).toBe(202);
      const run = await waitForRun(stack.app, auth, created.body.id, 20_000);
      // Ended by the cancel, not by finishing: 100,000 calls at 50 ms over 2 connections take over
      // 40 minutes, and the run stopped with most of them never sent.
      expect(node.requests.length).toBeLessThan(100_000);
      expect(run.progress.calls_done).toBeLessThan(100_000);
      expect(run).toMatchObject({ status: 'cancelled', failure_reason: 'cancelled by request' });
      expect(run.targets[0].status).toBe('cancelled');
      const verdict = await get<any>(stack.app, `/v1/runs/${run.id}/verdict`, auth);
      expect(verdict.body).toMatchObject({ verdict: 'error', exit_code: 2 });
      const again = await post<any>(stack.app, `/v1/runs/${run.id}/cancel`, auth);
      expect(again.status).toBe(409);
      const afterCancel = node.requests.length;
      await new Promise((r) => setTimeout(r, 300));
      expect(node.requests.length).toBe(afterCancel);
    });
  });

  it('lists runs newest first with suite and status filters, and serves metrics and samples', async () => {
    await withNode(answers.ok(), async (node) => {
      const { auth, setup, run } = await runOnce(node, { workload: { requests_per_target: 30, warmup_requests: 0 } });
      const second = await post<{ id: string }>(stack.app, `/v1/suites/${setup.suiteId}/runs`, auth);
      await waitForRun(stack.app, auth, second.body.id);

      const listed = await get<any>(stack.app, `/v1/runs?suite_id=${setup.suiteId}&limit=1`, auth);
      expect(listed.body.pagination).toEqual({ total: 2, limit: 1, offset: 0, has_more: true });
      expect(listed.body.data[0].id).toBe(second.body.id);
      expect(listed.body.data[0].progress).toEqual({ calls_planned: 30, calls_done: 30 });
      expect((await get<any>(stack.app, '/v1/runs?status=failed', auth)).body.pagination.total).toBe(0);
      expect((await get<any>(stack.app, '/v1/runs?status=bogus', auth)).status).toBe(400);

      const metrics = await get<any>(stack.app, `/v1/runs/${run.id}/metrics`, auth);
      expect(metrics.status).toBe(200);
      const [target] = metrics.body.targets;
      expect(target.role).toBe('primary');
      expect(target.buckets.reduce((n: number, b: { calls: number }) => n + b.calls, 0)).toBe(30);
      expect(metrics.body.by_method).toEqual([
        expect.objectContaining({ method: 'eth_blockNumber', role: 'primary', calls: 30, failed: 0 }),
      ]);

      const page = await get<any>(stack.app, `/v1/runs/${run.id}/samples?limit=10&offset=25`, auth);
      expect(page.body.pagination).toEqual({ total: 30, limit: 10, offset: 25, has_more: false });
      expect(page.body.data.map((s: { seq: number }) => s.seq)).toEqual([25, 26, 27, 28, 29]);
      const none = await get<any>(stack.app, `/v1/runs/${run.id}/samples?outcome=timeout`, auth);
      expect(none.body.pagination.total).toBe(0);
    });
  });

  it('long-polls the verdict with ?wait until the run finishes', async () => {
    await withNode(answers.delay(20), async (node) => {
      const { auth } = await stack.newTenant();
      const setup = await createSuite(stack.app, auth, {
        candidates: [node.url],
        config: { workload: { requests_per_target: 40, concurrency: 1, warmup_requests: 0 } },
      });
      const created = await post<{ id: string }>(stack.app, `/v1/suites/${setup.suiteId}/runs`, auth);
      const verdict = await get<any>(stack.app, `/v1/runs/${created.body.id}/verdict?wait=30`, auth);
      expect(verdict.status).toBe(200);
      expect(verdict.body.verdict).toBe('pass');
      expect((await get<any>(stack.app, `/v1/runs/${created.body.id}/verdict?wait=61`, auth)).status).toBe(400);
    });
  });

  it('keeps endpoint secrets out of every event of the workflow history', async () => {
    await withNode(answers.ok(), async (node) => {
      const secret = 'Wf0SecretKey0123456789abcdef';
      const { auth } = await stack.newTenant();
      const setup = await createSuite(stack.app, auth, {
        candidates: [`${node.url}/v3/${secret}?apikey=${secret}`],
        headers: { 'x-api-key': `${secret}-header` },
        config: { workload: { requests_per_target: 10, warmup_requests: 0 } },
      });
      const created = await post<{ id: string }>(stack.app, `/v1/suites/${setup.suiteId}/runs`, auth);
      const run = await waitForRun(stack.app, auth, created.body.id);
      expect(run.status).toBe('success');
      expect(node.requests[0]!.headers['x-api-key']).toBe(`${secret}-header`); // the secret was used…
      const history = await stack.client.workflow.getHandle(workflowIdForRun(run.id)).fetchHistory();
      const text = JSON.stringify(history, (_k, v: unknown) =>
        v instanceof Uint8Array ? Buffer.from(v).toString('utf8') : typeof v === 'bigint' ? v.toString() : v,
      );
      expect(text).toContain(run.id); // …the history was decoded…
      expect(text).not.toContain(secret); // …and carries no trace of it.
      expect(text).not.toContain(node.url.replace('http://', ''));
    });
  });
});
