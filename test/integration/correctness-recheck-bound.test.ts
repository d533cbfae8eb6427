import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createActivities, type Activities } from '../../activities';
import { recheckHeadMovedDifferences } from '../../activities/recheck-head-moved';
import { findRun } from '../../src/db/runs';
import { findRunTargets } from '../../src/db/run-targets';
import { recordHead } from '../../src/db/run-heads';
import { compareWithReference } from '../../src/db/samples-correctness';
import { writeSampleChunk, type SampleRow } from '../../src/db/samples-ingest';
import { MAX_RECHECKS_PER_RUN } from '../../src/domain/correctness';
import { CHAINS } from '../../src/chains/registry';
import { createPlanner } from '../../src/domain/workload';
import { createSuite, get, post } from '../helpers/api';
import { answers, startFakeNode, type FakeNode } from '../helpers/json-rpc-node';
import { startStack, type Stack } from '../helpers/stack';

/*
 * The re-check of head-moved differences at its limits, on recorded samples (real Postgres, real
 * probe client, loopback fake nodes): more head-moved differences than MAX_RECHECKS_PER_RUN →
 * exactly that many re-sent, spread over the methods; a method that follows the head by nature
 * (eth_blockNumber) is never re-sent; a second re-check and the finalize after it re-send
 * nothing (outcomes stored in run_rechecks are reused); a side that fails leaves the pair
 * inconclusive.
 */

const SAMPLES = 400;
const ADDRESS = '0x00000000000000000000000000000000000000aa';
const T0 = Date.UTC(2026, 0, 1, 0, 0, 0);
type Json = Record<string, any>;

describe('correctness re-check: bounded, spread over methods, stored once', () => {
  let stack: Stack;
  let activities: Activities;
  const nodes: FakeNode[] = [];
  beforeAll(async () => {
    stack = await startStack({ worker: false });
    activities = createActivities({ sql: stack.sql, box: stack.box, allowPrivateTargets: true });
  });
  afterAll(async () => {
    await Promise.all(nodes.map((n) => n.close()));
    await stack.close();
  });

  /** eth_getBalance agrees, eth_getCode differs, eth_getTransactionCount fails on the candidate. */
  const candidateNode = () =>
    startFakeNode((req, res) => {
      if (req.method === 'eth_getTransactionCount') return answers.rpcError()(req, res);
      return answers.ok(req.method === 'eth_getCode' ? '0xaa' : '0x1')(req, res);
    });
  const referenceNode = () => startFakeNode((req, res) => answers.ok(req.method === 'eth_getCode' ? '0xbb' : '0x1')(req, res));

  it('re-sends at most the limit, round-robin over re-checkable methods, and never twice', async () => {
    const candidate = await candidateNode();
    const reference = await referenceNode();
    nodes.push(candidate, reference);
    const { auth } = await stack.newTenant();
    const methods = [
      { method: 'eth_getBalance', params: [ADDRESS, 'latest'] },
      { method: 'eth_getCode', params: [ADDRESS, 'latest'] },
      { method: 'eth_getTransactionCount', params: [ADDRESS, 'latest'] },
      { method: 'eth_blockNumber', params: [] },
    ];
    const setup = await createSuite(stack.app, auth, {
      candidates: [candidate.url],
      reference: reference.url,
      config: {
        workload: { methods, requests_per_target: SAMPLES, concurrency: 1, warmup_requests: 0, timeout_ms: 5_000 },
        thresholds: { correctness_enabled: true, correctness_min_pct: 0, latency_p95_max_ms: 60_000, latency_vs_reference_max_pct: 10_000 },
      },
    });
    const created = await post<{ id: string }>(stack.app, `/v1/suites/${setup.suiteId}/runs`, auth);
    expect(created.status).toBe(201);
    const runId = created.body.id;
    await activities.claimRun({ runId });
    const run = (await findRun(stack.sql, runId))!;
    const targets = await findRunTargets(stack.sql, runId);
    const candidateTarget = targets.find((t) => t.role === 'primary')!;
    const referenceTarget = targets.find((t) => t.role === 'reference')!;

    // Every answer differed while the candidate's head moved from 54 to 55 around all of them.
    const plan = createPlanner(run.config_snapshot.suite.config.workload, Number(run.seed), null, CHAINS.evm.renderPinned);
    const planned = Array.from({ length: SAMPLES }, (_, seq) => plan(seq));
    for (const target of [candidateTarget, referenceTarget]) {
      const rows: SampleRow[] = planned.map((p) => ({
        run_id: runId,
        target_id: target.id,
        seq: p.seq,
        role: target.role,
        method: p.method,
        started_at: new Date(T0 + p.seq),
        latency_us: 1_000,
        ok: true,
        outcome: 'ok',
        http_status: null,
        rpc_error_code: null,
        response_hash: (target.role === 'primary' ? 'c' : 'r').repeat(32),
        matches_reference: null,
      }));
      await writeSampleChunk(stack.sql, { runId, targetId: target.id, fromSeq: 0, toSeq: SAMPLES }, rows);
      const heads = target.role === 'primary' ? [54, 55] : [54, 54];
      await recordHead(stack.sql, { runId, targetId: target.id, observedAt: new Date(T0 - 1_000), head: BigInt(heads[0]!) });
      await recordHead(stack.sql, { runId, targetId: target.id, observedAt: new Date(T0 + 10_000), head: BigInt(heads[1]!) });
    }
    const perMethod = (method: string) => planned.filter((p) => p.method === method).length;
    for (const m of methods) expect(perMethod(m.method)).toBeGreaterThan(MAX_RECHECKS_PER_RUN / 3);
    expect(SAMPLES - perMethod('eth_blockNumber')).toBeGreaterThan(MAX_RECHECKS_PER_RUN);

    const deps = { sql: stack.sql, box: stack.box, allowPrivateTargets: true };
    const recheckAsFinalizeDoes = () =>
      stack.sql.begin(async (tx) => {
        await compareWithReference(tx, runId, [candidateTarget.id], referenceTarget.id);
        await recheckHeadMovedDifferences(deps, tx, run, [candidateTarget], referenceTarget);
      });
    await recheckAsFinalizeDoes();
    const sent = (node: FakeNode) => node.requests.map((r) => ({ method: r.method, params: r.params }));
    const first = sent(candidate);
    expect(first).toHaveLength(MAX_RECHECKS_PER_RUN);
    expect(sent(reference)).toHaveLength(MAX_RECHECKS_PER_RUN);
    // Round-robin over the three re-checkable methods (by name, then by seq): 67, 67, 66.
    const count = (method: string) => first.filter((r) => r.method === method).length;
    expect([count('eth_getBalance'), count('eth_getCode'), count('eth_getTransactionCount'), count('eth_blockNumber')]).toEqual([67, 67, 66, 0]);
    // Pinned to the lower head read before the calls (54 on both sides).
    for (const r of first) expect(r.params).toEqual([ADDRESS, '0x36']);

    // A second re-check (a retried finalize) and the finalize itself reuse the stored outcomes; the
    // finalize asks each side only the one listed example once more, to show its values.
    await recheckAsFinalizeDoes();
    await activities.finalizeRun({ runId, status: 'success', failureReason: null });
    expect(candidate.requests).toHaveLength(MAX_RECHECKS_PER_RUN + 1);
    expect(reference.requests).toHaveLength(MAX_RECHECKS_PER_RUN + 1);
    expect(candidate.requests.at(-1)).toMatchObject({ method: 'eth_getCode', params: [ADDRESS, '0x36'] });
    const stored = await stack.sql<{ outcome: string; n: number }[]>`
      select outcome, count(*)::int as n from run_rechecks where run_id = ${runId} group by outcome order by outcome`;
    expect(stored).toEqual([
      { outcome: 'confirmed', n: 67 },
      { outcome: 'failed', n: 66 },
      { outcome: 'resolved', n: 67 },
    ]);

    const verdict = await get<Json>(stack.app, `/v1/runs/${runId}/verdict`, auth);
    expect(verdict.status).toBe(200);
    const check = (verdict.body.checks as Json[]).find((c) => c.name === 'correctness')!;
    expect(check.details).toMatchObject({
      compared: 67,
      matched: 0,
      mismatched: 67,
      // Every other difference stays inconclusive: resolved, failed, over the limit, or eth_blockNumber.
      inconclusive: SAMPLES - 67,
      rechecked: MAX_RECHECKS_PER_RUN,
      recheck_resolved: 67,
      recheck_confirmed: 67,
      recheck_failed: 66,
      recheck_limit: MAX_RECHECKS_PER_RUN,
      mismatches_by_method: [{ method: 'eth_getCode', mismatched: 67, compared: 67 }],
    });
    // 67 confirmed differences with the same two answers: one example, counting them.
    expect(check.details.mismatches).toHaveLength(1);
    expect(check.details.mismatches[0]).toMatchObject({ method: 'eth_getCode', params: [ADDRESS, '0x36'], occurrences: 67 });
  });
});
