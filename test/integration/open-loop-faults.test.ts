import type { ChildProcess } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createSuite, post, waitForRun } from '../helpers/api';
import { freePort } from '../helpers/free-port';
import { answers, startFakeNode, type FakeNode } from '../helpers/json-rpc-node';
import { startStack, type Stack } from '../helpers/stack';
import { isRunning, killHard, startWorkerProcess, until } from '../helpers/worker-process';

/*
 * Faults of the probed endpoint in open loop at concurrency 64 (1,024 calls in flight at most),
 * against real worker processes with their production heap cap (160 MB): the worker must neither
 * die nor come near its cap, and the run must end exact (every seq once, none missing). Bounded:
 * each run is a few thousand calls and ends by itself.
 */

/** The heap bound the tests hold a worker to: well under its 160 MB cap (docs/operations.md, "Faults"). */
const HEAP_BOUND_MB = 110;

const workload = (calls: number, timeoutMs = 2_000) => ({
  requests_per_target: calls,
  rate_per_second: 1_000,
  concurrency: 64,
  warmup_requests: 0,
  timeout_ms: timeoutMs,
});

interface Worker {
  process: ChildProcess;
  /** Largest heap used the worker reported (nodejs_heap_size_used_bytes) since `mark`, MB. */
  peakHeapMb: () => number;
  /** The heap it reported at `mark` (or first), MB. */
  firstHeapMb: () => number;
  mark: () => void;
  stop: () => Promise<void>;
}

describe('open loop against a failing endpoint, on a real worker process', () => {
  let stack: Stack;
  /** One worker for the tests in turn (the last one kills it); started once, as starting one takes seconds. */
  let shared: Worker;
  const workers: Worker[] = [];
  const nodes: FakeNode[] = [];
  const servers: Server[] = [];

  beforeAll(async () => {
    stack = await startStack({ worker: false });
    shared = await startWorker();
  });
  afterEach(async () => {
    for (const node of nodes.splice(0)) await node.close();
    for (const server of servers.splice(0)) await new Promise((resolve) => server.close(resolve));
  });
  afterAll(async () => {
    for (const worker of workers.splice(0)) await worker.stop();
    await stack.close();
  });

  /**
   * A worker process with its metrics server on a port of its own, its heap read every 250 ms;
   * `ready` waits for its first reading.
   */
  async function startWorker(options: { ready: boolean } = { ready: true }): Promise<Worker> {
    const port = await freePort();
    const child = startWorkerProcess({
      taskQueue: stack.taskQueue,
      secretKey: stack.config.secretKey!,
      env: { RVS_WORKER_METRICS_PORT: String(port) },
    });
    let first = 0;
    let peak = 0;
    const sample = async () => {
      try {
        const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
        const match = /^nodejs_heap_size_used_bytes (\d+(?:\.\d+)?(?:e\+\d+)?)$/m.exec(text);
        if (match) {
          const mb = Number(match[1]) / 2 ** 20;
          if (first === 0) first = mb;
          peak = Math.max(peak, mb);
        }
      } catch {
        // not listening yet, or gone
      }
    };
    const sampler = setInterval(() => void sample(), 250);
    if (options.ready) await until(async () => (await sample(), first > 0), 30_000, 'worker metrics');
    const worker: Worker = {
      process: child,
      peakHeapMb: () => peak,
      firstHeapMb: () => first,
      mark: () => {
        peak = 0;
        first = 0;
        void sample();
      },
      stop: async () => {
        clearInterval(sampler);
        await killHard(child);
      },
    };
    workers.push(worker);
    return worker;
  }

  async function trigger(url: string, calls: number, timeoutMs?: number) {
    const { auth } = await stack.newTenant();
    const setup = await createSuite(stack.app, auth, {
      candidates: [url],
      config: { workload: workload(calls, timeoutMs), retry: { max_attempts: 3, initial_interval_ms: 200 } },
    });
    const created = await post<{ id: string }>(stack.app, `/v1/suites/${setup.suiteId}/runs`, auth);
    expect(created.status).toBe(201);
    return { auth, runId: created.body.id };
  }

  /** Every seq 0…calls − 1 once for the run's one target. */
  async function expectExact(runId: string, calls: number) {
    const [counts] = await stack.sql<{ n: number; distinct_seq: number; min_seq: number; max_seq: number }[]>`
      select count(*)::int as n, count(distinct seq)::int as distinct_seq, min(seq) as min_seq, max(seq) as max_seq
      from run_samples where run_id = ${runId}`;
    expect(counts).toEqual({ n: calls, distinct_seq: calls, min_seq: 0, max_seq: calls - 1 });
  }

  it('an endpoint refusing connections for 10 s, then answering: the worker lives, the run ends exact', { timeout: 60_000 }, async () => {
    const calls = 12_000;
    const worker = shared;
    worker.mark();
    const port = await freePort();
    const { auth, runId } = await trigger(`http://127.0.0.1:${port}`, calls);
    // Nobody listens on the port for 10 s: every connect is refused, with up to 1,024 calls
    // waiting for one of the 64 connections. Then the endpoint comes up.
    await new Promise((resolve) => setTimeout(resolve, 10_000));
    expect(isRunning(worker.process)).toBe(true);
    const server = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ jsonrpc: '2.0', id: (JSON.parse(body) as { id: unknown }).id, result: '0x1' }));
      });
    });
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));

    const run = await waitForRun(stack.app, auth, runId, 40_000);
    expect(isRunning(worker.process)).toBe(true);
    expect(run.status).toBe('success');
    expect(run.retry_count).toBe(0);
    expect(run.stats.calls.total).toBe(calls);
    await expectExact(runId, calls);
    const [outcomes] = await stack.sql<{ refused: number; ok: number }[]>`
      select count(*) filter (where outcome = 'connection_error')::int as refused, count(*) filter (where outcome = 'ok')::int as ok
      from run_samples where run_id = ${runId}`;
    expect(outcomes!.refused).toBeGreaterThan(2_000);
    expect(outcomes!.ok).toBeGreaterThan(0);
    expect(outcomes!.refused + outcomes!.ok).toBe(calls);
    console.log(`refusing endpoint: worker heap ${worker.firstHeapMb().toFixed(1)} → peak ${worker.peakHeapMb().toFixed(1)} MB; ${outcomes!.refused} refused, ${outcomes!.ok} ok`);
    expect(worker.peakHeapMb()).toBeLessThan(HEAP_BOUND_MB);
  });

  it('an endpoint taking 1.5 s per call (the loop falls behind): the worker stays under the heap bound, the run ends exact', { timeout: 60_000 }, async () => {
    // 64 connections × 1 call / 1.5 s ≈ 43 calls/s against a schedule of 1,000/s: the 1,024
    // in-flight slots fill in a second and every later call is overdue.
    const calls = 1_150;
    const node = await startFakeNode(answers.delay(1_500));
    nodes.push(node);
    const worker = shared;
    worker.mark();
    const { auth, runId } = await trigger(node.url, calls, 5_000);
    const run = await waitForRun(stack.app, auth, runId, 55_000);
    expect(isRunning(worker.process)).toBe(true);
    expect(run.status).toBe('success');
    expect(run.stats.calls.total).toBe(calls);
    expect(run.stats.calls.successful).toBe(calls);
    await expectExact(runId, calls);
    expect(node.requests).toHaveLength(calls);
    console.log(`1.5 s endpoint: worker heap ${worker.firstHeapMb().toFixed(1)} → peak ${worker.peakHeapMb().toFixed(1)} MB`);
    expect(worker.peakHeapMb()).toBeLessThan(HEAP_BOUND_MB);
  });

  it('a worker killed mid open-loop chunk at 1,000 calls/s: the retried chunk completes on another worker within its heap cap', { timeout: 60_000 }, async () => {
    const calls = 7_000;
    const node = await startFakeNode(answers.ok());
    nodes.push(node);
    const first = shared;
    const { auth, runId } = await trigger(node.url, calls);
    await until(() => node.requests.length >= 2_000, 30_000, '2,000 calls sent');
    await first.stop();
    // Starts while the chunk's heartbeat times out: the retry can only go to it.
    const second = await startWorker({ ready: false });
    const sentBeforeKill = node.requests.length;
    expect(sentBeforeKill).toBeLessThan(calls);

    // The chunk's heartbeat times out (15 s) and the retry resumes on the second worker, ~15 s
    // behind its schedule: it catches up at twice the rate, not in one burst.
    const run = await waitForRun(stack.app, auth, runId, 50_000);
    expect(isRunning(second.process)).toBe(true);
    expect(run.status).toBe('success');
    expect(run.retry_count).toBe(1);
    expect(run.stats.calls.total).toBe(calls);
    await expectExact(runId, calls);
    console.log(`worker killed: surviving worker heap ${second.firstHeapMb().toFixed(1)} → peak ${second.peakHeapMb().toFixed(1)} MB`);
    expect(second.peakHeapMb()).toBeLessThan(HEAP_BOUND_MB);
  });
});
