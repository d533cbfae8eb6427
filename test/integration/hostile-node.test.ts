import { CHAINS } from '../../src/chains/registry';
import type { ChildProcess } from 'node:child_process';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { INVALID_REASONS } from '../../src/probe/classify-response';
import { createJsonRpcClient, type CallResult, type JsonRpcClient } from '../../src/probe/json-rpc-client';
import { ResponseBudget } from '../../src/probe/response-budget';
import type { PlannedCall } from '../../src/domain/workload';
import { createSuite, get, post, waitForRun } from '../helpers/api';
import { startHostileNode, LARGE_OK_BYTES, type HostileMode, type HostileNode } from '../helpers/hostile-node';
import { answers, startFakeNode, type FakeNode } from '../helpers/json-rpc-node';
import { startStack, type Stack } from '../helpers/stack';
import { isRunning, killHard, startWorkerProcess } from '../helpers/worker-process';

/*
 * What a hostile or broken endpoint can answer, end to end through the real undici client: each
 * answer becomes a sample with an outcome, nothing throws, and no request reaches the server
 * twice (a workload may contain eth_sendRawTransaction).
 */

const call = (seq: number, method = 'eth_getTransactionByHash'): PlannedCall => ({ seq, method, params: [] });

describe('the probe client against a hostile node', () => {
  const open: { node?: HostileNode; client?: JsonRpcClient }[] = [];
  afterEach(async () => {
    for (const { node, client } of open.splice(0)) {
      await client?.close();
      await node?.close();
    }
  });

  async function setup(mode: HostileMode, options: { timeoutMs?: number; connections?: number; budget?: ResponseBudget } = {}) {
    const node = await startHostileNode(mode);
    const client = createJsonRpcClient(
      { url: node.url, headers: {}, timeoutMs: options.timeoutMs ?? 2_000 },
      { connections: options.connections ?? 2, allowPrivateTargets: true, answers: CHAINS.evm, fingerprintResults: true, budget: options.budget },
    );
    open.push({ node, client });
    return { node, client };
  }

  it.each([
    { mode: 'deep', expected: { outcome: 'invalid_response', httpStatus: 200, reason: INVALID_REASONS.tooDeep } },
    { mode: 'huge', expected: { outcome: 'invalid_response', httpStatus: null, reason: INVALID_REASONS.tooLarge }, timeoutMs: 10_000 },
    { mode: 'huge-chunked', expected: { outcome: 'invalid_response', httpStatus: null, reason: INVALID_REASONS.tooLarge }, timeoutMs: 10_000 },
    // The body timeout is an idle timeout, which a byte every 50 ms defeats: the whole-call deadline ends it.
    { mode: 'trickle', expected: { outcome: 'timeout', httpStatus: null, reason: null }, timeoutMs: 400 },
    { mode: 'reset-partial', expected: { outcome: 'connection_error', httpStatus: null, reason: null } },
    { mode: 'redirect', expected: { outcome: 'http_error', httpStatus: 301, reason: null } },
    { mode: 'destroy-after-read', expected: { outcome: 'connection_error', httpStatus: null, reason: null } },
  ] as { mode: HostileMode; expected: Partial<CallResult>; timeoutMs?: number }[])(
    '$mode → $expected.outcome, the request sent once',
    async ({ mode, expected, timeoutMs }) => {
      const { node, client } = await setup(mode, { timeoutMs });
      const results = await Promise.all([1, 2, 3].map((seq) => client.call(call(seq))));
      for (const result of results) expect(result).toMatchObject({ responseHash: null, ...expected });
      for (const seq of [1, 2, 3]) expect(node.arrivals(seq)).toBe(1);
      expect(node.requests()).toBe(3);
      // The client is still usable after it: the connection was replaced, not the client.
      node.setMode('ok');
      expect((await client.call(call(4))).outcome).toBe('ok');
    },
  );

  it('a server that reads each request and then drops the connection receives every request exactly once', async () => {
    const { node, client } = await setup('destroy-after-read', { connections: 4 });
    const results = await Promise.all(Array.from({ length: 40 }, (_, seq) => client.call(call(seq))));
    expect(results.map((r) => r.outcome)).toEqual(Array(40).fill('connection_error'));
    expect(Array.from({ length: 40 }, (_, seq) => node.arrivals(seq))).toEqual(Array(40).fill(1));
    expect(node.requests()).toBe(40);
  });

  it('a server closing a kept-alive connection as the next request arrives gets that request once: connection_error, not a resend', async () => {
    const { node, client } = await setup('close-on-reuse', { connections: 1 });
    const outcomes: string[] = [];
    // One connection, calls in sequence: odd calls arrive on a reused connection and are dropped.
    for (let seq = 0; seq < 10; seq++) outcomes.push((await client.call(call(seq))).outcome);
    expect(outcomes).toEqual(Array.from({ length: 10 }, (_, i) => (i % 2 === 0 ? 'ok' : 'connection_error')));
    expect(Array.from({ length: 10 }, (_, seq) => node.arrivals(seq))).toEqual(Array(10).fill(1));
    expect(node.connections()).toBe(5);
  });

  it('a server closing after every answer without notice: every request arrives exactly once', async () => {
    const { node, client } = await setup('close-after-answer', { connections: 2 });
    const results = await Promise.all(Array.from({ length: 30 }, (_, seq) => client.call(call(seq))));
    expect(results.filter((r) => r.outcome !== 'ok' && r.outcome !== 'connection_error')).toEqual([]);
    expect(results.some((r) => r.outcome === 'ok')).toBe(true);
    expect(Array.from({ length: 30 }, (_, seq) => node.arrivals(seq))).toEqual(Array(30).fill(1));
  });

  it('result() of a hostile answer throws a plain error naming the method, never a stack overflow', async () => {
    const { client } = await setup('deep');
    await expect(client.result('eth_blockNumber', [])).rejects.toThrow(/^eth_blockNumber failed: invalid_response$/);
  });

  it('holds response bytes within the budget shared by clients: large answers wait for each other, all complete', async () => {
    // 1 MiB of budget for 12 concurrent answers of 2 MiB over two clients: at most a few at a time.
    const budget = new ResponseBudget(1024 * 1024);
    const a = await setup('large-ok', { connections: 6, budget, timeoutMs: 20_000 });
    const b = await setup('large-ok', { connections: 6, budget, timeoutMs: 20_000 });
    const results = await Promise.all([
      ...Array.from({ length: 6 }, (_, seq) => a.client.call(call(seq))),
      ...Array.from({ length: 6 }, (_, seq) => b.client.call(call(seq))),
    ]);
    expect(results.map((r) => r.outcome)).toEqual(Array(12).fill('ok'));
    expect(budget.usedBytes).toBe(0);
    // Budget + one answer for the oldest holder + one socket read per paused answer.
    expect(budget.peakBytes).toBeLessThanOrEqual(budget.limitBytes + LARGE_OK_BYTES + 100 + 12 * 64 * 1024);
    expect(budget.peakBytes).toBeLessThan(12 * LARGE_OK_BYTES);
  });
});

describe('a run whose candidate answers 4,000-deep nesting, with a reference and correctness enabled', () => {
  let stack: Stack;
  let hostile: HostileNode;
  let reference: FakeNode;
  let worker: ChildProcess;
  let exits = 0;

  beforeAll(async () => {
    stack = await startStack({ worker: false });
    hostile = await startHostileNode('deep');
    reference = await startFakeNode(answers.ok('0x539'));
    worker = startWorkerProcess({ taskQueue: stack.taskQueue, secretKey: stack.config.secretKey! });
    worker.on('exit', () => exits++);
  });
  afterAll(async () => {
    if (worker && isRunning(worker)) await killHard(worker);
    await hostile?.close();
    await reference?.close();
    await stack?.close();
  });

  it('finishes with invalid_response samples, and the worker process stays alive', { timeout: 120_000 }, async () => {
    const { auth } = await stack.newTenant();
    const setup = await createSuite(stack.app, auth, {
      candidates: [hostile.url],
      reference: reference.url,
      config: {
        workload: { methods: [{ method: 'eth_chainId', params: [] }], requests_per_target: 30, concurrency: 3, warmup_requests: 0, timeout_ms: 5_000 },
        thresholds: { correctness_enabled: true, correctness_min_pct: 100 },
      },
    });
    const created = await post<{ id: string }>(stack.app, `/v1/suites/${setup.suiteId}/runs`, auth);
    expect(created.status).toBe(201);
    const run = await waitForRun(stack.app, auth, created.body.id, 90_000);

    expect(run.status, JSON.stringify(run.retry_history)).toBe('success');
    expect(run.retry_count).toBe(0);
    const candidateId = run.targets.find((t: { role: string }) => t.role === 'primary').id as string;
    const samples = await get<{ data: { outcome: string; reason: string | null }[] }>(stack.app, `/v1/runs/${run.id}/samples?limit=100&target_id=${candidateId}`, auth);
    expect(samples.status).toBe(200);
    expect(samples.body.data).toHaveLength(30);
    for (const sample of samples.body.data) {
      expect(sample).toMatchObject({ outcome: 'invalid_response', reason: INVALID_REASONS.tooDeep });
    }
    const referenceId = run.targets.find((t: { role: string }) => t.role === 'reference').id as string;
    const referenceSamples = await get<{ data: { outcome: string; reason: string | null }[] }>(stack.app, `/v1/runs/${run.id}/samples?limit=5&target_id=${referenceId}`, auth);
    expect(referenceSamples.body.data.map((s) => [s.outcome, s.reason])).toEqual(Array(5).fill(['ok', null]));
    expect(hostile.requests()).toBeGreaterThanOrEqual(30);
    expect(exits).toBe(0);
    expect(worker.exitCode).toBeNull();
  });
});
