import type { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INVALID_REASONS } from '../../src/probe/classify-response';
import { get, post } from '../helpers/api';
import { startHostileNode, type HostileMode, type HostileNode } from '../helpers/hostile-node';
import { startHostileWsNode, type HostileWsMode, type HostileWsNode } from '../helpers/hostile-ws-node';
import { freePort } from '../helpers/free-port';
import { startStack, type Stack } from '../helpers/stack';
import { isRunning, killHard, startWorkerProcess } from '../helpers/worker-process';

/*
 * Issue 30: one hostile endpoint must never kill or freeze the shared worker. Each case runs a real
 * run through the API, Temporal and ONE worker process started as `npm run worker` starts it (its
 * 160 MB heap cap included), against a loopback node answering with hostile bytes. Each ends on its
 * own, the worker's pid is the same at the end (it never died), and its RSS is sampled throughout.
 * Before the fix each of these killed the worker (heap limit) or held it, so its run never ended.
 */

type Json = Record<string, any>;

describe('a run against a hostile node, on one worker process with the production heap cap', () => {
  let stack: Stack;
  let worker: ChildProcess;
  let pid: number;
  let exits = 0;
  let maxRssKb = 0;
  let sampler: NodeJS.Timeout;
  let heapSampler: NodeJS.Timeout;
  const heapUsedMb: number[] = [];
  const nodes: { close(): Promise<void> }[] = [];

  beforeAll(async () => {
    stack = await startStack({ worker: false });
    const metricsPort = await freePort();
    worker = startWorkerProcess({ taskQueue: stack.taskQueue, secretKey: stack.config.secretKey!, env: { RVS_WORKER_METRICS_PORT: String(metricsPort) } });
    // The V8 heap in use, from the worker's own metrics (for the report: what the start-up heap plan assumes).
    heapSampler = setInterval(() => {
      fetch(`http://127.0.0.1:${metricsPort}/metrics`)
        .then((response) => response.text())
        .then((text) => {
          const used = /^nodejs_heap_size_used_bytes (\S+)$/m.exec(text);
          if (used) heapUsedMb.push(Number(used[1]) / 2 ** 20);
        })
        .catch(() => undefined);
    }, 1_000);
    pid = worker.pid!;
    worker.on('exit', () => exits++);
    sampler = setInterval(() => {
      try {
        const rss = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
        if (rss) maxRssKb = Math.max(maxRssKb, Number(rss[1]));
      } catch {
        // The process is gone: the pid check reports it.
      }
    }, 100);
  }, 120_000);
  afterAll(async () => {
    clearInterval(sampler);
    clearInterval(heapSampler);
    const heap = heapUsedMb.length === 0 ? 'no heap reads' : `V8 heap used: first read ${heapUsedMb[0]!.toFixed(1)} MiB, min ${Math.min(...heapUsedMb).toFixed(1)}, max ${Math.max(...heapUsedMb).toFixed(1)} MiB`;
    console.log(`hostile answers: worker pid ${pid}, exits ${exits}, max RSS ${(maxRssKb / 1024).toFixed(1)} MiB; ${heap}`);
    if (worker && isRunning(worker)) await killHard(worker);
    for (const node of nodes) await node.close();
    await stack?.close();
  });

  async function httpNode(mode: HostileMode): Promise<HostileNode> {
    const node = await startHostileNode(mode);
    nodes.push(node);
    return node;
  }
  async function wsNode(mode: HostileWsMode): Promise<HostileWsNode> {
    const node = await startHostileWsNode(mode);
    nodes.push(node);
    return node;
  }

  /** A chain, the endpoints and a suite of `config`, a run triggered; its id and the endpoints' ids. */
  async function runAgainst(endpoints: { url: string; ws_url?: string }[], config: (ids: string[]) => Json) {
    const { auth } = await stack.newTenant();
    const chain = await post<{ id: string }>(stack.app, '/v1/chains', auth, { name: 'Local', slug: `local-${Date.now()}-${Math.random().toString(36).slice(2)}`, chain_id: 1337 });
    const ids: string[] = [];
    for (const [i, endpoint] of endpoints.entries()) {
      const created = await post<{ id: string }>(stack.app, '/v1/endpoints', auth, { chain_id: chain.body.id, name: `node ${i}`, timeout_ms: 5_000, ...endpoint });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      ids.push(created.body.id);
    }
    const suite = await post<{ id: string }>(stack.app, '/v1/suites', auth, { chain_id: chain.body.id, name: 'hostile', config: { retry: { max_attempts: 2, initial_interval_ms: 200 }, ...config(ids) } });
    expect(suite.status, JSON.stringify(suite.body)).toBe(201);
    const created = await post<{ id: string }>(stack.app, `/v1/suites/${suite.body.id}/runs`, auth);
    expect(created.status).toBe(201);
    const finished = await untilTerminal(auth, created.body.id);
    return { run: finished, auth, ids };
  }

  /** Polls the run until it is terminal; fails at once when the worker died (it is never restarted here). */
  async function untilTerminal(auth: { authorization: string }, runId: string, timeoutMs = 120_000): Promise<Json> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const run = await get<Json>(stack.app, `/v1/runs/${runId}`, auth);
      if (['success', 'failed', 'cancelled'].includes(run.body.status)) return run.body;
      if (!isRunning(worker)) throw new Error(`the worker died (exits: ${exits}) while run ${runId} was ${run.body.status}`);
      if (Date.now() > deadline) throw new Error(`run ${runId} still ${run.body.status} after ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }

  async function samplesOf(auth: { authorization: string }, runId: string, targetId: string): Promise<{ outcome: string; reason: string | null }[]> {
    const samples = await get<{ data: { outcome: string; reason: string | null }[] }>(stack.app, `/v1/runs/${runId}/samples?limit=100&target_id=${targetId}`, auth);
    expect(samples.status).toBe(200);
    return samples.body.data;
  }

  const targetOf = (run: Json, endpointId: string): string => run.targets.find((t: Json) => t.endpoint_id === endpointId).id as string;

  function expectWorkerAlive(): void {
    expect(exits).toBe(0);
    expect(isRunning(worker)).toBe(true);
    expect(worker.pid).toBe(pid);
  }

  const workload = (extra: Json = {}) => ({ methods: [{ method: 'eth_chainId', params: [] }], requests_per_target: 20, concurrency: 4, warmup_requests: 0, timeout_ms: 5_000, ...extra });

  it("two tenants on one worker: B's verdict is the same with and without A's value-dense node running", { timeout: 300_000 }, async () => {
    const honest = await wsNode('ok');
    const hostile = await httpNode('value-dense');
    const tenantB = () =>
      runAgainst([{ url: honest.url }], (e) => ({
        targets: [{ endpoint_id: e[0] }],
        workload: workload({ requests_per_target: 40 }),
        thresholds: { success_rate_min_pct: 100, latency_p95_max_ms: 5_000 },
      }));
    const verdictOf = async ({ run, auth }: { run: Json; auth: { authorization: string } }) => {
      const verdict = await get<Json>(stack.app, `/v1/runs/${run.id}/verdict`, auth);
      expect(verdict.status).toBe(200);
      return { verdict: verdict.body.verdict, checks: (verdict.body.checks as Json[]).map((c) => [c.name, c.status]) };
    };
    const alone = await verdictOf(await tenantB());
    const [withA, a] = await Promise.all([
      tenantB().then(verdictOf),
      runAgainst([{ url: hostile.url }], (e) => ({ targets: [{ endpoint_id: e[0] }], workload: workload({ requests_per_target: 40 }) })),
    ]);
    console.log(`two tenants: B alone ${JSON.stringify(alone)}, B beside A ${JSON.stringify(withA)}; A ${a.run.status}`);
    expect(alone.verdict).toBe('pass');
    expect(withA).toEqual(alone);
    expect(a.run.status).toBe('success');
    expectWorkerAlive();
  });

  it('H1 over HTTP: answers of 8 MiB of [{},…] are invalid_response (too dense), never parsed', { timeout: 150_000 }, async () => {
    const node = await httpNode('value-dense');
    const { run, auth, ids } = await runAgainst([{ url: node.url }], (e) => ({ targets: [{ endpoint_id: e[0] }], workload: workload() }));
    expect(run.status, run.failure_reason).toBe('success');
    const samples = await samplesOf(auth, run.id, targetOf(run, ids[0]!));
    expect(samples).toHaveLength(20);
    expect(new Set(samples.map((s) => `${s.outcome}: ${s.reason}`))).toEqual(new Set([`invalid_response: ${INVALID_REASONS.tooDense}`]));
    expectWorkerAlive();
  });

  it('H1 over HTTP batches: a batch answered with 8 MiB of [{},…] fails its calls as too dense', { timeout: 150_000 }, async () => {
    const node = await httpNode('value-dense');
    const { run, auth, ids } = await runAgainst([{ url: node.url }], (e) => ({ targets: [{ endpoint_id: e[0] }], workload: workload({ batch_size: 5 }) }));
    expect(run.status, run.failure_reason).toBe('success');
    const samples = await samplesOf(auth, run.id, targetOf(run, ids[0]!));
    expect(samples).toHaveLength(20);
    expect(new Set(samples.map((s) => `${s.outcome}: ${s.reason}`))).toEqual(new Set([`invalid_response: ${INVALID_REASONS.tooDense}`]));
    expectWorkerAlive();
  });

  it('H1 over WebSocket: a value-dense result is invalid_response (too dense), and one matching no request is dropped', { timeout: 150_000 }, async () => {
    const denseResult = await wsNode('dense-result');
    const denseUnmatched = await wsNode('dense-unmatched');
    const { run, auth, ids } = await runAgainst(
      [
        { url: denseResult.url, ws_url: denseResult.wsUrl },
        { url: denseUnmatched.url, ws_url: denseUnmatched.wsUrl },
      ],
      (e) => ({ targets: [{ endpoint_id: e[0] }, { endpoint_id: e[1] }], workload: workload({ transport: 'ws', requests_per_target: 10 }) }),
    );
    expect(run.status, run.failure_reason).toBe('success');
    const dense = await samplesOf(auth, run.id, targetOf(run, ids[0]!));
    expect(dense).toHaveLength(10);
    expect(new Set(dense.map((s) => `${s.outcome}: ${s.reason}`))).toEqual(new Set([`invalid_response: ${INVALID_REASONS.tooDense}`]));
    const unmatched = await samplesOf(auth, run.id, targetOf(run, ids[1]!));
    expect(unmatched.map((s) => s.outcome)).toEqual(Array(10).fill('ok'));
    expectWorkerAlive();
  });

  it('H2: 200 early notifications of 255 KB [{},…] before the subscription answer cost the watch no more than its text cap', { timeout: 150_000 }, async () => {
    const candidate = await wsNode('early-flood');
    const reference = await wsNode('ok');
    const { run, ids } = await runAgainst(
      [
        { url: candidate.url, ws_url: candidate.wsUrl },
        { url: reference.url, ws_url: reference.wsUrl },
      ],
      (e) => ({
        targets: [{ endpoint_id: e[0] }],
        reference_endpoint_id: e[1],
        workload: workload({ methods: [{ method: 'eth_blockNumber', params: [] }], requests_per_target: 5, concurrency: 1 }),
        freshness: { duration_s: 8, grace_ms: 1_500 },
      }),
    );
    expect(run.status, run.failure_reason).toBe('success');
    // The watches ran beside the flood: the reference's heads were received.
    const heads = async (endpointId: string) =>
      (await stack.sql<{ count: number }[]>`select count(*)::int as count from run_head_arrivals where run_id = ${run.id} and target_id = ${targetOf(run, endpointId)}`)[0]!.count;
    const [candidateHeads, referenceHeads] = [await heads(ids[0]!), await heads(ids[1]!)];
    console.log(`H2: heads received from the flooding candidate ${candidateHeads}, from the reference ${referenceHeads}`);
    expect(referenceHeads).toBeGreaterThan(0);
    expectWorkerAlive();
  });

  it('H4: an eth_blockNumber of "0x" + 4,000,000 × f is no head, and costs no decimal formatting', { timeout: 150_000 }, async () => {
    const node = await httpNode('huge-hex');
    const { run, ids } = await runAgainst([{ url: node.url }], (e) => ({ targets: [{ endpoint_id: e[0] }], workload: workload({ methods: [{ method: 'eth_blockNumber', params: [] }], requests_per_target: 10 }) }));
    expect(run.status, run.failure_reason).toBe('success');
    const [heads] = await stack.sql<{ count: number }[]>`select count(*)::int as count from run_heads where run_id = ${run.id} and target_id = ${targetOf(run, ids[0]!)}`;
    expect(heads!.count).toBe(0);
    // Before, the head read's 4.8-million-digit decimal was written, refused by Postgres (bigint out
    // of range), and the chunk failed and was retried.
    expect({ retries: run.retry_count, history: run.retry_history }).toEqual({ retries: 0, history: [] });
    expectWorkerAlive();
  });

  it('INFO: endless zero-length continuation frames close the socket (fragment cap); the calls fail, the run ends', { timeout: 150_000 }, async () => {
    const node = await wsNode('zero-continuations');
    const { run, auth, ids } = await runAgainst([{ url: node.url, ws_url: node.wsUrl }], (e) => ({ targets: [{ endpoint_id: e[0] }], workload: workload({ transport: 'ws', requests_per_target: 10, concurrency: 2 }) }));
    expect(run.status, run.failure_reason).toBe('success');
    const samples = await samplesOf(auth, run.id, targetOf(run, ids[0]!));
    expect(samples).toHaveLength(10);
    expect(samples.filter((s) => s.outcome === 'ok')).toEqual([]);
    expectWorkerAlive();
  });
});
