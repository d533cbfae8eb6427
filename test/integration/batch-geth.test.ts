import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordBatchLimit } from '../../src/db/run-targets';
import { get, post, waitForRun } from '../helpers/api';
import { gethFixture } from '../helpers/geth';
import { startStack, type Stack } from '../helpers/stack';

/*
 * JSON-RPC batches (`workload.batch_size`) against a REAL geth v1.16.7 started with
 * --rpc.batch-request-limit 5: geth refuses a bigger batch as a whole with a one-element array
 * [{"id": <first call's id>, "error": {"code": -32600, "message": "batch too large"}}]
 * (rpc/handler.go respondWithBatchTooLarge). Every member of a refused batch is recorded as
 * refused, and the run finds and reports the limit (a bisection of a few extra batch requests).
 * One geth serves both tests.
 */

type Json = Record<string, any>;
const ZERO = '0x0000000000000000000000000000000000000000';

describe('JSON-RPC batches against geth with --rpc.batch-request-limit 5', () => {
  let stack: Stack;
  const fixture = gethFixture({ periodS: 1, batchRequestLimit: 5 });

  beforeAll(async () => {
    stack = await startStack();
    await fixture.start();
  }, 120_000);
  afterAll(async () => {
    await fixture.close();
    await stack?.close();
  });

  async function endpoints(auth: { authorization: string }, names: string[]) {
    const geth = fixture.node;
    // A pinned block (head − block_lag) needs a few sealed blocks.
    const deadline = Date.now() + 20_000;
    while (Number(await geth.rpc('eth_blockNumber')) < 3) {
      if (Date.now() > deadline) throw new Error('geth sealed no blocks');
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    const chain = await post<{ id: string }>(stack.app, '/v1/chains', auth, { name: 'geth dev', slug: `geth-${Date.now()}-${Math.random().toString(36).slice(2)}`, chain_id: 1337 });
    expect(chain.status, JSON.stringify(chain.body)).toBe(201);
    const ids: string[] = [];
    for (const name of names) {
      const created = await post<{ id: string }>(stack.app, '/v1/endpoints', auth, { chain_id: chain.body.id, name, url: geth.httpUrl, timeout_ms: 5_000 });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      ids.push(created.body.id);
    }
    return { chainId: chain.body.id, ids };
  }

  it('batch_size 10: every member of every batch is an rpc_error -32600, and the run reports the limit as 5', { timeout: 120_000 }, async () => {
    const { auth } = await stack.newTenant();
    const { chainId, ids } = await endpoints(auth, ['geth limited']);
    const planned = 40;
    const suite = await post<Json>(stack.app, '/v1/suites', auth, {
      chain_id: chainId,
      name: 'over the limit',
      config: {
        targets: [{ endpoint_id: ids[0] }],
        workload: { batch_size: 10, methods: [{ method: 'eth_chainId', params: [] }, { method: 'eth_blockNumber', params: [] }], requests_per_target: planned, concurrency: 1, warmup_requests: 0 },
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
    // Not only the first member (the one geth put its error's id on): all ten of each batch.
    expect(rows.filter((r) => !(r.outcome === 'rpc_error' && r.rpc_error_code === -32600 && r.http_status === 200))).toEqual([]);

    const found = { max_accepted: 5, min_refused: 6, limit: 5, refused_with: { outcome: 'rpc_error', rpc_error_code: -32600, http_status: 200 } };
    const [target] = run.targets as Json[];
    expect(target!.metadata.batch_limit).toMatchObject(found);
    // Bisection between 0 and 10: 5 answered, 7 refused, 6 refused.
    expect(target!.metadata.batch_limit.probes).toBe(3);
    const verdict = await get<Json>(stack.app, `/v1/runs/${run.id}/verdict`, auth);
    expect(verdict.body.batch_limits).toEqual([{ endpoint_id: ids[0], endpoint_name: 'geth limited', role: 'primary', probes: 3, ...found }]);
    expect(verdict.body.markdown_summary).toContain(
      'Batch limit of candidate (geth limited): 5 calls per batch — batches of 6 were refused as a whole with error -32600, found with 3 extra batch requests.',
    );
    // The extra requests of the search are not samples.
    const counted = await stack.sql<{ n: number }[]>`select count(*)::int as n from run_samples where run_id = ${run.id}`;
    expect(counted[0]!.n).toBe(planned);

    // A retried chunk's new client whose search was cut short (bounds only) does not replace the exact limit; an exact one does.
    const stored = async () => (await stack.sql<{ m: Json }[]>`select metadata as m from run_targets where id = ${target!.id}`)[0]!.m.batch_limit;
    await recordBatchLimit(stack.sql, target!.id, { ...target!.metadata.batch_limit, max_accepted: null, limit: null, probes: 1 });
    expect(await stored()).toMatchObject(found);
    await recordBatchLimit(stack.sql, target!.id, { ...target!.metadata.batch_limit, probes: 4 });
    expect(await stored()).toMatchObject({ ...found, probes: 4 });
  });

  it('batch_size 5 (at the limit), candidate and reference the same geth: every call ok and matching, no limit reported', { timeout: 120_000 }, async () => {
    const { auth } = await stack.newTenant();
    const { chainId, ids } = await endpoints(auth, ['candidate', 'reference']);
    const planned = 60;
    const suite = await post<Json>(stack.app, '/v1/suites', auth, {
      chain_id: chainId,
      name: 'within the limit',
      config: {
        targets: [{ endpoint_id: ids[0] }],
        reference_endpoint_id: ids[1],
        workload: {
          batch_size: 5,
          methods: [
            { method: 'eth_getBlockByNumber', params: ['{{pinned_block}}', false] },
            { method: 'eth_getBalance', params: [ZERO, '{{pinned_block}}'] },
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
    const created = await post<{ id: string }>(stack.app, `/v1/suites/${suite.body.id}/runs`, auth);
    const run = await waitForRun(stack.app, auth, created.body.id, 60_000);
    expect(run.status, JSON.stringify(run.retry_history)).toBe('success');
    const perRole = await stack.sql<{ role: string; n: number; ok: number }[]>`
      select role, count(*)::int as n, count(*) filter (where outcome = 'ok')::int as ok
      from run_samples where run_id = ${run.id} group by role order by role`;
    expect(perRole).toEqual([
      { role: 'primary', n: planned, ok: planned },
      { role: 'reference', n: planned, ok: planned },
    ]);
    for (const t of run.targets as Json[]) expect(t.metadata.batch_limit).toBeUndefined();
    const verdict = await get<Json>(stack.app, `/v1/runs/${run.id}/verdict`, auth);
    expect(verdict.body.checks.find((c: Json) => c.name === 'correctness')).toMatchObject({ status: 'pass', details: { compared: planned, matched: planned } });
    expect(verdict.body.batch_limits).toBeUndefined();
    expect(verdict.body.markdown_summary).not.toContain('Batch limit');
  });
});
