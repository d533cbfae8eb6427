import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createActivities, type Activities } from '../../activities';
import type { FinalizeRunInput } from '../../activities/types';
import { findRun } from '../../src/db/runs';
import { findRunTargets } from '../../src/db/run-targets';
import { recordHead } from '../../src/db/run-heads';
import { writeSampleChunk, type SampleRow } from '../../src/db/samples-ingest';
import { CHAINS } from '../../src/chains/registry';
import { createPlanner } from '../../src/domain/workload';
import { workflowIdForRun } from '../../src/temporal/constants';
import { createSuite, get, post, waitForRun } from '../helpers/api';
import { answers, startFakeNode, type FakeNode } from '../helpers/json-rpc-node';
import { startStack, type Stack } from '../helpers/stack';

/*
 * Every run step its own activity: the steps that talk to the endpoints after probing — the
 * re-check of head-moved differences and the explanation of the listed mismatches — run as
 * activities of their own before finalize and store what they learnt (run_rechecks,
 * run_mismatch_explanations); finalize only works on the database. Shown on recorded samples
 * (finalize completes with both endpoints shut down, and still lists the stored results) and
 * through the real workflow (the steps are activities in its history, in order).
 */

const ADDRESS = '0x00000000000000000000000000000000000000aa';
const T0 = Date.UTC(2026, 0, 1, 0, 0, 0);
type Json = Record<string, any>;

const thresholds = { correctness_enabled: true, correctness_min_pct: 0, latency_p95_max_ms: 60_000, latency_vs_reference_max_pct: 10_000 };

/** A tenant with a suite of one head-dependent method (at `latest`) on a candidate and a reference. */
async function suiteOf(stack: Stack, candidate: { url: string }, reference: { url: string }, method: string, requests: number) {
  const { auth } = await stack.newTenant();
  const setup = await createSuite(stack.app, auth, {
    candidates: [candidate.url],
    reference: reference.url,
    config: {
      workload: { methods: [{ method, params: [ADDRESS, 'latest'] }], requests_per_target: requests, concurrency: 1, warmup_requests: 0, timeout_ms: 5_000 },
      thresholds,
    },
  });
  return { auth, setup };
}

describe('run steps on recorded samples: finalize does no network I/O', () => {
  const SAMPLES = 20;
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

  it('the re-check and the explanation store their results once; finalize reads them with both endpoints shut down', async () => {
    // eth_getCode differs at any block: every re-check confirms the difference.
    const candidate = await startFakeNode(answers.ok('0xaa'));
    const reference = await startFakeNode(answers.ok('0xbb'));
    nodes.push(candidate, reference);
    const { auth, setup } = await suiteOf(stack, candidate, reference, 'eth_getCode', SAMPLES);
    const created = await post<{ id: string }>(stack.app, `/v1/suites/${setup.suiteId}/runs`, auth);
    expect(created.status).toBe(201);
    const runId = created.body.id;
    await activities.claimRun({ runId });
    const run = (await findRun(stack.sql, runId))!;
    const targets = await findRunTargets(stack.sql, runId);
    // Every answer differed while the candidate's head moved from 54 to 55 around all of them.
    const plan = createPlanner(run.config_snapshot.suite.config.workload, Number(run.seed), null, CHAINS.evm.renderPinned);
    for (const target of targets) {
      const rows: SampleRow[] = Array.from({ length: SAMPLES }, (_, seq) => ({
        run_id: runId,
        target_id: target.id,
        seq,
        role: target.role,
        method: plan(seq).method,
        started_at: new Date(T0 + seq),
        latency_us: 1_000,
        ok: true,
        outcome: 'ok',
        http_status: null,
        rpc_error_code: null,
        response_hash: (target.role === 'primary' ? 'c' : 'r').repeat(32),
        matches_reference: null,
      }));
      await writeSampleChunk(stack.sql, { runId, targetId: target.id, fromSeq: 0, toSeq: SAMPLES }, rows);
      await recordHead(stack.sql, { runId, targetId: target.id, observedAt: new Date(T0 - 1_000), head: 54n });
      await recordHead(stack.sql, { runId, targetId: target.id, observedAt: new Date(T0 + 10_000), head: target.role === 'primary' ? 55n : 54n });
    }

    expect(await activities.recheckHeadMoved({ runId })).toEqual({ rechecked: SAMPLES });
    expect(candidate.requests).toHaveLength(SAMPLES);
    // Retried (a worker died after storing): nothing is re-sent, nothing counted twice.
    expect(await activities.recheckHeadMoved({ runId })).toEqual({ rechecked: 0 });
    expect(await activities.explainMismatches({ runId })).toEqual({ explained: 1 });
    expect(await activities.explainMismatches({ runId })).toEqual({ explained: 0 });
    expect(candidate.requests).toHaveLength(SAMPLES + 1);
    expect(reference.requests).toHaveLength(SAMPLES + 1);

    // Both endpoints gone: a finalize that still talked to them would find its calls failing.
    await Promise.all([candidate.close(), reference.close()]);
    const input: FinalizeRunInput = { runId, status: 'success', failureReason: null, stepsDone: true };
    expect(await activities.finalizeRun(input)).toMatchObject({ status: 'success' });

    const rechecks = await stack.sql<{ outcome: string; n: number }[]>`
      select outcome, count(*)::int as n from run_rechecks where run_id = ${runId} group by outcome`;
    expect(rechecks).toEqual([{ outcome: 'confirmed', n: SAMPLES }]);
    const verdict = await get<Json>(stack.app, `/v1/runs/${runId}/verdict`, auth);
    const check = (verdict.body.checks as Json[]).find((c) => c.name === 'correctness')!;
    expect(check.details).toMatchObject({ mismatched: SAMPLES, inconclusive: 0, rechecked: SAMPLES, recheck_confirmed: SAMPLES });
    expect(check.details.mismatches).toHaveLength(1);
    // The explanation stored before the endpoints went away: their answers' differences.
    expect(check.details.mismatches[0]).toMatchObject({ method: 'eth_getCode', params: [ADDRESS, '0x36'], occurrences: SAMPLES, differences_status: 'shown' });
    expect(check.details.mismatches[0].differences.length).toBeGreaterThan(0);
  });
});

describe('run steps through the workflow', () => {
  let stack: Stack;
  const nodes: FakeNode[] = [];
  beforeAll(async () => {
    stack = await startStack();
  });
  afterAll(async () => {
    await Promise.all(nodes.map((n) => n.close()));
    await stack.close();
  });

  /** A node whose head advances after every eth_blockNumber read when `moving`; eth_getBalance answers `balance(block)`. */
  async function node(balance: (block: number) => number, moving: boolean): Promise<FakeNode> {
    let head = 0x36;
    const fake = await startFakeNode();
    fake.setBehaviour((req, res) => {
      if (req.method === 'eth_blockNumber') {
        const result = `0x${head.toString(16)}`;
        if (moving) head++;
        return answers.ok(result)(req, res);
      }
      const tag = (fake.requests[req.count - 1]?.params as unknown[])[1];
      const block = typeof tag === 'string' && tag.startsWith('0x') ? Number.parseInt(tag, 16) : head;
      return answers.ok(`0x${balance(block).toString(16)}`)(req, res);
    });
    return fake;
  }

  it('re-check and explanation are activities of their own, between the last probe and finalize', async () => {
    // The candidate alters every balance and its head moves: differences are re-checked and confirmed.
    const candidate = await node((block) => 0x2000 + block, true);
    const reference = await node((block) => 0x1000 + block, false);
    nodes.push(candidate, reference);
    const { auth, setup } = await suiteOf(stack, candidate, reference, 'eth_getBalance', 10);
    const created = await post<{ id: string }>(stack.app, `/v1/suites/${setup.suiteId}/runs`, auth);
    expect(created.status).toBe(201);
    const run = await waitForRun(stack.app, auth, created.body.id);
    expect(run.status, JSON.stringify(run.retry_history)).toBe('success');

    // The run row is final before the workflow enqueues its webhooks: wait for the workflow itself.
    const handle = stack.client.workflow.getHandle(workflowIdForRun(run.id));
    await handle.result();
    const history = await handle.fetchHistory();
    const scheduled = (history.events ?? []).map((e) => e.activityTaskScheduledEventAttributes).filter((a) => a !== null && a !== undefined);
    const names = scheduled.map((a) => a.activityType!.name!);
    const lastProbe = names.lastIndexOf('probeChunk');
    expect(lastProbe).toBeGreaterThan(0);
    expect(names.slice(lastProbe + 1)).toEqual(['recheckHeadMoved', 'explainMismatches', 'finalizeRun', 'enqueueWebhooks']);
    const finalizeInput = JSON.parse(Buffer.from(scheduled[lastProbe + 3]!.input!.payloads![0]!.data!).toString('utf8')) as FinalizeRunInput;
    expect(finalizeInput).toEqual({ runId: run.id, status: 'success', failureReason: null, stepsDone: true });

    const verdict = await get<Json>(stack.app, `/v1/runs/${run.id}/verdict`, auth);
    const check = (verdict.body.checks as Json[]).find((c) => c.name === 'correctness')!;
    expect(check.details.recheck_confirmed).toBeGreaterThan(0);
    expect(check.details.mismatches[0]).toMatchObject({ method: 'eth_getBalance', differences_status: 'shown' });
  });
});
