import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSuite, get, post, waitForRun } from '../helpers/api';
import { answers, startFakeNode, type FakeNode } from '../helpers/json-rpc-node';
import { startStack, type Stack } from '../helpers/stack';

/*
 * A head-dependent mismatch (eth_getBalance at `latest`) is excused as inconclusive only when a
 * recorded head (run_heads, read at the start and the end of every probe chunk) moved while it
 * was answered. Two loopback fake nodes: the candidate alters every eth_getBalance and
 * eth_chainId answer. Heads frozen on both sides → every difference is a mismatch; the
 * reference's head moving → the eth_getBalance differences are inconclusive, eth_chainId (not
 * head-dependent) still mismatches.
 */

const REQUESTS = 40;
const ADDRESS = '0x00000000000000000000000000000000000000aa';

type Json = Record<string, any>;

/** A node answering eth_blockNumber from `head()` and the two workload methods with fixed values. */
function node(values: { balance: string; chainId: string; head: () => string }): Promise<FakeNode> {
  return startFakeNode((req, res) => {
    const result = req.method === 'eth_blockNumber' ? values.head() : req.method === 'eth_getBalance' ? values.balance : values.chainId;
    return answers.ok(result)(req, res);
  });
}

describe('correctness: heads that did not move never excuse a mismatch', () => {
  let stack: Stack;
  const nodes: FakeNode[] = [];

  beforeAll(async () => {
    stack = await startStack();
  });
  afterAll(async () => {
    await Promise.all(nodes.map((n) => n.close()));
    await stack?.close();
  });

  async function correctnessOf(referenceHead: () => string): Promise<Json> {
    const candidate = await node({ balance: '0x200', chainId: '0x2', head: () => '0x36' });
    const reference = await node({ balance: '0x100', chainId: '0x1', head: referenceHead });
    nodes.push(candidate, reference);
    const { auth } = await stack.newTenant();
    const setup = await createSuite(stack.app, auth, {
      candidates: [candidate.url],
      reference: reference.url,
      config: {
        workload: {
          methods: [
            { method: 'eth_getBalance', params: [ADDRESS, 'latest'] },
            { method: 'eth_chainId', params: [] },
          ],
          requests_per_target: REQUESTS,
          concurrency: 2,
          warmup_requests: 0,
          timeout_ms: 5_000,
        },
        thresholds: { correctness_enabled: true, correctness_min_pct: 100, latency_p95_max_ms: 5_000, latency_vs_reference_max_pct: 10_000 },
      },
    });
    const created = await post<{ id: string }>(stack.app, `/v1/suites/${setup.suiteId}/runs`, auth);
    expect(created.status).toBe(201);
    const run = await waitForRun(stack.app, auth, created.body.id);
    expect(run.status, JSON.stringify(run.retry_history)).toBe('success');
    const verdict = await get<Json>(stack.app, `/v1/runs/${run.id}/verdict`, auth);
    expect(verdict.status).toBe(200);
    return (verdict.body.checks as Json[]).find((c) => c.name === 'correctness')!;
  }

  it('frozen heads on both sides: altered latest-tagged answers are mismatches, examples spread over both methods', async () => {
    const check = await correctnessOf(() => '0x36');
    expect(check.status).toBe('fail');
    expect(check.details).toMatchObject({ compared: REQUESTS, matched: 0, mismatched: REQUESTS, inconclusive: 0, skipped: 0 });
    const byMethod = check.details.mismatches_by_method as { method: string; mismatched: number; compared: number }[];
    expect(byMethod.map((m) => m.method).sort()).toEqual(['eth_chainId', 'eth_getBalance']);
    for (const m of byMethod) expect(m.mismatched).toBe(m.compared);
    expect(byMethod.reduce((sum, m) => sum + m.mismatched, 0)).toBe(REQUESTS);
    const listed = check.details.mismatches as { method: string; params: unknown }[];
    expect(listed).toHaveLength(10);
    // Round-robin over two methods: 5 each, unless one has fewer and leaves its share to the other.
    const count = (method: string) => byMethod.find((m) => m.method === method)!.mismatched;
    const listedOf = (method: string, other: string) => Math.min(count(method), Math.max(5, 10 - count(other)));
    expect(listed.filter((m) => m.method === 'eth_getBalance')).toHaveLength(listedOf('eth_getBalance', 'eth_chainId'));
    expect(listed.filter((m) => m.method === 'eth_chainId')).toHaveLength(listedOf('eth_chainId', 'eth_getBalance'));
    expect(listed.find((m) => m.method === 'eth_getBalance')!.params).toEqual([ADDRESS, 'latest']);
    expect(check.message).not.toContain('head moved');
  });

  it('a reference head that moves during the chunk: the latest-tagged differences are inconclusive, the others still mismatch', async () => {
    let head = 0x36;
    const check = await correctnessOf(() => `0x${(head++).toString(16)}`);
    const byMethod = check.details.mismatches_by_method as { method: string; mismatched: number; compared: number }[];
    expect(byMethod.map((m) => m.method)).toEqual(['eth_chainId']);
    expect(check.details.inconclusive).toBeGreaterThan(0);
    expect(check.details.matched).toBe(0);
    expect(check.details.mismatched).toBe(byMethod[0]!.mismatched);
    expect(check.details.inconclusive + check.details.mismatched).toBe(REQUESTS);
    expect((check.details.mismatches as { method: string }[]).every((m) => m.method === 'eth_chainId')).toBe(true);
    expect(check.message).toContain(`${check.details.inconclusive} inconclusive (head moved)`);
  });
});
