/**
 * npm run bench:stability — does the verdict stay quiet on an unchanged endpoint and catch a slower
 * one, through the real stack? Temporal dev server, a fresh database, the worker as a child process
 * (as `npm run worker` starts it), the API (buildApp + inject) in this process, and two loopback
 * JSON-RPC nodes in child processes (bench/rpc-server.ts) whose every answer waits a log-normal
 * delay, median 40 ms, σ_log 0.4 (p95 ≈ 77 ms): the candidate and its reference, same distribution.
 *
 * One suite: the candidate, the reference, baseline mode `history` (window 10, min_runs 5), default
 * thresholds, closed loop. BENCH_STABILITY_RUNS (20) runs against the unchanged nodes, then the
 * candidate's delays are made BENCH_STABILITY_SLOWDOWN (1.3) times longer and
 * BENCH_STABILITY_SLOW_RUNS (5) more runs follow. Counts per check: pass / fail / inconclusive;
 * a fail in the first phase is a false fail, a latency fail in the second a catch.
 * Everything is on 127.0.0.1; the benchmark aborts itself after 25 minutes.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
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

const RUNS = Number(process.env.BENCH_STABILITY_RUNS ?? 20);
const SLOW_RUNS = Number(process.env.BENCH_STABILITY_SLOW_RUNS ?? 5);
const SLOWDOWN = Number(process.env.BENCH_STABILITY_SLOWDOWN ?? 1.3);
const CALLS = Number(process.env.BENCH_STABILITY_CALLS ?? 2_000);
const CONCURRENCY = Number(process.env.BENCH_STABILITY_CONCURRENCY ?? 16);
const LATENCY = { medianMs: 40, sigma: 0.4 };
const WARMUP = 20;
const ABORT_AFTER_MS = 25 * 60_000;
const ROOT = path.resolve(__dirname, '..');
const CHECKS = ['latency_p95', 'latency_vs_reference', 'latency_vs_baseline', 'availability'] as const;
const LATENCY_CHECKS = ['latency_vs_reference', 'latency_vs_baseline'];

type Status = 'pass' | 'fail' | 'inconclusive';

interface VerdictBody {
  verdict: 'pass' | 'fail' | 'error';
  summary: string;
  checks: { name: string; status: Status; message: string; details: Record<string, any> }[];
  reference_comparison: { latency: { vs_reference_pct: number; vs_reference_interval_pct?: { lower: number; upper: number | null } } } | null;
  baseline_comparison: { model?: string; vs_baseline_pct: number; limits?: Record<string, any> } | null;
}

interface RunResult {
  index: number;
  phase: 'unchanged' | 'slower';
  runId: string;
  seconds: number;
  verdict: VerdictBody;
}

interface Cleanup {
  worker?: ChildProcess;
  nodes: RpcServer[];
  db?: FreshDatabase;
  temporal?: DevServer;
  app?: FastifyInstance;
  closers: (() => Promise<void>)[];
}

/** One SIGTERM lets the worker drain; SIGKILL after 15 s. Only the process this benchmark started. */
async function stopWorker(worker: ChildProcess): Promise<void> {
  if (worker.exitCode !== null || worker.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  worker.kill('SIGTERM');
  const timer = setTimeout(() => worker.kill('SIGKILL'), 15_000);
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
  for (const node of c.nodes) await step('rpc node', () => node.close());
  if (c.temporal) await step('temporal', () => c.temporal!.stop());
  if (c.db) await step('database', () => c.db!.drop());
}

const showPct = (v: number | null | undefined) => (v === null || v === undefined ? '∞' : `${v > 0 ? '+' : ''}${v}%`);
const showRange = (i: { lower: number; upper: number | null } | undefined, unit = '') =>
  i ? `[${i.lower}${unit}…${i.upper === null ? '∞' : `${i.upper}${unit}`}]` : '';

function runRow(r: RunResult): string[] {
  const v = r.verdict;
  const check = (name: string) => v.checks.find((c) => c.name === name);
  const p95 = check('latency_p95')?.details as { p95?: number; intervals_ms?: { p95: { lower: number; upper: number | null } } } | undefined;
  const ref = check('latency_vs_reference');
  const base = check('latency_vs_baseline');
  const avail = check('availability');
  return [
    `${r.index}`,
    r.phase,
    `${p95?.p95 ?? '?'} ${p95?.intervals_ms ? `[${p95.intervals_ms.p95.lower}–${p95.intervals_ms.p95.upper ?? '∞'}]` : ''}`,
    `${v.reference_comparison?.latency.vs_reference_pct ?? '?'}% ${showRange(v.reference_comparison?.latency.vs_reference_interval_pct)}`,
    ref?.status ?? '—',
    base ? `${(base.details.model as string) ?? '?'} ${showPct(base.details.vs_history_median_pct ?? base.details.vs_baseline_pct)}` : '—',
    base?.status ?? '—',
    avail?.status ?? '—',
    v.verdict,
    fmt(r.seconds, 1),
  ];
}

function tally(results: RunResult[], name: string): Record<Status, number> & { absent: number } {
  const counts = { pass: 0, fail: 0, inconclusive: 0, absent: 0 };
  for (const r of results) {
    const check = r.verdict.checks.find((c) => c.name === name);
    if (check) counts[check.status]++;
    else counts.absent++;
  }
  return counts;
}

async function main(): Promise<void> {
  console.log(machineLine());
  const c: Cleanup = { nodes: [], closers: [] };
  let aborted = false;
  const watchdog = setTimeout(() => {
    aborted = true;
    console.error(`bench:stability: still running after ${ABORT_AFTER_MS / 60_000} minutes; aborting`);
    void cleanup(c).finally(() => process.exit(2));
  }, ABORT_AFTER_MS);
  const benchStarted = Date.now();
  try {
    const cliPath = await resolveTemporalCli({ cliPath: process.env.TEMPORAL_CLI_PATH, pathVariable: process.env.PATH, log: (line) => console.log(line) });
    c.temporal = await startDevServer({ cliPath, port: await freePort(), uiPort: null, dbFile: null, namespace: 'default', log: () => undefined });
    c.db = await createFreshDatabase('rvs_bench');
    const candidateNode = await startRpcServer(LATENCY);
    c.nodes.push(candidateNode);
    const referenceNode = await startRpcServer(LATENCY);
    c.nodes.push(referenceNode);
    console.log(`temporal ${c.temporal.address}, database ${c.db.name}, candidate node ${candidateNode.url}, reference node ${referenceNode.url}`);

    const env = {
      DATABASE_URL: c.db.url,
      TEMPORAL_ADDRESS: c.temporal.address,
      TEMPORAL_TASK_QUEUE: `bench-${randomUUID()}`,
      RVS_SECRET_KEY: randomBytes(32).toString('hex'),
      RVS_ALLOW_PRIVATE_TARGETS: 'true',
      LOG_LEVEL: 'warn',
    };
    c.worker = spawn(process.execPath, ['--import', 'tsx', 'src/worker.ts'], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? os.homedir(), ...env, NODE_OPTIONS: workerNodeOptions(undefined) },
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    const workerExit = new Promise<string>((resolve) => c.worker!.once('exit', (code, signal) => resolve(`worker exited (code ${code}, signal ${signal})`)));

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
    const request = async (method: 'GET' | 'POST', url: string, payload?: object) => app.inject({ method, url, headers, ...(payload ? { payload } : {}) });
    const call = async <T>(method: 'GET' | 'POST', url: string, payload?: object): Promise<T> => {
      const response = await request(method, url, payload);
      if (response.statusCode >= 300) throw new Error(`${method} ${url}: ${response.statusCode} ${response.body}`);
      return response.json<T>();
    };
    const chain = await call<{ id: string }>('POST', '/v1/chains', { name: 'Bench', slug: `bench-${Date.now()}`, chain_id: 1337 });
    const endpoint = (name: string, url: string) =>
      call<{ id: string }>('POST', '/v1/endpoints', { chain_id: chain.id, name, url, headers: {}, timeout_ms: 5_000 });
    const candidate = await endpoint('candidate (log-normal 40 ms)', candidateNode.url);
    const reference = await endpoint('reference (log-normal 40 ms)', referenceNode.url);
    const suite = await call<{ id: string }>('POST', '/v1/suites', {
      chain_id: chain.id,
      name: 'stability',
      config: {
        targets: [{ endpoint_id: candidate.id }],
        reference_endpoint_id: reference.id,
        baseline: { mode: 'history', window: 10, min_runs: 5 },
        workload: { methods: [{ method: 'eth_blockNumber' }], requests_per_target: CALLS, concurrency: CONCURRENCY, warmup_requests: WARMUP, timeout_ms: 5_000 },
      },
    });

    const readyBy = Date.now() + 120_000;
    for (;;) {
      const queue = await temporal.workflowService.describeTaskQueue({ namespace: config.temporal.namespace, taskQueue: { name: config.temporal.taskQueue } });
      if ((queue.pollers ?? []).length > 0) break;
      if (c.worker.exitCode !== null) throw new Error(await workerExit);
      if (Date.now() > readyBy) throw new Error('the worker did not poll its task queue within 120 s');
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    console.log(
      `suite ${suite.id}: ${fmt(CALLS)} calls per target, concurrency ${CONCURRENCY}, warm-up ${WARMUP}, closed loop, ` +
        `baseline history (window 10, min_runs 5), default thresholds; ${RUNS} runs unchanged, then ${SLOW_RUNS} with the candidate ×${SLOWDOWN}`,
    );

    const results: RunResult[] = [];
    const runOnce = async (index: number, phase: RunResult['phase']) => {
      const started = Date.now();
      const run = await call<{ id: string }>('POST', `/v1/suites/${suite.id}/runs`);
      for (;;) {
        if (aborted) throw new Error('aborted');
        if (c.worker!.exitCode !== null) throw new Error(await workerExit);
        const response = await request('GET', `/v1/runs/${run.id}/verdict?wait=30`);
        if (response.statusCode === 409) continue;
        if (response.statusCode !== 200) throw new Error(`verdict of ${run.id}: ${response.statusCode} ${response.body}`);
        const result: RunResult = { index, phase, runId: run.id, seconds: (Date.now() - started) / 1000, verdict: response.json<VerdictBody>() };
        results.push(result);
        console.log(`  ${runRow(result).join(' | ')}`);
        return;
      }
    };
    console.log('  run # | phase | candidate p95 ms [95% interval] | vs reference [interval] | vs_reference | baseline model, vs baseline | vs_baseline | availability | verdict | s');
    for (let i = 1; i <= RUNS; i++) await runOnce(i, 'unchanged');
    await candidateNode.setSlowdown(SLOWDOWN);
    for (let i = 1; i <= SLOW_RUNS; i++) await runOnce(RUNS + i, 'slower');

    const unchanged = results.filter((r) => r.phase === 'unchanged');
    const slower = results.filter((r) => r.phase === 'slower');
    console.log('');
    console.log(
      table(
        ['run', 'phase', 'candidate p95 ms [95%]', 'vs reference [95%]', 'vs_reference', 'baseline model, vs baseline', 'vs_baseline', 'availability', 'verdict', 's'],
        results.map(runRow),
      ),
    );
    console.log('');
    const cell = (t: ReturnType<typeof tally>) => `${t.pass} / ${t.fail} / ${t.inconclusive}${t.absent > 0 ? ` (absent ${t.absent})` : ''}`;
    console.log(
      table(
        ['check (pass / fail / inconclusive)', `unchanged, ${unchanged.length} runs`, `candidate ×${SLOWDOWN}, ${slower.length} runs`],
        CHECKS.map((name) => [name, cell(tally(unchanged, name)), cell(tally(slower, name))]),
      ),
    );
    const models = (rs: RunResult[]) => {
      const counts = new Map<string, number>();
      for (const r of rs) {
        const model = (r.verdict.checks.find((ch) => ch.name === 'latency_vs_baseline')?.details.model as string | undefined) ?? 'none';
        counts.set(model, (counts.get(model) ?? 0) + 1);
      }
      return [...counts].map(([m, n]) => `${m} ${n}`).join(', ');
    };
    const falseFailChecks = unchanged.reduce((n, r) => n + r.verdict.checks.filter((ch) => ch.status === 'fail').length, 0);
    const falseFailVerdicts = unchanged.filter((r) => r.verdict.verdict !== 'pass').length;
    const caught = (name: string) => slower.filter((r) => r.verdict.checks.find((ch) => ch.name === name)?.status === 'fail').length;
    const caughtAny = slower.filter((r) => r.verdict.checks.some((ch) => LATENCY_CHECKS.includes(ch.name) && ch.status === 'fail')).length;
    const seconds = results.map((r) => r.seconds);
    console.log('');
    console.log(
      table(
        ['figure', 'value'],
        [
          ['false fails, unchanged (failed checks / failed verdicts)', `${falseFailChecks} / ${falseFailVerdicts} of ${unchanged.length} runs (target 0)`],
          ['baseline models used, unchanged', models(unchanged)],
          ['baseline models used, slower', models(slower)],
          [`catches, candidate ×${SLOWDOWN}: latency_vs_reference fail`, `${caught('latency_vs_reference')} of ${slower.length}`],
          [`catches, candidate ×${SLOWDOWN}: latency_vs_baseline fail`, `${caught('latency_vs_baseline')} of ${slower.length}`],
          [`catches, candidate ×${SLOWDOWN}: either latency check fails`, `${caughtAny} of ${slower.length}`],
          [`verdict fail, candidate ×${SLOWDOWN}`, `${slower.filter((r) => r.verdict.verdict === 'fail').length} of ${slower.length}`],
          ['run duration, trigger → verdict (s, min / median / max)', `${fmt(Math.min(...seconds), 1)} / ${fmt(seconds.sort((a, b) => a - b)[Math.floor(seconds.length / 2)]!, 1)} / ${fmt(Math.max(...seconds), 1)}`],
          ['whole bench (min)', fmt((Date.now() - benchStarted) / 60_000, 1)],
        ],
      ),
    );
    console.log(`load average at the end: ${os.loadavg().map((l) => fmt(l, 2)).join(' ')}`);
    if (falseFailVerdicts > 0) process.exitCode = 1;
  } finally {
    clearTimeout(watchdog);
    if (!aborted) await cleanup(c);
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
