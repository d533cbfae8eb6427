/** Shared helpers of the benchmarks in bench/ (not tests: they print figures, they assert little). */
import { fork } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { createSql, type Sql } from '../src/db/client';
import { migrate } from '../src/db/migrate';

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
