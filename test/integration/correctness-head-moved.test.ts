import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSuite, get, post, waitForRun } from '../helpers/api';
import { answers, startFakeNode, type FakeNode } from '../helpers/json-rpc-node';
import { startStack, type Stack } from '../helpers/stack';

/*
 * A head-dependent difference (eth_getBalance at `latest`) is excused only when a recorded head
 * (run_heads, read at the start and the end of every probe chunk) moved while it was answered,
 * and then it is re-sent once to both nodes with the tag replaced by a fixed block (the lower of
 * the two heads read before the calls): only a difference that survives counts. Two loopback fake
 * nodes answer eth_getBalance from the block asked for (their own head at `latest`).
 *  - heads frozen on both sides: every difference is a mismatch, nothing is re-sent;
 *  - the reference's head moves and the candidate is honest: its `latest` answers differ only
 *    because the heads differ; at the fixed block they match → inconclusive, not mismatches;
 *  - the candidate's head moves and it alters every balance: the re-check still differs →
 *    counted as mismatches, listed with the re-sent params;
 *  - eth_chainId (not head-dependent) is never re-sent or excused.
 */
const REQUESTS = 40;
const ADDRESS = '0x00000000000000000000000000000000000000aa';

type Json = Record<string, any>;

const FIRST_HEAD = 0x36;

/**
 * A node whose chain head starts at FIRST_HEAD and, when `moving`, advances by one block after
 * every eth_blockNumber read (so the reads around a chunk differ). eth_getBalance answers
 * `balance(block)` for the block asked for, its current head at `latest`; eth_chainId `chainId`.
 */
async function node(values: { balance: (block: number) => number; chainId: string; moving: boolean }): Promise<FakeNode> {
  let head = FIRST_HEAD;
  const fake = await startFakeNode();
  fake.setBehaviour((req, res) => {
    let result: string;
    if (req.method === 'eth_blockNumber') {
      result = `0x${head.toString(16)}`;
      if (values.moving) head++;
    } else if (req.method === 'eth_getBalance') {
      const tag = (fake.requests[req.count - 1]?.params as unknown[])[1];
      const block = typeof tag === 'string' && tag.startsWith('0x') ? Number.parseInt(tag, 16) : head;
      result = `0x${values.balance(block).toString(16)}`;
    } else {
      result = values.chainId;
    }
    return answers.ok(result)(req, res);
  });
  return fake;
}

const honest = (block: number) => 0x1000 + block;
const altered = (block: number) => 0x2000 + block;

describe('correctness: a head-dependent difference counts only when no head moved, or when its re-check at a fixed block still differs', () => {
  let stack: Stack;
  const nodes: FakeNode[] = [];

  beforeAll(async () => {
    stack = await startStack();
  });
  afterAll(async () => {
    await Promise.all(nodes.map((n) => n.close()));
    await stack?.close();
  });

  interface Side {
    balance: (block: number) => number;
    chainId: string;
    moving: boolean;
  }

  /** Runs the suite against the two nodes; the correctness check and the requests each node got. */
  async function correctnessOf(candidateSide: Side, referenceSide: Side) {
    const candidate = await node(candidateSide);
    const reference = await node(referenceSide);
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
    const check = (verdict.body.checks as Json[]).find((c) => c.name === 'correctness')!;
    const pinnedBalanceCalls = (fake: FakeNode) =>
      fake.requests.filter((r) => r.method === 'eth_getBalance' && (r.params as unknown[])[1] !== 'latest').map((r) => r.params);
    return { check, candidateRechecks: pinnedBalanceCalls(candidate), referenceRechecks: pinnedBalanceCalls(reference) };
  }

  const byMethodOf = (check: Json) => check.details.mismatches_by_method as { method: string; mismatched: number; compared: number }[];

  it('frozen heads on both sides: altered latest-tagged answers are mismatches, nothing is re-sent, examples spread over both methods', async () => {
    const { check, candidateRechecks, referenceRechecks } = await correctnessOf(
      { balance: altered, chainId: '0x2', moving: false },
      { balance: honest, chainId: '0x1', moving: false },
    );
    expect(check.status).toBe('fail');
    expect(check.details).toMatchObject({ compared: REQUESTS, matched: 0, mismatched: REQUESTS, inconclusive: 0, skipped: 0, rechecked: 0 });
    expect(candidateRechecks).toEqual([]);
    expect(referenceRechecks).toEqual([]);
    const byMethod = byMethodOf(check);
    expect(byMethod.map((m) => m.method).sort()).toEqual(['eth_chainId', 'eth_getBalance']);
    for (const m of byMethod) expect(m.mismatched).toBe(m.compared);
    expect(byMethod.reduce((sum, m) => sum + m.mismatched, 0)).toBe(REQUESTS);
    const listed = check.details.mismatches as { method: string; params: unknown; occurrences: number }[];
    // Each method answered the same wrong value every time: one example per method, counting them all.
    const count = (method: string) => byMethod.find((m) => m.method === method)!.mismatched;
    expect(listed.map((m) => [m.method, m.occurrences]).sort()).toEqual([
      ['eth_chainId', count('eth_chainId')],
      ['eth_getBalance', count('eth_getBalance')],
    ]);
    expect(listed.find((m) => m.method === 'eth_getBalance')!.params).toEqual([ADDRESS, 'latest']);
    expect(check.message).not.toContain('head moved');
  });

  it('an honest candidate whose latest answers differ only because the reference head moved: re-checked at a fixed block they match → inconclusive, not mismatches', async () => {
    const { check, candidateRechecks, referenceRechecks } = await correctnessOf(
      { balance: honest, chainId: '0x1', moving: false },
      { balance: honest, chainId: '0x1', moving: true },
    );
    const balances = REQUESTS - check.details.matched;
    expect(balances).toBeGreaterThan(0);
    expect(check.details).toMatchObject({
      mismatched: 0,
      inconclusive: balances,
      rechecked: balances,
      recheck_resolved: balances,
      recheck_confirmed: 0,
      recheck_failed: 0,
      mismatches: [],
      mismatches_by_method: [],
    });
    // Every eth_chainId matched; each differing balance was re-sent once to each side at the lower head read before it.
    expect(check.details.compared).toBe(check.details.matched);
    expect(check.status).toBe('pass');
    const pinned = `0x${FIRST_HEAD.toString(16)}`;
    expect(candidateRechecks).toEqual(Array.from({ length: balances }, () => [ADDRESS, pinned]));
    expect(referenceRechecks).toEqual(candidateRechecks);
    expect(check.message).toContain(`${balances} inconclusive (head moved)`);
    expect(check.message).toContain(`${balances} head-moved differences re-checked at a fixed block: ${balances} resolved, 0 confirmed`);
  });

  it('a candidate that alters balances and whose own head moved: the re-check still differs → counted as mismatches, listed as re-sent', async () => {
    const { check, candidateRechecks } = await correctnessOf(
      { balance: altered, chainId: '0x1', moving: true },
      { balance: honest, chainId: '0x1', moving: false },
    );
    const byMethod = byMethodOf(check);
    expect(byMethod.map((m) => m.method)).toEqual(['eth_getBalance']);
    const balances = byMethod[0]!.mismatched;
    expect(balances).toBe(REQUESTS - check.details.matched);
    expect(check.status).toBe('fail');
    expect(check.details).toMatchObject({
      mismatched: balances,
      inconclusive: 0,
      rechecked: balances,
      recheck_resolved: 0,
      recheck_confirmed: balances,
      recheck_failed: 0,
    });
    const listed = check.details.mismatches as { method: string; params: unknown; candidate_hash: string; reference_hash: string; occurrences: number }[];
    // Every re-check confirmed the same two answers at the same block: one example, counting them all.
    expect(listed).toHaveLength(1);
    expect(listed[0]!.occurrences).toBe(balances);
    // One re-check per difference, and the listed example asked once more to show its values.
    expect(candidateRechecks).toHaveLength(balances + listed.length);
    for (const m of listed) {
      expect(m.method).toBe('eth_getBalance');
      expect(m.params).toEqual([ADDRESS, `0x${FIRST_HEAD.toString(16)}`]);
      expect(m.candidate_hash).not.toBe(m.reference_hash);
    }
    expect(check.message).toContain(`${balances} head-moved differences re-checked at a fixed block: 0 resolved, ${balances} confirmed`);
  });
});
