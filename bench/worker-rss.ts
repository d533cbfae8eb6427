/**
 * npm run bench:worker-rss — a 1,000,000-call run through the real path: Temporal dev server,
 * fresh database, the worker as a child process started as `npm run worker` starts it
 * (`NODE_OPTIONS="--max-old-space-size=160 $NODE_OPTIONS" node --import tsx src/worker.ts`), a fast JSON-RPC server in
 * another child process, and the API (buildApp + inject) in this process to create the suite and
 * trigger the run. Samples the worker's RSS every 500 ms and reports peak RSS, duration and calls/s.
 * Everything is on 127.0.0.1; the benchmark aborts itself after 10 minutes.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../src/app';
import { generateApiKey, hashApiKeySecret } from '../src/auth/api-key';
import { SCOPES } from '../src/auth/scopes';
import { loadConfig } from '../src/config';
import { SecretBox } from '../src/crypto/secret-box';
import { insertApiKey } from '../src/db/api-keys';
import { createSql } from '../src/db/client';
import { ensureTenant } from '../src/db/tenants';
import { createLogger } from '../src/logger';
import { workerNodeOptions } from '../src/runtime/worker-heap';
import { resolveTemporalCli } from '../src/temporal/temporal-binary';
import { startDevServer, type DevServer } from '../src/temporal/dev-server';
import { freePort } from '../test/helpers/free-port';
import { createFreshDatabase, fmt, machineLine, startRpcServer, table, type FreshDatabase, type RpcServer } from './lib';

const CALLS = Number(process.env.BENCH_CALLS ?? 1_000_000);
const CONCURRENCY = 32;
const WARMUP = 10;
const ABORT_AFTER_MS = 10 * 60_000;
const RSS_EVERY_MS = 500;
const TARGET_PEAK_RSS_MB = 300;
const ROOT = path.resolve(__dirname, '..');
/** Node's arguments in package.json's "worker" script; the heap cap goes in NODE_OPTIONS (workerNodeOptions). */
const WORKER_NODE_ARGS = ['--import', 'tsx'];

// ---- /proc helpers (Linux) ----

function parentOf(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    return null;
  }
}

/** Every live descendant of `root` (children, grandchildren, …). */
function descendants(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const pid = Number(entry);
    const ppid = parentOf(pid);
    if (ppid === null) continue;
    children.set(ppid, [...(children.get(ppid) ?? []), pid]);
  }
  const found: number[] = [];
  const queue = [root];
  while (queue.length > 0) {
    for (const child of children.get(queue.shift()!) ?? []) {
      found.push(child);
      queue.push(child);
    }
  }
  return found;
}

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

interface Cleanup {
  worker?: ChildProcess;
  rpc?: RpcServer;
  db?: FreshDatabase;
  temporal?: DevServer;
  app?: FastifyInstance;
  closers: (() => Promise<void>)[];
}

/**
 * Stops the worker: one SIGTERM to its node process (a second SIGTERM would make the worker exit at
 * once instead of draining); SIGKILL to it and any child it still has after 15 s.
 * Only processes this benchmark started.
 */
async function stopWorker(worker: ChildProcess): Promise<void> {
  if (worker.exitCode !== null || worker.signalCode !== null) return;
  const tree = [worker.pid!, ...descendants(worker.pid!)];
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  worker.kill('SIGTERM');
  const timer = setTimeout(() => {
    for (const pid of tree) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
  }, 15_000);
  await exited;
  clearTimeout(timer);
}

async function cleanup(c: Cleanup): Promise<void> {
  const step = async (name: string, fn: () => Promise<unknown>) => {
    try {
      await fn();
    } catch (error) {
      console.error(`cleanup: ${name} failed: ${String(error)}`);
    }
  };
  if (c.worker) await step('worker', () => stopWorker(c.worker!));
  if (c.app) await step('api', () => c.app!.close());
  for (const close of c.closers.reverse()) await step('client', close);
  if (c.rpc) await step('rpc server', () => c.rpc!.close());
  if (c.temporal) await step('temporal', () => c.temporal!.stop());
  if (c.db) await step('database', () => c.db!.drop());
}

async function main(): Promise<void> {
  console.log(machineLine());
  const c: Cleanup = { closers: [] };
  let aborted = false;
  const watchdog = setTimeout(() => {
    aborted = true;
    console.error(`bench:worker-rss: still running after ${ABORT_AFTER_MS / 60_000} minutes; aborting`);
    void cleanup(c).finally(() => process.exit(2));
  }, ABORT_AFTER_MS);
  try {
    const cliPath = await resolveTemporalCli({
      cliPath: process.env.TEMPORAL_CLI_PATH,
      pathVariable: process.env.PATH,
      log: (line) => console.log(line),
    });
    c.temporal = await startDevServer({ cliPath, port: await freePort(), uiPort: null, dbFile: null, namespace: 'default', log: () => undefined });
    c.db = await createFreshDatabase('rvs_bench');
    c.rpc = await startRpcServer();
    console.log(`temporal ${c.temporal.address}, database ${c.db.name}, json-rpc server ${c.rpc.url} (pid ${c.rpc.pid})`);

    const env = {
      DATABASE_URL: c.db.url,
      TEMPORAL_ADDRESS: c.temporal.address,
      TEMPORAL_TASK_QUEUE: `bench-${randomUUID()}`,
      RVS_SECRET_KEY: randomBytes(32).toString('hex'),
      RVS_ALLOW_PRIVATE_TARGETS: 'true',
      LOG_LEVEL: 'warn',
    };
    // As `npm run worker` starts it (package.json): node itself, with tsx as a loader, no tsx parent
    // process. Only what the worker needs: PATH and HOME, and the service's own variables.
    c.worker = spawn(process.execPath, [...WORKER_NODE_ARGS, 'src/worker.ts'], {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? os.homedir(),
        ...env,
        // For experiments, e.g. BENCH_WORKER_NODE_OPTIONS=--max-old-space-size=128 (see docs/performance.md).
        NODE_OPTIONS: workerNodeOptions(process.env.BENCH_WORKER_NODE_OPTIONS),
      },
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    const workerExit = new Promise<string>((resolve) =>
      c.worker!.once('exit', (code, signal) => resolve(`worker exited (code ${code}, signal ${signal})`)),
    );

    // The API in this process, configured like the worker.
    const config = loadConfig({ ...env, LOG_LEVEL: 'silent', RVS_PUBLIC_URL: 'http://rvs.bench' });
    const sql = createSql(config.databaseUrl!);
    c.closers.push(() => sql.end({ timeout: 5 }));
    const connection = await Connection.connect({ address: config.temporal.address! });
    c.closers.push(() => connection.close());
    const temporal = new Client({ connection, namespace: config.temporal.namespace });
    c.app = buildApp({ config, sql, box: new SecretBox(config.secretKey!), temporal, jwt: null }, createLogger('silent', 'bench'));
    await c.app.ready();
    const app = c.app;

    const tenant = await ensureTenant(sql, `bench-${randomUUID()}`, 'Benchmark');
    const key = generateApiKey();
    await insertApiKey(sql, { tenantId: tenant.id, name: 'bench', prefix: key.prefix, secretHash: hashApiKeySecret(key.secret), scopes: SCOPES });
    const headers = { authorization: `Bearer ${key.key}` };
    const call = async <T>(method: 'GET' | 'POST', url: string, payload?: object): Promise<T> => {
      const response = await app.inject({ method, url, headers, ...(payload ? { payload } : {}) });
      if (response.statusCode >= 300) throw new Error(`${method} ${url}: ${response.statusCode} ${response.body}`);
      return response.json<T>();
    };
    const chain = await call<{ id: string }>('POST', '/v1/chains', { name: 'Bench', slug: `bench-${Date.now()}`, chain_id: 1337 });
    const endpoint = await call<{ id: string }>('POST', '/v1/endpoints', {
      chain_id: chain.id,
      name: 'fast local node',
      url: c.rpc.url,
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
    const readyBy = Date.now() + 120_000;
    for (;;) {
      const queue = await temporal.workflowService.describeTaskQueue({
        namespace: config.temporal.namespace,
        taskQueue: { name: config.temporal.taskQueue },
      });
      if ((queue.pollers ?? []).length > 0) break;
      if (c.worker.exitCode !== null) throw new Error(await workerExit);
      if (Date.now() > readyBy) throw new Error('the worker did not poll its task queue within 120 s');
      await new Promise((resolve) => setTimeout(resolve, 250));
    }

    // The worker is the spawned node process itself (its workflow-bundling child has exited by now).
    const workerPid = c.worker.pid!;
    const others = descendants(workerPid);
    console.log(`worker: node pid ${workerPid} (${commandLine(workerPid).slice(0, 80)}…), child processes: ${others.length}`);
    const idleRssKb = statusKb(workerPid, 'VmRSS') ?? 0;
    const cpuBefore = cpuSeconds(workerPid) ?? 0;
    const rpcCpuBefore = cpuSeconds(c.rpc.pid) ?? 0;

    const rss: { t: number; kb: number; treeKb: number }[] = [];
    const sampleRss = () => {
      const kb = statusKb(workerPid, 'VmRSS');
      if (kb === null) return;
      const treeKb = [c.worker!.pid!, ...descendants(c.worker!.pid!)].reduce((sum, pid) => sum + (statusKb(pid, 'VmRSS') ?? 0), 0);
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
      if (aborted) return;
      if (c.worker.exitCode !== null) throw new Error(await workerExit);
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
    const rpcCpu = (cpuSeconds(c.rpc.pid) ?? rpcCpuBefore) - rpcCpuBefore;

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
  } finally {
    clearTimeout(watchdog);
    if (!aborted) await cleanup(c);
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
