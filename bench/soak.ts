/**
 * npm run bench:soak — a long probe campaign through the real stack (issue 13 item 5): a suite
 * bound by `duration_s` (SOAK_DURATION_S, default 3600) at `rate_per_second` (SOAK_RATE, default 50,
 * open loop) on a candidate and a reference — two loopback JSON-RPC servers (bench/rpc-server.ts),
 * each in its own process — with a Temporal dev server of its own, a fresh PostgreSQL database,
 * and the API (`src/server.ts`) and the worker (`src/worker.ts`, as `npm run worker` starts it)
 * as separate processes. The run is created and triggered over HTTP.
 *
 * Reports: calls recorded vs planned per target (and, by SQL, that each target's seq numbers have
 * no gap and no duplicate), how many times the run's workflow continued as new, the largest
 * history of one of its executions, the worker's RSS (/proc/<pid>/status VmRSS) at the start,
 * the middle and the end, and the verdict.
 *
 * SOAK_KILL_WORKER=1: at the middle of the campaign the worker is killed (SIGKILL, its whole
 * process group) and a new one is started SOAK_RESTART_AFTER_S (default 10) seconds later.
 * SOAK_LOG=<file>: progress lines are appended to that file too (they always go to stdout).
 * Everything is on 127.0.0.1; the bench aborts itself 20 minutes after the campaign should end.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { appendFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { generateApiKey } from '../src/auth/api-key';
import { createSql, type Sql } from '../src/db/client';
import { workerNodeOptions } from '../src/runtime/worker-heap';
import { resolveTemporalCli } from '../src/temporal/temporal-binary';
import { workflowIdForRun } from '../src/temporal/constants';
import { startDevServer, type DevServer } from '../src/temporal/dev-server';
import { freePort } from '../test/helpers/free-port';
import { createFreshDatabase, fmt, machineLine, startRpcServer, table, type FreshDatabase, type RpcServer } from './lib';

const DURATION_S = Number(process.env.SOAK_DURATION_S ?? 3600);
const RATE = Number(process.env.SOAK_RATE ?? 50);
const KILL_WORKER = ['1', 'true', 'yes'].includes(process.env.SOAK_KILL_WORKER ?? '');
const RESTART_AFTER_S = Number(process.env.SOAK_RESTART_AFTER_S ?? 10);
const PROGRESS_EVERY_MS = Number(process.env.SOAK_PROGRESS_EVERY_S ?? 60) * 1000;
const CONCURRENCY = 8;
const ABORT_AFTER_MS = (DURATION_S + 20 * 60) * 1000;
const ROOT = path.resolve(__dirname, '..');
const LOG_FILE = process.env.SOAK_LOG;

function log(line = ''): void {
  const stamped = line === '' ? '' : `[${new Date().toISOString()}] ${line}`;
  console.log(stamped);
  if (LOG_FILE) appendFileSync(LOG_FILE, `${stamped}\n`);
}

/** VmRSS of a process in kB, or null once it is gone. */
function rssKb(pid: number): number | null {
  try {
    const match = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) : null;
  } catch {
    return null;
  }
}
const mb = (kb: number | null) => (kb === null ? 'n/a' : fmt(kb / 1024, 1));

function isRunning(child: ChildProcess): boolean {
  return child.exitCode === null && child.signalCode === null;
}

/** SIGKILL to the child's process group (it was started detached): only what this bench started. */
function killGroup(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (!isRunning(child)) return resolve();
    child.once('exit', () => resolve());
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      resolve();
    }
  });
}

/** SIGTERM (graceful), SIGKILL to the group after 15 s. */
async function stopGroup(child: ChildProcess): Promise<void> {
  if (!isRunning(child)) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => void killGroup(child), 15_000);
  await exited;
  clearTimeout(timer);
}

interface Cleanup {
  workers: ChildProcess[];
  api?: ChildProcess;
  rpcs: RpcServer[];
  db?: FreshDatabase;
  temporal?: DevServer;
  dataDir?: string;
  closers: (() => Promise<void>)[];
}

async function cleanup(c: Cleanup): Promise<void> {
  const step = async (name: string, fn: () => Promise<unknown>) => {
    try {
      await fn();
    } catch (error) {
      log(`cleanup: ${name} failed: ${String(error)}`);
    }
  };
  for (const worker of c.workers) await step('worker', () => stopGroup(worker));
  if (c.api) await step('api', () => stopGroup(c.api!));
  for (const close of c.closers.reverse()) await step('client', close);
  for (const rpc of c.rpcs) await step('rpc server', () => rpc.close());
  if (c.temporal) await step('temporal', () => c.temporal!.stop());
  if (c.db && !process.env.SOAK_KEEP_DATABASE) await step('database', () => c.db!.drop());
  if (c.dataDir) rmSync(c.dataDir, { recursive: true, force: true });
}

async function main(): Promise<void> {
  log(`bench:soak: duration_s ${DURATION_S}, ${RATE} calls/s open loop on the candidate and on the reference, concurrency ${CONCURRENCY}, worker kill at the middle: ${KILL_WORKER ? `yes (restart after ${RESTART_AFTER_S} s)` : 'no'}`);
  log(machineLine());
  const c: Cleanup = { workers: [], rpcs: [], closers: [] };
  let aborted = false;
  const watchdog = setTimeout(() => {
    aborted = true;
    log(`bench:soak: still running ${ABORT_AFTER_MS / 60_000} minutes after the start; aborting`);
    void cleanup(c).finally(() => process.exit(2));
  }, ABORT_AFTER_MS);
  try {
    const cliPath = await resolveTemporalCli({ cliPath: process.env.TEMPORAL_CLI_PATH, pathVariable: process.env.PATH, log });
    c.temporal = await startDevServer({ cliPath, port: await freePort(), uiPort: null, dbFile: null, namespace: 'default', log: () => undefined });
    c.db = await createFreshDatabase('rvs_soak');
    const candidate = await startRpcServer();
    c.rpcs.push(candidate);
    const reference = await startRpcServer();
    c.rpcs.push(reference);
    c.dataDir = mkdtempSync(path.join(os.tmpdir(), 'rvs-soak-'));
    log(`temporal ${c.temporal.address}, database ${c.db.name}, candidate ${candidate.url} (pid ${candidate.pid}), reference ${reference.url} (pid ${reference.pid})`);

    const apiKey = generateApiKey().key;
    const apiPort = await freePort();
    const env = {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? os.homedir(),
      DATABASE_URL: c.db.url,
      TEMPORAL_ADDRESS: c.temporal.address,
      TEMPORAL_TASK_QUEUE: `soak-${randomUUID()}`,
      RVS_SECRET_KEY: randomBytes(32).toString('hex'),
      RVS_ALLOW_PRIVATE_TARGETS: 'true',
      RVS_DATA_DIR: c.dataDir,
      LOG_LEVEL: 'warn',
      // Two soaks may run at once: no fixed metrics ports.
      RVS_API_METRICS_PORT: '0',
      RVS_WORKER_METRICS_PORT: '0',
    };
    // As `npm run api` / `npm run worker` start them: node with tsx as a loader; each in its own
    // process group, so a SIGKILL takes all of it.
    c.api = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], {
      cwd: ROOT,
      detached: true,
      env: { ...env, PORT: String(apiPort), HOST: '127.0.0.1', RVS_BOOTSTRAP_API_KEY: apiKey, RVS_PUBLIC_URL: 'http://rvs.soak' },
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    const startWorker = (): ChildProcess => {
      const worker = spawn(process.execPath, ['--import', 'tsx', 'src/worker.ts'], {
        cwd: ROOT,
        detached: true,
        env: { ...env, NODE_OPTIONS: workerNodeOptions(undefined) },
        stdio: ['ignore', 'inherit', 'inherit'],
      });
      c.workers.push(worker);
      return worker;
    };
    let worker = startWorker();

    const connection = await Connection.connect({ address: c.temporal.address });
    c.closers.push(() => connection.close());
    const temporal = new Client({ connection, namespace: 'default' });
    const sql: Sql = createSql(c.db.url, { max: 2 });
    c.closers.push(() => sql.end({ timeout: 5 }));

    const base = `http://127.0.0.1:${apiPort}`;
    const headers = { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' };
    const call = async <T>(method: 'GET' | 'POST', url: string, payload?: object): Promise<T> => {
      const response = await fetch(`${base}${url}`, {
        method,
        headers: payload ? headers : { authorization: headers.authorization },
        ...(payload ? { body: JSON.stringify(payload) } : {}),
      });
      const text = await response.text();
      if (response.status >= 300) throw new Error(`${method} ${url}: ${response.status} ${text}`);
      return JSON.parse(text) as T;
    };

    // The API answers once it has migrated and bootstrapped the key; the worker once it polls.
    const readyBy = Date.now() + 180_000;
    for (;;) {
      if (!isRunning(c.api)) throw new Error('the API process exited during start-up');
      const ok = await fetch(`${base}/v1/chains`, { headers: { authorization: headers.authorization } })
        .then((r) => r.status === 200)
        .catch(() => false);
      if (ok) break;
      if (Date.now() > readyBy) throw new Error('the API did not answer within 180 s');
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    const waitForPoller = async (w: ChildProcess) => {
      const by = Date.now() + 180_000;
      for (;;) {
        if (!isRunning(w)) throw new Error('the worker exited during start-up');
        const queue = await temporal.workflowService.describeTaskQueue({ namespace: 'default', taskQueue: { name: env.TEMPORAL_TASK_QUEUE } });
        if ((queue.pollers ?? []).some((p) => p.identity?.startsWith(`${w.pid}@`))) return;
        if (Date.now() > by) throw new Error('the worker did not poll its task queue within 180 s');
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
    };
    await waitForPoller(worker);
    log(`api pid ${c.api.pid} on ${base}, worker pid ${worker.pid}`);

    const chain = await call<{ id: string }>('POST', '/v1/chains', { name: 'Soak', slug: `soak-${Date.now()}`, chain_id: 1337 });
    const endpoint = (name: string, url: string) =>
      call<{ id: string }>('POST', '/v1/endpoints', { chain_id: chain.id, name, url, headers: {}, timeout_ms: 5_000 });
    const candidateEndpoint = await endpoint('soak candidate', candidate.url);
    const referenceEndpoint = await endpoint('soak reference', reference.url);
    const suite = await call<{ id: string }>('POST', '/v1/suites', {
      chain_id: chain.id,
      name: 'soak',
      config: {
        targets: [{ endpoint_id: candidateEndpoint.id }],
        reference_endpoint_id: referenceEndpoint.id,
        baseline: { mode: 'none' },
        workload: { duration_s: DURATION_S, rate_per_second: RATE, concurrency: CONCURRENCY, warmup_requests: 5, timeout_ms: 5_000 },
      },
    });

    const rss: { label: string; pid: number; kb: number | null }[] = [];
    const sampleRss = (label: string, w: ChildProcess) => {
      const kb = rssKb(w.pid!);
      rss.push({ label, pid: w.pid!, kb });
      log(`worker RSS ${label}: ${mb(kb)} MB (pid ${w.pid})`);
    };
    sampleRss('start (idle, polling)', worker);

    const triggered = Date.now();
    const run = await call<{ id: string }>('POST', `/v1/suites/${suite.id}/runs`);
    log(`run ${run.id} triggered (workflow ${workflowIdForRun(run.id)})`);
    const middleAt = triggered + (DURATION_S * 1000) / 2;
    let middleDone = false;
    let killedAt: number | null = null;
    let restartedAt: number | null = null;
    let lastProgress = Date.now();
    let peakKb = 0;
    const terminal = ['success', 'failed', 'cancelled'];
    let status = 'queued';
    while (!terminal.includes(status)) {
      if (aborted) return;
      // The planned kill happens inside this loop and replaces `worker` before it comes round again.
      if (!isRunning(worker)) throw new Error(`the worker exited (code ${worker.exitCode}, signal ${worker.signalCode})`);
      if (!isRunning(c.api)) throw new Error('the API process exited');
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      const kb = rssKb(worker.pid!);
      if (kb !== null) peakKb = Math.max(peakKb, kb);
      if (!middleDone && Date.now() >= middleAt) {
        middleDone = true;
        sampleRss('middle', worker);
        if (KILL_WORKER) {
          await killGroup(worker);
          killedAt = Date.now();
          log(`worker pid ${worker.pid} killed (SIGKILL to its process group); a new one starts in ${RESTART_AFTER_S} s`);
          await new Promise((resolve) => setTimeout(resolve, RESTART_AFTER_S * 1000));
          worker = startWorker();
          restartedAt = Date.now();
          await waitForPoller(worker);
          log(`new worker pid ${worker.pid} polls ${fmt((Date.now() - killedAt) / 1000, 1)} s after the kill`);
          sampleRss('start of the new worker (polling)', worker);
        }
      }
      const [row] = await sql<{ status: string }[]>`select status from runs where id = ${run.id}`;
      status = row!.status;
      if (Date.now() - lastProgress >= PROGRESS_EVERY_MS) {
        lastProgress = Date.now();
        const counts = await sql<{ role: string; n: number }[]>`
          select role, count(*)::int as n from run_samples where run_id = ${run.id} group by role order by role`;
        log(
          `${fmt((Date.now() - triggered) / 1000)} s: ${status}, samples ${counts.map((r) => `${r.role} ${fmt(r.n)}`).join(', ') || 'none yet'}, worker RSS ${mb(kb)} MB, load ${os.loadavg().map((l) => fmt(l, 2)).join(' ')}`,
        );
      }
    }
    const finishedSeen = Date.now();
    sampleRss('end (run finished)', worker);

    // ---- figures ----
    const body = await call<{ status: string; failure_reason: string | null; retry_count: number; started_at: string | null; finished_at: string | null }>(
      'GET',
      `/v1/runs/${run.id}`,
    );
    const verdict = await call<{ verdict: string; exit_code: number; summary: string; checks: { name: string; status: string; message: string }[] }>(
      'GET',
      `/v1/runs/${run.id}/verdict`,
    );
    const planned = Math.round(DURATION_S * RATE);
    const perTarget = await sql<{ role: string; calls_planned: number | null; n: number; distinct_seq: number; min_seq: number | null; max_seq: number | null; ok: number; first: Date | null; last: Date | null }[]>`
      select t.role, t.calls_planned, count(s.seq)::int as n, count(distinct s.seq)::int as distinct_seq,
             min(s.seq) as min_seq, max(s.seq) as max_seq, count(*) filter (where s.ok)::int as ok,
             min(s.started_at) as first, max(s.started_at) as last
      from run_targets t left join run_samples s on s.run_id = t.run_id and s.target_id = t.id
      where t.run_id = ${run.id}
      group by t.id, t.role, t.calls_planned, t.order_index order by t.order_index`;
    // The seq numbers that are missing between 0 and the largest one (a gap), listed as ranges.
    const gaps = await sql<{ role: string; gap_from: number; gap_to: number }[]>`
      select t.role, g.seq_from as gap_from, g.seq_to as gap_to
      from run_targets t
      cross join lateral (
        select prev + 1 as seq_from, seq - 1 as seq_to
        from (select seq, coalesce(lag(seq) over (order by seq), -1) as prev from run_samples where run_id = t.run_id and target_id = t.id) x
        where seq > prev + 1
      ) g
      where t.run_id = ${run.id}
      order by t.order_index, g.seq_from limit 20`;

    const executions: { runId: string; status: string; historyLength: number }[] = [];
    for await (const execution of temporal.workflow.list({ query: `WorkflowId = "${workflowIdForRun(run.id)}"` })) {
      const history = await temporal.workflow.getHandle(execution.workflowId, execution.runId).fetchHistory();
      executions.push({ runId: execution.runId, status: execution.status.name, historyLength: history.events?.length ?? 0 });
    }
    executions.reverse();
    const continuedAsNew = executions.filter((e) => e.status === 'CONTINUED_AS_NEW').length;
    const largest = Math.max(...executions.map((e) => e.historyLength));

    const runSeconds = body.started_at && body.finished_at ? (Date.parse(body.finished_at) - Date.parse(body.started_at)) / 1000 : Number.NaN;
    log('');
    log('result:');
    const rows: string[][] = [
      ['campaign', `duration_s ${fmt(DURATION_S)}, ${RATE} calls/s per target, open loop${KILL_WORKER ? ', worker SIGKILLed at the middle' : ''}`],
      ['run status', `${body.status}${body.failure_reason ? ` (${body.failure_reason})` : ''}`],
      ['run started_at → finished_at (s)', fmt(runSeconds, 1)],
      ['trigger → finished seen (s)', fmt((finishedSeen - triggered) / 1000, 1)],
      ['activity retries (retry_count)', fmt(body.retry_count)],
    ];
    for (const t of perTarget) {
      const spanS = t.first && t.last ? (t.last.getTime() - t.first.getTime()) / 1000 : Number.NaN;
      rows.push([`${t.role}: calls recorded / planned`, `${fmt(t.n)} / ${fmt(planned)} (${fmt((t.n / planned) * 100, 2)}%), ok ${fmt(t.ok)}`]);
      rows.push([`${t.role}: seq range, distinct, duplicates, missing`, `${t.min_seq ?? 'n/a'}..${t.max_seq ?? 'n/a'}, ${fmt(t.distinct_seq)}, ${fmt(t.n - t.distinct_seq)}, ${fmt(t.max_seq === null ? 0 : t.max_seq + 1 - t.distinct_seq)}`]);
      rows.push([`${t.role}: first → last sample (s), calls/s`, `${fmt(spanS, 1)}, ${fmt(t.n / spanS, 2)}`]);
    }
    rows.push(['workflow executions (continue-as-new count)', `${executions.length} (${continuedAsNew})`]);
    rows.push(['largest history of one execution (events)', fmt(largest)]);
    rows.push(['history length per execution', executions.map((e) => e.historyLength).join(', ')]);
    for (const s of rss) rows.push([`worker RSS ${s.label} (MB, pid ${s.pid})`, mb(s.kb)]);
    rows.push(['worker RSS peak, sampled each second (MB)', mb(peakKb)]);
    if (killedAt !== null && restartedAt !== null) {
      rows.push(['worker killed at (s after trigger), restarted after (s)', `${fmt((killedAt - triggered) / 1000, 1)}, ${fmt((restartedAt - killedAt) / 1000, 1)}`]);
    }
    rows.push(['verdict', `${verdict.verdict} (exit_code ${verdict.exit_code})`]);
    for (const check of verdict.checks) rows.push([`  check ${check.name}`, `${check.status}: ${check.message}`.slice(0, 140)]);
    for (const line of table(['metric', 'value'], rows).split('\n')) log(line);
    log(`summary: ${verdict.summary}`);
    if (gaps.length > 0) log(`gaps (first 20): ${gaps.map((g) => `${g.role} ${g.gap_from}..${g.gap_to}`).join(', ')}`);
    else log('gaps: none (every target has seq 0..max without a hole)');
    const duplicates = perTarget.reduce((sum, t) => sum + t.n - t.distinct_seq, 0);
    log(`check: no duplicate seq → ${duplicates === 0 ? 'OK' : 'FAILED'}; no seq gap → ${gaps.length === 0 ? 'OK' : 'FAILED'}; verdict computed → ${verdict.verdict ? 'OK' : 'FAILED'}`);
    log(`load average at the end: ${os.loadavg().map((l) => fmt(l, 2)).join(' ')}`);
    if (body.status !== 'success' || duplicates > 0 || gaps.length > 0 || !verdict.verdict) process.exitCode = 1;
  } finally {
    clearTimeout(watchdog);
    if (!aborted) await cleanup(c);
  }
}

main().catch((error: unknown) => {
  log(`bench:soak failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  process.exit(1);
});
