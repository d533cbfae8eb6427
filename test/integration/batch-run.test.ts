import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { get, post, waitForRun } from '../helpers/api';
import { startAnvil, type AnvilNode } from '../helpers/anvil';
import { startStack, type Stack } from '../helpers/stack';

/*
 * Runs whose calls go out as JSON-RPC batches (`workload.batch_size`), through HTTP, Temporal and
 * Postgres: against a REAL node (anvil from npm, candidate and reference), and against a loopback
 * node that refuses batches over 5 calls the way geth's --rpc.batch-request-limit does.
 */

type Json = Record<string, any>;
const ACCOUNT = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266';

/** Answers single calls and batches of up to `limit`; a bigger batch gets one -32600 error object. */
async function startLimitedNode(limit: number): Promise<{ url: string; batchSizes: number[]; probeSizes: number[]; close(): Promise<void> }> {
  const batchSizes: number[] = [];
  // Batches of the limit search (negative ids: not samples).
  const probeSizes: number[] = [];
  const server: Server = createServer((req, res) => {
    let text = '';
    req.on('data', (chunk: Buffer) => (text += chunk.toString()));
    req.on('end', () => {
      const message = JSON.parse(text) as { id: unknown } | { id: unknown }[];
      const answer = (m: { id: unknown }) => ({ jsonrpc: '2.0', id: m.id, result: '0x10' });
      let body: unknown;
      if (!Array.isArray(message)) body = answer(message);
      else {
        ((message[0]?.id as number) < 0 ? probeSizes : batchSizes).push(message.length);
        body = message.length > limit ? { jsonrpc: '2.0', id: null, error: { code: -32600, message: `batch too large` } } : message.map(answer);
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    batchSizes,
    probeSizes,
    close: () => new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

describe('JSON-RPC batches in a run', () => {
  let stack: Stack;
  let anvil: AnvilNode;

  beforeAll(async () => {
    stack = await startStack();
    anvil = await startAnvil({ blockTimeS: 1 });
    const deadline = Date.now() + 20_000;
    while (Number(await anvil.rpc('eth_blockNumber')) < 3) {
      if (Date.now() > deadline) throw new Error('anvil mined no blocks');
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  });
  afterAll(async () => {
    await anvil?.close();
    await stack?.close();
  });

  async function endpoints(auth: { authorization: string }, family: string, urls: string[]) {
    const chain = await post<{ id: string }>(stack.app, '/v1/chains', auth, {
      name: 'Batches',
      slug: `batches-${Date.now()}-${Math.random().toString(36).slice(2)}`,
      ...(family === 'evm' ? { chain_id: 31337 } : { family }),
    });
    expect(chain.status, JSON.stringify(chain.body)).toBe(201);
    const ids: string[] = [];
    for (const [i, url] of urls.entries()) {
      const created = await post<{ id: string }>(stack.app, '/v1/endpoints', auth, { chain_id: chain.body.id, name: `e${i}`, url, timeout_ms: 5_000 });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      ids.push(created.body.id);
    }
    return { chainId: chain.body.id, ids };
  }

  it('batch_size 10 against anvil (candidate and reference): every seq once, every call ok, answers match', async () => {
    const { auth } = await stack.newTenant();
    const { chainId, ids } = await endpoints(auth, 'evm', [anvil.httpUrl, anvil.httpUrl]);
    const planned = 120;
    const suite = await post<Json>(stack.app, '/v1/suites', auth, {
      chain_id: chainId,
      name: 'batched',
      config: {
        targets: [{ endpoint_id: ids[0] }],
        reference_endpoint_id: ids[1],
        workload: {
          batch_size: 10,
          methods: [
            { method: 'eth_getBlockByNumber', params: ['{{pinned_block}}', false] },
            { method: 'eth_getBalance', params: [ACCOUNT, '{{pinned_block}}'] },
            { method: 'eth_chainId', params: [] },
          ],
          requests_per_target: planned,
          concurrency: 2,
          warmup_requests: 2,
          timeout_ms: 5_000,
          block_lag: 1,
        },
        thresholds: { correctness_enabled: true, correctness_min_pct: 100, latency_p95_max_ms: 5_000, latency_vs_reference_max_pct: 10_000 },
      },
    });
    expect(suite.status, JSON.stringify(suite.body)).toBe(201);
    expect(suite.body.config.workload.batch_size).toBe(10);
    const created = await post<{ id: string }>(stack.app, `/v1/suites/${suite.body.id}/runs`, auth);
    expect(created.status).toBe(201);
    const run = await waitForRun(stack.app, auth, created.body.id, 60_000);
    expect(run.status, JSON.stringify(run.retry_history)).toBe('success');
    expect(run.config_snapshot.workload.batch_size).toBe(10);

    for (const role of ['primary', 'reference']) {
      const perSeq = await stack.sql<{ seq: number; n: number; ok: number }[]>`
        select seq, count(*)::int as n, count(*) filter (where outcome = 'ok')::int as ok
        from run_samples where run_id = ${run.id} and role = ${role} group by seq order by seq`;
      expect(perSeq.map((r) => r.seq)).toEqual(Array.from({ length: planned }, (_, i) => i));
      expect(perSeq.every((r) => r.n === 1 && r.ok === 1)).toBe(true);
    }
    const verdict = await get<Json>(stack.app, `/v1/runs/${run.id}/verdict`, auth);
    expect(verdict.body.checks.find((c: Json) => c.name === 'correctness')).toMatchObject({
      status: 'pass',
      details: { compared: planned, matched: planned, mismatched: 0 },
    });
  });

  it('a node refusing batches over 5 with -32600: every member of each batch of 10 is an rpc_error -32600', async () => {
    const node = await startLimitedNode(5);
    try {
      const { auth } = await stack.newTenant();
      const { chainId, ids } = await endpoints(auth, 'evm', [node.url]);
      const planned = 40;
      const suite = await post<Json>(stack.app, '/v1/suites', auth, {
        chain_id: chainId,
        name: 'refused',
        config: {
          targets: [{ endpoint_id: ids[0] }],
          workload: { batch_size: 10, methods: [{ method: 'eth_chainId', params: [] }], requests_per_target: planned, concurrency: 1, warmup_requests: 0 },
          thresholds: { success_rate_min_pct: 0 },
        },
      });
      expect(suite.status, JSON.stringify(suite.body)).toBe(201);
      const created = await post<{ id: string }>(stack.app, `/v1/suites/${suite.body.id}/runs`, auth);
      const run = await waitForRun(stack.app, auth, created.body.id, 60_000);
      expect(run.status, JSON.stringify(run.retry_history)).toBe('success');
      const rows = await stack.sql<{ seq: number; outcome: string; rpc_error_code: number | null; http_status: number | null }[]>`
        select seq, outcome, rpc_error_code, http_status from run_samples where run_id = ${run.id} order by seq`;
      expect(rows.map((r) => r.seq)).toEqual(Array.from({ length: planned }, (_, i) => i));
      expect(rows.every((r) => r.outcome === 'rpc_error' && r.rpc_error_code === -32600 && r.http_status === 200)).toBe(true);
      expect(node.batchSizes).toEqual([10, 10, 10, 10]);
      // The limit, found by bisection between 0 and 10 (5 answered, 7 and 6 refused), is on the target and in the verdict.
      expect([...node.probeSizes].sort((a, b) => a - b)).toEqual([5, 6, 7]);
      const limit = { max_accepted: 5, min_refused: 6, limit: 5, refused_with: { outcome: 'rpc_error', rpc_error_code: -32600, http_status: 200 }, probes: 3 };
      expect(run.targets[0].metadata.batch_limit).toEqual(limit);
      const verdict = await get<Json>(stack.app, `/v1/runs/${run.id}/verdict`, auth);
      expect(verdict.body.batch_limits).toEqual([{ endpoint_id: ids[0], endpoint_name: 'e0', role: 'primary', ...limit }]);
    } finally {
      await node.close();
    }
  });

  it('an open loop sends whole batches on its schedule: rate 100/s, batch_size 10, one batch every 100 ms', async () => {
    const node = await startLimitedNode(10);
    try {
      const { auth } = await stack.newTenant();
      const { chainId, ids } = await endpoints(auth, 'evm', [node.url]);
      const planned = 60;
      const suite = await post<Json>(stack.app, '/v1/suites', auth, {
        chain_id: chainId,
        name: 'open loop',
        config: {
          targets: [{ endpoint_id: ids[0] }],
          workload: { batch_size: 10, rate_per_second: 100, methods: [{ method: 'eth_chainId', params: [] }], requests_per_target: planned, concurrency: 1, warmup_requests: 0 },
        },
      });
      expect(suite.status, JSON.stringify(suite.body)).toBe(201);
      const created = await post<{ id: string }>(stack.app, `/v1/suites/${suite.body.id}/runs`, auth);
      const run = await waitForRun(stack.app, auth, created.body.id, 60_000);
      expect(run.status, JSON.stringify(run.retry_history)).toBe('success');
      const rows = await stack.sql<{ seq: number; outcome: string; started_at: Date }[]>`
        select seq, outcome, started_at from run_samples where run_id = ${run.id} order by seq`;
      expect(rows.map((r) => [r.seq, r.outcome])).toEqual(Array.from({ length: planned }, (_, i) => [i, 'ok']));
      expect(node.batchSizes).toEqual([10, 10, 10, 10, 10, 10]);
      expect(node.probeSizes).toEqual([]);
      // The batches went out about 100 ms apart, not all at once.
      const span = rows[planned - 1]!.started_at.getTime() - rows[0]!.started_at.getTime();
      expect(span).toBeGreaterThanOrEqual(450);
    } finally {
      await node.close();
    }
  });

  it('refuses batch_size above 1 for a JSON-RPC 1.0 family (bitcoin) and over ws', async () => {
    const { auth } = await stack.newTenant();
    const { chainId, ids } = await endpoints(auth, 'bitcoin', ['http://127.0.0.1:1/']);
    const bitcoin = await post<Json>(stack.app, '/v1/suites', auth, {
      chain_id: chainId,
      name: 'btc',
      config: { targets: [{ endpoint_id: ids[0] }], workload: { batch_size: 10, methods: [{ method: 'getblockcount', params: [] }] } },
    });
    expect(bitcoin.status).toBe(400);
    expect(bitcoin.body.error.details).toEqual([{ field: 'config.workload.batch_size', message: expect.stringContaining('JSON-RPC 1.0') }]);
    const single = await post<Json>(stack.app, '/v1/suites', auth, {
      chain_id: chainId,
      name: 'btc single',
      config: { targets: [{ endpoint_id: ids[0] }], workload: { batch_size: 1, methods: [{ method: 'getblockcount', params: [] }] } },
    });
    expect(single.status, JSON.stringify(single.body)).toBe(201);

    const evm = await endpoints(auth, 'evm', ['http://127.0.0.1:1/']);
    const overWs = await post<Json>(stack.app, '/v1/suites', auth, {
      chain_id: evm.chainId,
      name: 'ws',
      config: { targets: [{ endpoint_id: evm.ids[0] }], workload: { batch_size: 10, transport: 'ws' } },
    });
    expect(overWs.status).toBe(400);
    expect(overWs.body.error.details).toEqual([{ field: 'config.workload.batch_size', message: expect.stringContaining('HTTP only') }]);
  });
});
