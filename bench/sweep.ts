/**
 * npm run bench:sweep — how far a capacity sweep keeps its schedule on the real path (issue 31
 * item 6, DESIGN §17): a sweep run through the API, the Temporal dev server, 1, 2 and 4 worker
 * processes (as `npm run worker` starts them) and their sample writes, against one fast loopback
 * JSON-RPC server (bench/rpc-server.ts, its own process), beside vegeta on the same server in the
 * same run. Each phase restarts the workers so that every step is split into two shards per worker
 * process (RVS_SWEEP_MAX_SHARDS = 2 × workers, a per-shard ceiling of 1 call/s); each process takes
 * its share of a step's shards and hands the rest back (docs/sweeps.md), so they spread evenly; a
 * phase starts once the previous phase's stopped processes no longer count as polling.
 *
 * Printed per phase and rate: the step's status, achieved rate, send-lag p99 (its worst shard's),
 * latency p99, vegeta's p99 at that rate and the ratio; then the highest step held with send-lag
 * p99 ≤ 1 ms per phase and the scale-out ratios. vegeta: $BENCH_VEGETA, else
 * ~/.cache/rvs/vegeta-v12.13.0/vegeta, else PATH (`go install github.com/tsenart/vegeta/v12@v12.13.0`);
 * without it the vegeta columns say so. bench:sweep-engine measures the bare engine (no Temporal,
 * no writes) the same way.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { POLLED_WITHIN_MS } from '../activities/probe-sweep-shard';
import { fmt, runBench, startRpcServer, startStack, startWorkerLike, stopWorker, table } from './lib';

const RATES = (process.env.BENCH_SWEEP_RATES ?? '500,1000,2000,3000,4000,6000').split(',').map(Number);
const STEP_S = Number(process.env.BENCH_SWEEP_STEP_S ?? 4);
const WORKER_COUNTS = (process.env.BENCH_SWEEP_WORKERS ?? '1,2,4').split(',').map(Number);
const LAG_P99_MAX_MS = 1;
/** BENCH_SWEEP_CPU_PROFILE_DIR: each probing worker writes a CPU profile (node --cpu-prof) there when it stops. */
const CPU_PROFILE_DIR = process.env.BENCH_SWEEP_CPU_PROFILE_DIR;
/** A sweep's own limit (PROBER_LAG_P99_MAX_MS): printed too, as a busy machine may hold no step at 1 ms. */
const SWEEP_LAG_P99_MAX_MS = 20;

interface Step {
  offered_rps: number;
  achieved_rps: number | null;
  status: string;
  reason: string;
  send_lag_p99_ms: number | null;
  latency_ms: { p99: { point: number } } | null;
}
interface VerdictBody {
  capacity?: { endpoints: { role: string; steps: Step[] }[] };
}

function vegetaPath(): string | null {
  const candidates = [process.env.BENCH_VEGETA, path.join(os.homedir(), '.cache', 'rvs', 'vegeta-v12.13.0', 'vegeta')].filter((p): p is string => Boolean(p));
  for (const p of candidates) if (existsSync(p)) return p;
  const which = spawnSync('sh', ['-c', 'command -v vegeta'], { encoding: 'utf8' });
  return which.status === 0 ? which.stdout.trim() : null;
}

/** vegeta attack at `rate` for STEP_S seconds on the same JSON-RPC call; its p99 in ms. */
async function vegetaP99(vegeta: string, url: string, rate: number, dir: string): Promise<number> {
  const body = path.join(dir, 'body.json');
  await writeFile(body, '{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber","params":[]}');
  const targets = path.join(dir, 'targets.txt');
  await writeFile(targets, `POST ${url}\nContent-Type: application/json\n@${body}\n`);
  const attack = spawn(vegeta, ['attack', `-targets=${targets}`, `-rate=${rate}/s`, `-duration=${STEP_S}s`, '-keepalive=true'], { stdio: ['ignore', 'pipe', 'inherit'] });
  const report = spawn(vegeta, ['report', '-type=json'], { stdio: ['pipe', 'pipe', 'inherit'] });
  attack.stdout.pipe(report.stdin);
  let out = '';
  report.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  await new Promise<void>((resolve) => report.once('exit', () => resolve()));
  const parsed = JSON.parse(out) as { latencies: { '99th': number }; success: number };
  return parsed.latencies['99th'] / 1e6;
}

/** Waits until `count` worker processes poll the activity queue (each bundles the workflows first). */
async function waitForPollers(stack: Awaited<ReturnType<typeof startStack>>, count: number): Promise<void> {
  const readyBy = Date.now() + 240_000;
  const started = Date.now();
  for (;;) {
    const queue = await stack.client.workflowService.describeTaskQueue({
      namespace: stack.config.temporal.namespace,
      taskQueue: { name: stack.config.temporal.taskQueue },
      taskQueueType: 2, // activity
    });
    // Pollers seen in the last minute: the previous phase's may still be listed, so only new ones count.
    const fresh = (queue.pollers ?? []).filter((p) => Number(p.lastAccessTime?.seconds ?? 0) * 1000 >= started - 1_000);
    // And until the stopped ones no longer count as polling for the shards' spread (POLLED_WITHIN_MS).
    const counted = (queue.pollers ?? []).filter((p) => Number(p.lastAccessTime?.seconds ?? 0) * 1000 >= Date.now() - POLLED_WITHIN_MS);
    if (new Set(fresh.map((p) => p.identity)).size >= count && new Set(counted.map((p) => p.identity)).size === count) return;
    if (Date.now() > readyBy) throw new Error(`${count} workers did not poll (alone) within 240 s`);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

runBench('bench:sweep', 20 * 60_000, async (parts, aborted) => {
  const node = await startRpcServer();
  parts.closers.push({ name: 'rpc node', close: () => node.close() });
  const stack = await startStack(parts);
  await stack.waitForWorker();
  const vegeta = vegetaPath();
  const dir = await mkdtemp(path.join(os.tmpdir(), 'rvs-bench-sweep-'));

  const chain = await stack.call<{ id: string }>('POST', '/v1/chains', { name: 'sweep bench', slug: `bench-sweep-${Date.now()}`, chain_id: 1337 });
  const endpoint = await stack.call<{ id: string }>('POST', '/v1/endpoints', { chain_id: chain.id, name: 'fast node', url: node.url, headers: {}, timeout_ms: 5_000 });
  const suite = await stack.call<{ id: string }>('POST', '/v1/suites', {
    chain_id: chain.id,
    name: 'sweep bench',
    config: {
      targets: [{ endpoint_id: endpoint.id }],
      workload: { methods: [{ method: 'eth_blockNumber' }], sweep: { rates: RATES, step_s: STEP_S, warmup_s: 1 }, warmup_requests: 0, timeout_ms: 5_000 },
      // Every rate is offered: the sweep goes on past steps whose send lag it would not credit (this
      // bench judges send-lag p99 ≤ 1 ms itself), and stops only once the prober is short of the rate.
      thresholds: { latency_p95_max_ms: 1_000, sweep_send_lag_max_pct: 10_000 },
    },
  });

  const rows: string[][] = [];
  const held = new Map<number, { strict: number; sweep: number }>();
  const vegetaByRate = new Map<number, number>();
  let workers: ChildProcess[] = [];
  for (const count of WORKER_COUNTS) {
    if (aborted()) break;
    // The phase's workers alone poll the queue (the stack's own is stopped): they run the workflow
    // and the shards, every step split into 2 × count of them.
    for (const w of workers) await stopWorker(w);
    if (parts.worker) await stopWorker(parts.worker);
    const env = { RVS_SWEEP_MAX_SHARDS: String(2 * count), RVS_SWEEP_SHARD_MAX_RPS: '1', RVS_WORKER_METRICS_PORT: '0' };
    workers = Array.from({ length: count }, () => startWorkerLike(stack, env, CPU_PROFILE_DIR ? ['--cpu-prof', `--cpu-prof-dir=${CPU_PROFILE_DIR}`] : []));
    parts.closers.push(...workers.map((w) => ({ name: 'probing worker', close: () => stopWorker(w) })));
    await waitForPollers(stack, count);
    const run = await stack.call<{ id: string }>('POST', `/v1/suites/${suite.id}/runs`);
    let verdict: VerdictBody | null = null;
    while (!verdict && !aborted()) {
      const response = await stack.request('GET', `/v1/runs/${run.id}/verdict?wait=30`);
      if (response.statusCode === 200) verdict = response.json<VerdictBody>();
      else if (response.statusCode !== 409) throw new Error(`verdict: ${response.statusCode} ${response.body}`);
    }
    const steps = verdict?.capacity?.endpoints.find((e) => e.role === 'primary')?.steps ?? [];
    const best = { strict: 0, sweep: 0 };
    for (const s of steps) {
      if (vegeta && !vegetaByRate.has(s.offered_rps)) vegetaByRate.set(s.offered_rps, await vegetaP99(vegeta, node.url, s.offered_rps, dir));
      const lag = s.send_lag_p99_ms;
      const sent = s.achieved_rps !== null && s.achieved_rps >= s.offered_rps * 0.99;
      if (sent && lag !== null && lag <= LAG_P99_MAX_MS) best.strict = Math.max(best.strict, s.offered_rps);
      if (sent && lag !== null && lag <= SWEEP_LAG_P99_MAX_MS) best.sweep = Math.max(best.sweep, s.offered_rps);
      const p99 = s.latency_ms?.p99.point ?? null;
      const vp99 = vegetaByRate.get(s.offered_rps);
      rows.push([
        `${count} worker${count > 1 ? 's' : ''}`,
        fmt(s.offered_rps),
        s.achieved_rps === null ? '—' : fmt(s.achieved_rps),
        `${s.status}${s.status === 'within' ? '' : ` (${s.reason})`}`,
        lag === null ? '—' : fmt(lag, 2),
        p99 === null ? '—' : fmt(p99, 2),
        vp99 === undefined ? (vegeta ? '—' : 'no vegeta') : fmt(vp99, 2),
        p99 === null || vp99 === undefined || vp99 === 0 ? '—' : `×${fmt(p99 / vp99, 1)}`,
      ]);
    }
    held.set(count, best);
  }
  console.log(table(['workers', 'offered rps', 'achieved', 'status', 'send-lag p99 ms (worst shard)', 'step p99 ms', 'vegeta p99 ms', 'step / vegeta'], rows));
  console.log('');
  const rate = (r: number) => (r > 0 ? `${fmt(r)} calls/s` : 'none');
  for (const [count, best] of held) {
    console.log(`${count} worker process${count > 1 ? 'es' : ''}: highest step held with send-lag p99 ≤ 1 ms ${rate(best.strict)}; with p99 ≤ 20 ms (a sweep's own limit) ${rate(best.sweep)}`);
  }
  const one = held.get(1) ?? { strict: 0, sweep: 0 };
  const ratio = (a: number, b: number) => (a > 0 ? fmt(b / a, 2) : 'n/a (one process held no step)');
  for (const [count, best] of held) if (count > 1) console.log(`scale-out ${count} / 1: at ≤ 1 ms ${ratio(one.strict, best.strict)}; at ≤ 20 ms ${ratio(one.sweep, best.sweep)}`);
  if (!vegeta) console.log('vegeta not found: go install github.com/tsenart/vegeta/v12@v12.13.0, or set BENCH_VEGETA');
});
