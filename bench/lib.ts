/** Shared helpers of the benchmarks in bench/ (not tests: they print figures, they assert little). */
import { fork, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { buildApp } from '../src/app';
import { generateApiKey, hashApiKeySecret } from '../src/auth/api-key';
import { SCOPES } from '../src/auth/scopes';
import { loadConfig, type Config } from '../src/config';
import { SecretBox } from '../src/crypto/secret-box';
import { insertApiKey } from '../src/db/api-keys';
import { createSql, type Sql } from '../src/db/client';
import { migrate } from '../src/db/migrate';
import { ensureTenant } from '../src/db/tenants';
import { createLogger } from '../src/logger';
import { workerNodeOptions } from '../src/runtime/worker-heap';
import { startDevServer, type DevServer } from '../src/temporal/dev-server';
import { resolveTemporalCli } from '../src/temporal/temporal-binary';
import { freePort } from '../test/helpers/free-port';

const ROOT = path.resolve(__dirname, '..');
/** Node's arguments in package.json's "worker" script; the heap cap goes in NODE_OPTIONS (workerNodeOptions). */
const WORKER_NODE_ARGS = ['--import', 'tsx'];

export interface RpcServer {
  url: string;
  pid: number;
  /** Multiplies every later delay of a log-normal server (1 = as started); resolves once the server applied it. */
  setSlowdown(factor: number): Promise<void>;
  close(): Promise<void>;
}

/** Log-normal answer delay (see bench/rpc-server.ts); omitted, the server answers at once. */
export interface RpcLatency {
  medianMs: number;
  sigma: number;
}

/** Starts bench/rpc-server.ts in a child process (same tsx loader as this process) and waits for its port. */
export async function startRpcServer(latency?: RpcLatency): Promise<RpcServer> {
  const env = latency ? { ...process.env, RPC_LATENCY_MEDIAN_MS: String(latency.medianMs), RPC_LATENCY_SIGMA: String(latency.sigma) } : process.env;
  const child = fork(path.join(__dirname, 'rpc-server.ts'), [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'], env });
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('rpc server did not start within 20 s')), 20_000);
    child.once('message', (message: { port: number }) => {
      clearTimeout(timer);
      resolve(message.port);
    });
    child.once('exit', (code) => reject(new Error(`rpc server exited with code ${code}`)));
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    url: `http://127.0.0.1:${port}/`,
    pid: child.pid!,
    async setSlowdown(factor: number) {
      const applied = new Promise<void>((resolve) => child.once('message', () => resolve()));
      child.send({ slowdown: factor });
      await applied;
    },
    async close() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      await exited;
    },
  };
}


/** The PostgreSQL server the benchmarks create their throw-away database on. */
export function serverUrl(): string {
  return process.env.BENCH_DATABASE_URL ?? process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
}

export interface FreshDatabase {
  url: string;
  name: string;
  drop(): Promise<void>;
}

/** Creates and migrates a database of its own, as test/helpers/global-setup.ts does. */
export async function createFreshDatabase(prefix: string): Promise<FreshDatabase> {
  const admin = createSql(serverUrl(), { max: 1 });
  const name = `${prefix}_${randomBytes(6).toString('hex')}`;
  await admin.unsafe(`create database ${name}`);
  const url = new URL(serverUrl());
  url.pathname = `/${name}`;
  const sql: Sql = createSql(url.toString(), { max: 1 });
  try {
    await migrate(sql);
  } finally {
    await sql.end();
  }
  return {
    url: url.toString(),
    name,
    async drop() {
      await admin.unsafe(`drop database if exists ${name} with (force)`);
      await admin.end();
    },
  };
}

/** Nearest-rank percentile of an ascending-sorted array (the definition Postgres percentile_disc uses). */
export function percentile(sorted: ArrayLike<number>, fraction: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.max(1, Math.ceil(fraction * sorted.length));
  return sorted[Math.min(rank, sorted.length) - 1]!;
}

/** A plain-text table with right-aligned columns after the first. */
export function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]) =>
    cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

export const fmt = (n: number, digits = 0) =>
  Number.isFinite(n) ? n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits }) : 'n/a';

export function machineLine(): string {
  return `machine: ${os.cpus().length} cores (${os.cpus()[0]?.model ?? 'unknown cpu'}), ${fmt(os.totalmem() / 2 ** 30, 1)} GiB RAM, Node ${process.version}, load average ${os.loadavg().map((l) => fmt(l, 2)).join(' ')}`;
}

// ---- /proc (Linux) ----

function parentOf(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    return null;
  }
}

/** Every live descendant of `root` (children, grandchildren, …). */
export function descendants(root: number): number[] {
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

// ---- the service's stack: Temporal dev server, database, worker process, API in this process ----

/**
 * What a benchmark has started so far, for stopStack: filled in as each part comes up, so the
 * watchdog can stop a stack that is still starting.
 */
export interface StackParts {
  worker?: ChildProcess;
  app?: FastifyInstance;
  /** Clients and servers (database, Temporal connection, JSON-RPC servers), closed last-added first. */
  closers: { name: string; close: () => Promise<unknown> }[];
  temporal?: DevServer;
  db?: FreshDatabase;
}

export interface Stack {
  temporal: DevServer;
  db: FreshDatabase;
  /** The worker's node process, started as `npm run worker` starts it. */
  worker: ChildProcess;
  /** The service's variables the worker was started with (startWorkerLike starts more of them). */
  workerEnv: Record<string, string>;
  /** The API's config, set up like the worker's. */
  config: Config;
  sql: Sql;
  client: Client;
  app: FastifyInstance;
  /** A request to the API (inject) with a key of its own tenant that holds every scope. */
  request(method: 'GET' | 'POST', url: string, payload?: object): Promise<LightMyRequestResponse>;
  /** request, and its JSON body; a status of 300 or more throws. */
  call<T>(method: 'GET' | 'POST', url: string, payload?: object): Promise<T>;
  /** Throws, saying how, if the worker has exited. */
  assertWorkerRunning(): Promise<void>;
  /** Resolves once the worker polls its task queue (its start-up, workflow bundling included, is then over). */
  waitForWorker(): Promise<void>;
}

/**
 * Starts the Temporal dev server, a fresh database, the worker as a child process and the API
 * (buildApp, requests by inject) in this process, with a tenant and a key for it. Each part goes
 * into `parts` as it comes up; stopStack stops them.
 */
export async function startStack(parts: StackParts, options: { workerNodeOptions?: string } = {}): Promise<Stack> {
  const cliPath = await resolveTemporalCli({
    cliPath: process.env.TEMPORAL_CLI_PATH,
    pathVariable: process.env.PATH,
    log: (line) => console.log(line),
  });
  const temporalServer = await startDevServer({ cliPath, port: await freePort(), uiPort: null, dbFile: null, namespace: 'default', log: () => undefined });
  parts.temporal = temporalServer;
  const db = await createFreshDatabase('rvs_bench');
  parts.db = db;

  const env = {
    DATABASE_URL: db.url,
    TEMPORAL_ADDRESS: temporalServer.address,
    TEMPORAL_TASK_QUEUE: `bench-${randomUUID()}`,
    RVS_SECRET_KEY: randomBytes(32).toString('hex'),
    RVS_ALLOW_PRIVATE_TARGETS: 'true',
    LOG_LEVEL: 'warn',
  };
  const worker = spawnWorker(env, options.workerNodeOptions);
  parts.worker = worker;
  const workerExit = new Promise<string>((resolve) =>
    worker.once('exit', (code, signal) => resolve(`worker exited (code ${code}, signal ${signal})`)),
  );
  const assertWorkerRunning = async () => {
    if (worker.exitCode !== null) throw new Error(await workerExit);
  };

  const config = loadConfig({ ...env, LOG_LEVEL: 'silent', RVS_PUBLIC_URL: 'http://rvs.bench' });
  const sql = createSql(config.databaseUrl!);
  parts.closers.push({ name: 'database client', close: () => sql.end({ timeout: 5 }) });
  const connection = await Connection.connect({ address: config.temporal.address! });
  parts.closers.push({ name: 'temporal client', close: () => connection.close() });
  const client = new Client({ connection, namespace: config.temporal.namespace });
  const app = buildApp({ config, sql, box: new SecretBox(config.secretKey!), temporal: client, jwt: null }, createLogger('silent', 'bench'));
  parts.app = app;
  await app.ready();

  const tenant = await ensureTenant(sql, `bench-${randomUUID()}`, 'Benchmark');
  const key = generateApiKey();
  await insertApiKey(sql, { tenantId: tenant.id, name: 'bench', prefix: key.prefix, secretHash: hashApiKeySecret(key.secret), scopes: SCOPES });
  const headers = { authorization: `Bearer ${key.key}` };
  const request: Stack['request'] = async (method, url, payload) => app.inject({ method, url, headers, ...(payload ? { payload } : {}) });

  return {
    temporal: temporalServer,
    db,
    worker,
    workerEnv: env,
    config,
    sql,
    client,
    app,
    request,
    async call<T>(method: 'GET' | 'POST', url: string, payload?: object): Promise<T> {
      const response = await request(method, url, payload);
      if (response.statusCode >= 300) throw new Error(`${method} ${url}: ${response.statusCode} ${response.body}`);
      return response.json<T>();
    },
    assertWorkerRunning,
    async waitForWorker() {
      const readyBy = Date.now() + 120_000;
      for (;;) {
        const queue = await client.workflowService.describeTaskQueue({
          namespace: config.temporal.namespace,
          taskQueue: { name: config.temporal.taskQueue },
        });
        if ((queue.pollers ?? []).length > 0) return;
        await assertWorkerRunning();
        if (Date.now() > readyBy) throw new Error('the worker did not poll its task queue within 120 s');
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
    },
  };
}

/**
 * A worker process as `npm run worker` starts it (package.json): node itself, with tsx as a
 * loader, no tsx parent process. Only what the worker needs: PATH and HOME, and the service's own
 * variables.
 */
function spawnWorker(env: Record<string, string>, nodeOptions?: string, nodeArgs: readonly string[] = []): ChildProcess {
  return spawn(process.execPath, [...nodeArgs, ...WORKER_NODE_ARGS, 'src/worker.ts'], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? os.homedir(),
      ...env,
      NODE_OPTIONS: workerNodeOptions(nodeOptions),
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
}

/** One more worker process on the stack's queue and database, with some variables of its own. */
export function startWorkerLike(stack: Pick<Stack, 'workerEnv'>, extra: Record<string, string> = {}, nodeArgs: readonly string[] = []): ChildProcess {
  return spawnWorker({ ...stack.workerEnv, ...extra }, undefined, nodeArgs);
}

/**
 * Stops the worker: one SIGTERM to its node process (a second SIGTERM would make the worker exit at
 * once instead of draining); SIGKILL to it and any child it still has after 15 s.
 * Only processes the benchmark started.
 */
export async function stopWorker(worker: ChildProcess): Promise<void> {
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

/** Stops what `parts` holds: the worker first (it drains against a live Temporal), the database last; a failing step does not stop the others. */
export async function stopStack(parts: StackParts): Promise<void> {
  const step = async (name: string, fn: () => Promise<unknown>) => {
    try {
      await fn();
    } catch (error) {
      console.error(`cleanup: ${name} failed: ${String(error)}`);
    }
  };
  if (parts.worker) await step('worker', () => stopWorker(parts.worker!));
  if (parts.app) await step('api', () => parts.app!.close());
  for (const closer of parts.closers.reverse()) await step(closer.name, closer.close);
  if (parts.temporal) await step('temporal', () => parts.temporal!.stop());
  if (parts.db) await step('database', () => parts.db!.drop());
}

/**
 * Runs a benchmark's body with a watchdog: after `abortAfterMs` it stops the stack and exits with
 * code 2 (`aborted()` then says so to a body still looping); otherwise the stack is stopped when the
 * body ends. An error exits with code 1.
 */
export function runBench(
  name: string,
  abortAfterMs: number,
  body: (parts: StackParts, aborted: () => boolean) => Promise<void>,
): void {
  const main = async () => {
    console.log(machineLine());
    const parts: StackParts = { closers: [] };
    let aborted = false;
    const watchdog = setTimeout(() => {
      aborted = true;
      console.error(`${name}: still running after ${abortAfterMs / 60_000} minutes; aborting`);
      void stopStack(parts).finally(() => process.exit(2));
    }, abortAfterMs);
    try {
      await body(parts, () => aborted);
    } finally {
      clearTimeout(watchdog);
      if (!aborted) await stopStack(parts);
    }
  };
  main().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}
