/**
 * npm run bench:ingest — samples per second written by writeSampleChunk (delete-then-COPY in one
 * transaction) in chunks of 1,000 and 5,000 (what activities/probe-chunk.ts writes) and larger,
 * against a multi-row INSERT … ON CONFLICT DO NOTHING of the same rows, on a fresh database that
 * is dropped at the end.
 *
 * Besides the service's own client (createSql: TCP with TCP_NODELAY, src/db/client.ts), it writes
 * through a bench-only connection over the server's Unix-domain socket, when there is one, to show
 * what the transport costs. (A bench-only TCP_NODELAY client used to be compared too; createSql now
 * connects that way itself.)
 */
import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import postgres from 'postgres';
import { createSql, type Sql } from '../src/db/client';
import { SAMPLE_COLUMNS, writeSampleChunk, type SampleRow } from '../src/db/samples-ingest';
import type { SampleOutcome } from '../src/domain/sample-outcome';
import { createFreshDatabase, fmt, machineLine, table } from './lib';

const TOTAL = Number(process.env.BENCH_INGEST_TOTAL ?? 300_000);
/** The activity writes batches of 1,000 (BATCH_CALLS); 5,000 is a whole chunk; 20,000 shows the trend. */
const CHUNKS = [1_000, 5_000, 20_000];
/** 19 columns × 3,000 rows = 57,000 bind parameters: the most one INSERT may carry is 65,535. */
const INSERT_CHUNKS = [1_000, 3_000];
const ROUNDS = 2;
const UNIX_SOCKET_DIR = process.env.BENCH_PG_SOCKET_DIR ?? '/var/run/postgresql';
const TARGET_ROWS_PER_S = 100_000;

// `reason` (invalid_response only) is left to its NULL default by INSERT: the bench's rows have
// none, and 14 columns × 5,000 rows would exceed the bind-parameter limit. COPY writes all columns.
const COLUMNS = SAMPLE_COLUMNS.filter((column) => column !== 'reason');

const METHODS = ['eth_blockNumber', 'eth_getBalance', 'eth_call', 'eth_getBlockByNumber'];

/** Rows shaped like the activity's: mostly ok with a 32-hex response hash, some failures with nulls. */
function makeRows(runId: string, targetId: string, from: number, count: number): SampleRow[] {
  const base = Date.now();
  const rows: SampleRow[] = new Array(count);
  for (let i = 0; i < count; i++) {
    const seq = from + i;
    const failed = seq % 50 === 49;
    const outcome: SampleOutcome = failed ? (seq % 100 === 99 ? 'timeout' : 'rpc_error') : 'ok';
    rows[i] = {
      run_id: runId,
      target_id: targetId,
      seq,
      role: 'primary',
      method: METHODS[seq % METHODS.length]!,
      started_at: new Date(base + seq),
      latency_us: 800 + ((seq * 7919) % 20_000),
      ok: !failed,
      outcome,
      http_status: outcome === 'timeout' ? null : 200,
      rpc_error_code: outcome === 'rpc_error' ? -32000 : null,
      response_hash: failed ? null : (seq * 2654435761).toString(16).padStart(32, '0').slice(-32),
      matches_reference: null,
      // INSERT sends every column it names: the column's default is not used for an undefined value.
      region: 'local',
    };
  }
  return rows;
}

type Writer = (sql: Sql, chunk: { runId: string; targetId: string; fromSeq: number; toSeq: number }, rows: SampleRow[]) => Promise<void>;

const copyWriter: Writer = (sql, chunk, rows) => writeSampleChunk(sql, chunk, rows);

const insertWriter: Writer = async (sql, _chunk, rows) => {
  await sql`insert into run_samples ${sql(rows, ...COLUMNS)} on conflict do nothing`;
};

/** utime + stime of a process, in seconds (PostgreSQL backends run locally, so /proc has them). */
function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

interface Result {
  connection: string;
  method: string;
  chunk: number;
  round: number;
  rows: number;
  seconds: number;
  nodeCpuS: number;
  pgCpuS: number | null;
}

interface Connection {
  label: string;
  sql: Sql;
  backendPid: number | null;
}

async function measure({ label, sql, backendPid }: Connection, method: string, writer: Writer, chunk: number, round: number): Promise<Result> {
  // Every measurement starts from an empty table and a flushed WAL, so none inherits the last one's index.
  await sql`truncate run_samples`;
  await sql`checkpoint`;
  const runId = randomUUID();
  const targetId = randomUUID();
  // Rows are built before the clock starts: the activity already holds them when it writes.
  const batches: SampleRow[][] = [];
  for (let from = 0; from < TOTAL; from += chunk) batches.push(makeRows(runId, targetId, from, Math.min(chunk, TOTAL - from)));
  const pgBefore = backendPid === null ? 0 : cpuSeconds(backendPid);
  const cpuBefore = process.cpuUsage();
  const started = process.hrtime.bigint();
  let from = 0;
  for (const rows of batches) {
    await writer(sql, { runId, targetId, fromSeq: from, toSeq: from + rows.length }, rows);
    from += rows.length;
  }
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const cpu = process.cpuUsage(cpuBefore);
  const [count] = await sql<{ n: number }[]>`select count(*)::int as n from run_samples where run_id = ${runId}`;
  const n = count!.n;
  if (n !== TOTAL) throw new Error(`${method} wrote ${n} rows, expected ${TOTAL}`);
  return {
    connection: label,
    method,
    chunk,
    round,
    rows: TOTAL,
    seconds,
    nodeCpuS: (cpu.user + cpu.system) / 1e6,
    pgCpuS: backendPid === null ? null : cpuSeconds(backendPid) - pgBefore,
  };
}

/** A postgres.js client like createSql's, over a socket it opens itself. */
function benchClient(url: string, socket: (() => Promise<net.Socket>) | null, host?: string): Sql {
  return postgres(url, {
    max: 1,
    onnotice: () => undefined,
    transform: { undefined: null },
    ...(socket ? { socket } : {}),
    ...(host ? { host } : {}),
  });
}

async function connection(label: string, sql: Sql): Promise<Connection> {
  const [row] = await sql<{ pid: number }[]>`select pg_backend_pid() as pid`;
  let backendPid: number | null = row!.pid;
  try {
    cpuSeconds(backendPid);
  } catch {
    backendPid = null; // PostgreSQL on another host or in a container: no backend CPU figures.
  }
  return { label, sql, backendPid };
}

const rate = (r: Result) => r.rows / r.seconds;
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

async function main(): Promise<void> {
  console.log(machineLine());
  const db = await createFreshDatabase('rvs_bench');
  const clients: Sql[] = [];
  const watchdog = setTimeout(() => {
    console.error('bench:ingest took too long; aborting');
    void Promise.all(clients.map((c) => c.end({ timeout: 1 })))
      .then(() => db.drop())
      .finally(() => process.exit(2));
  }, 178_000);
  try {
    // One connection per client, used sequentially, as one activity writes its batches.
    const service = createSql(db.url, { max: 1 });
    clients.push(service);
    const connections: Connection[] = [await connection('createSql (TCP_NODELAY)', service)];
    if (existsSync(`${UNIX_SOCKET_DIR}/.s.PGSQL.${new URL(db.url).port || 5432}`)) {
      const unix = benchClient(db.url, null, UNIX_SOCKET_DIR);
      clients.push(unix);
      connections.push(await connection('Unix socket (bench only)', unix));
    }
    const [main_, unixConnection] = connections as [Connection, Connection | undefined];

    const [server] = await service<{ version: string }[]>`select current_setting('server_version') as version`;
    const settings = await service<{ name: string; setting: string }[]>`
      select name, setting from pg_settings where name in ('synchronous_commit', 'fsync', 'shared_buffers', 'wal_level') order by name`;
    console.log(`PostgreSQL ${server!.version} (${settings.map((x) => `${x.name}=${x.setting}`).join(', ')}), database ${db.name}`);
    console.log(`${fmt(TOTAL)} samples per measurement, ${ROUNDS} rounds in alternating order, one connection per client, writes sequential`);

    const COPY = 'writeSampleChunk (COPY)';
    const INSERT = 'INSERT … ON CONFLICT';
    const plans: [Connection, string, Writer, number][] = [];
    for (const chunk of CHUNKS) plans.push([main_, COPY, copyWriter, chunk]);
    for (const chunk of INSERT_CHUNKS) plans.push([main_, INSERT, insertWriter, chunk]);
    for (const extra of [unixConnection]) {
      if (extra) for (const chunk of INSERT_CHUNKS) plans.push([extra, COPY, copyWriter, chunk]);
    }
    const results: Result[] = [];
    for (let round = 1; round <= ROUNDS; round++) {
      for (const [conn, method, writer, chunk] of round % 2 === 1 ? plans : [...plans].reverse()) {
        const r = await measure(conn, method, writer, chunk, round);
        results.push(r);
        console.log(`  round ${round} ${conn.label} ${method} × ${fmt(chunk)}: ${fmt(rate(r))} rows/s`);
      }
    }

    const insertRate = (chunk: number) => {
      const of = results.filter((r) => r.method === INSERT && r.chunk === chunk && r.connection === main_.label);
      return of.length === 0 ? Number.NaN : mean(of.map(rate));
    };
    const versusInsert = (value: number, chunk: number) => (Number.isNaN(insertRate(chunk)) ? 'n/a' : `${fmt(value / insertRate(chunk), 2)}×`);
    console.log('');
    console.log(
      table(
        ['round / connection / writer', 'chunk', 'rows/s', 'seconds', 'node CPU s', 'PG backend CPU s', '÷ INSERT'],
        results.map((r) => [
          `${r.round} ${r.connection} ${r.method}`,
          fmt(r.chunk),
          fmt(rate(r)),
          fmt(r.seconds, 2),
          fmt(r.nodeCpuS, 2),
          r.pgCpuS === null ? 'n/a' : fmt(r.pgCpuS, 2),
          versusInsert(rate(r), r.chunk),
        ]),
      ),
    );
    console.log('');
    const summary = plans.map(([conn, method, , chunk]) => {
      const of = results.filter((r) => r.connection === conn.label && r.method === method && r.chunk === chunk);
      return {
        connection: conn.label,
        method,
        chunk,
        rate: mean(of.map(rate)),
        nodeUsPerRow: mean(of.map((r) => (r.nodeCpuS / r.rows) * 1e6)),
        pgUsPerRow: of.some((r) => r.pgCpuS === null) ? Number.NaN : mean(of.map((r) => (r.pgCpuS! / r.rows) * 1e6)),
      };
    });
    console.log(
      table(
        ['mean of rounds', 'chunk', 'rows/s', 'node µs/row', 'PG µs/row', '÷ INSERT (createSql, same chunk)'],
        summary.map((x) => [
          `${x.connection} ${x.method}`,
          fmt(x.chunk),
          fmt(x.rate),
          fmt(x.nodeUsPerRow, 1),
          fmt(x.pgUsPerRow, 1),
          versusInsert(x.rate, x.chunk),
        ]),
      ),
    );
    console.log('');
    for (const x of summary.filter((y) => y.method === COPY && y.connection === main_.label)) {
      console.log(
        `target: writeSampleChunk ≥ ${fmt(TARGET_ROWS_PER_S)} samples/s (createSql, chunks of ${fmt(x.chunk)}) → ${fmt(x.rate)} ${x.rate >= TARGET_ROWS_PER_S ? 'MET' : 'MISSED'}`,
      );
    }
    console.log('node CPU is process-wide (includes tsx\'s loader thread and GC threads); PG CPU is the backend process only.');
    console.log(`load average at the end: ${os.loadavg().map((l) => fmt(l, 2)).join(' ')}`);
  } finally {
    clearTimeout(watchdog);
    await Promise.all(clients.map((c) => c.end({ timeout: 5 })));
    await db.drop();
    console.log(`dropped database ${db.name}`);
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
