/**
 * npm run bench:worker-rss — a 1,000,000-call run through the real path: Temporal dev server,
 * fresh database, the worker as a child process started as `npm run worker` starts it
 * (`NODE_OPTIONS="--max-old-space-size=160 $NODE_OPTIONS" node --import tsx src/worker.ts`), a fast JSON-RPC server in
 * another child process, and the API (buildApp + inject) in this process to create the suite and
 * trigger the run. Samples the worker's RSS every 500 ms and reports peak RSS, duration and calls/s.
 * Everything is on 127.0.0.1; the benchmark aborts itself after 10 minutes.
 */
import { readFileSync } from 'node:fs';
import os from 'node:os';
import { descendants, fmt, runBench, startRpcServer, startStack, table } from './lib';

const CALLS = Number(process.env.BENCH_CALLS ?? 1_000_000);
const CONCURRENCY = 32;
const WARMUP = 10;
const ABORT_AFTER_MS = 10 * 60_000;
const RSS_EVERY_MS = 500;
const TARGET_PEAK_RSS_MB = 300;

// ---- /proc helpers (Linux) ----

/** A field of /proc/<pid>/status in kB (VmRSS, VmHWM), or null if the process is gone. */
function statusKb(pid: number, field: 'VmRSS' | 'VmHWM'): number | null {
  try {
    const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) : null;
  } catch {
    return null;
  }
}

function cpuSeconds(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return null;
  }
}

function commandLine(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim();
  } catch {
    return '';
  }
}

const mb = (kb: number) => kb / 1024;

// ---- the benchmark ----

runBench('bench:worker-rss', ABORT_AFTER_MS, async (parts, aborted) => {
  const rpcServer = await startRpcServer();
  parts.closers.push({ name: 'rpc server', close: () => rpcServer.close() });
  // For experiments, e.g. BENCH_WORKER_NODE_OPTIONS=--max-old-space-size=128 (see docs/performance.md).
  const stack = await startStack(parts, { workerNodeOptions: process.env.BENCH_WORKER_NODE_OPTIONS });
  const { call, sql, worker } = stack;
  console.log(`temporal ${stack.temporal.address}, database ${stack.db.name}, json-rpc server ${rpcServer.url} (pid ${rpcServer.pid})`);

  const chain = await call<{ id: string }>('POST', '/v1/chains', { name: 'Bench', slug: `bench-${Date.now()}`, chain_id: 1337 });
  const endpoint = await call<{ id: string }>('POST', '/v1/endpoints', {
    chain_id: chain.id,
    name: 'fast local node',
    url: rpcServer.url,
    headers: {},
    timeout_ms: 5_000,
  });
  const suite = await call<{ id: string }>('POST', '/v1/suites', {
    chain_id: chain.id,
    name: 'worker rss',
    config: {
      targets: [{ endpoint_id: endpoint.id }],
      workload: { requests_per_target: CALLS, concurrency: CONCURRENCY, warmup_requests: WARMUP, timeout_ms: 5_000 },
    },
  });

  // Wait until the worker polls its task queue, so its start-up (workflow bundling) is not timed.
  await stack.waitForWorker();

  // The worker is the spawned node process itself (its workflow-bundling child has exited by now).
  const workerPid = worker.pid!;
  const others = descendants(workerPid);
  console.log(`worker: node pid ${workerPid} (${commandLine(workerPid).slice(0, 80)}…), child processes: ${others.length}`);
  const idleRssKb = statusKb(workerPid, 'VmRSS') ?? 0;
  const cpuBefore = cpuSeconds(workerPid) ?? 0;
  const rpcCpuBefore = cpuSeconds(rpcServer.pid) ?? 0;

  const rss: { t: number; kb: number; treeKb: number }[] = [];
  const sampleRss = () => {
    const kb = statusKb(workerPid, 'VmRSS');
    if (kb === null) return;
    const treeKb = [worker.pid!, ...descendants(worker.pid!)].reduce((sum, pid) => sum + (statusKb(pid, 'VmRSS') ?? 0), 0);
    rss.push({ t: Date.now(), kb, treeKb });
  };
  sampleRss();
  const sampler = setInterval(sampleRss, RSS_EVERY_MS);

  const started = Date.now();
  const run = await call<{ id: string }>('POST', `/v1/suites/${suite.id}/runs`);
  console.log(`run ${run.id}: ${fmt(CALLS)} calls, concurrency ${CONCURRENCY}, warm-up ${WARMUP}, closed loop`);
  if (process.env.BENCH_WORKER_NODE_OPTIONS) console.log(`worker NODE_OPTIONS: ${process.env.BENCH_WORKER_NODE_OPTIONS}`);

  // Status from the runs row each second (cheap); the API's progress (which counts samples) every 15 s.
  let status = 'queued';
  let lastProgress = Date.now();
  const terminal = ['success', 'failed', 'cancelled'];
  while (!terminal.includes(status)) {
    if (aborted()) return;
    await stack.assertWorkerRunning();
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const [row] = await sql<{ status: string }[]>`select status from runs where id = ${run.id}`;
    status = row!.status;
    if (Date.now() - lastProgress >= 15_000) {
      lastProgress = Date.now();
      const body = await call<{ progress: { calls_done: number } }>('GET', `/v1/runs/${run.id}`);
      const latest = rss.at(-1);
      console.log(
        `  ${fmt((Date.now() - started) / 1000)} s: ${fmt(body.progress.calls_done)} calls, worker RSS ${fmt(mb(latest?.kb ?? 0))} MB`,
      );
    }
  }
  const wallSeconds = (Date.now() - started) / 1000;
  clearInterval(sampler);
  sampleRss();
  const hwmKb = statusKb(workerPid, 'VmHWM');
  const workerCpu = (cpuSeconds(workerPid) ?? cpuBefore) - cpuBefore;
  const rpcCpu = (cpuSeconds(rpcServer.pid) ?? rpcCpuBefore) - rpcCpuBefore;

  const body = await call<{
    status: string;
    started_at: string | null;
    finished_at: string | null;
    stats: { calls: { total: number; successful: number; failed: number }; latency: { all: { p50_ms: number; p95_ms: number; p99_ms: number } } };
    progress: { calls_done: number };
    retry_count: number;
  }>('GET', `/v1/runs/${run.id}`);
  const runSeconds =
    body.started_at && body.finished_at ? (Date.parse(body.finished_at) - Date.parse(body.started_at)) / 1000 : Number.NaN;
  const peak = rss.reduce((m, s) => (s.kb > m.kb ? s : m), rss[0]!);
  const peakTree = Math.max(...rss.map((s) => s.treeKb));
  const totalOk = body.stats.calls.total === CALLS;

  console.log('');
  console.log(
    table(
      ['metric', 'value'],
      [
        ['run status', body.status],
        ['stats.calls.total', `${fmt(body.stats.calls.total)} (${totalOk ? 'exactly' : 'NOT'} ${fmt(CALLS)})`],
        ['stats.calls successful / failed', `${fmt(body.stats.calls.successful)} / ${fmt(body.stats.calls.failed)}`],
        ['samples stored (progress.calls_done)', fmt(body.progress.calls_done)],
        ['activity retries', fmt(body.retry_count)],
        ['duration, trigger → success seen (s)', fmt(wallSeconds, 1)],
        ['duration, run started_at → finished_at (s)', fmt(runSeconds, 1)],
        ['calls/s (trigger → success seen)', fmt(CALLS / wallSeconds)],
        ['calls/s (started_at → finished_at)', fmt(CALLS / runSeconds)],
        ['latency p50 / p95 / p99 (ms, all calls)', `${body.stats.latency.all.p50_ms} / ${body.stats.latency.all.p95_ms} / ${body.stats.latency.all.p99_ms}`],
        ['worker RSS idle, before the run (MB)', fmt(mb(idleRssKb), 1)],
        [`worker RSS peak, sampled every ${RSS_EVERY_MS} ms (MB)`, `${fmt(mb(peak.kb), 1)} at ${fmt((peak.t - started) / 1000, 1)} s`],
        ['worker VmHWM, kernel high-water mark (MB)', hwmKb === null ? 'n/a' : fmt(mb(hwmKb), 1)],
        ['worker RSS at the end (MB)', fmt(mb(rss.at(-1)!.kb), 1)],
        ['worker process tree RSS peak (MB)', fmt(mb(peakTree), 1)],
        ['RSS samples', fmt(rss.length)],
        ['worker CPU during the run (s, % of one core)', `${fmt(workerCpu, 1)} (${fmt((workerCpu / wallSeconds) * 100)}%)`],
        ['json-rpc server CPU during the run (s, % of one core)', `${fmt(rpcCpu, 1)} (${fmt((rpcCpu / wallSeconds) * 100)}%)`],
      ],
    ),
  );
  console.log('');
  const worst = Math.max(peak.kb, hwmKb ?? 0);
  console.log(`target: worker peak RSS ≤ ${TARGET_PEAK_RSS_MB} MB → ${fmt(mb(worst), 1)} MB ${mb(worst) <= TARGET_PEAK_RSS_MB ? 'MET' : 'MISSED'}`);
  console.log(`check: stats.calls.total === ${fmt(CALLS)} → ${totalOk ? 'OK' : 'FAILED'}`);
  console.log(`load average at the end: ${os.loadavg().map((l) => fmt(l, 2)).join(' ')}`);
  if (!totalOk || body.status !== 'success') process.exitCode = 1;
});
