/**
 * npm run bench:sample-migration — migration 041 on a large run_samples (issue 36 item 2): a
 * fresh database migrated up to 040, ROWS samples written the old way (server-side INSERT), then
 * 041 applied the way migrate() applies it (one transaction) and timed, then the partition
 * maintenance (validation of the legacy table's constraint, its re-attachment as a range
 * partition, the weekly tables) timed while a writer goes on writing 1,000-sample chunks with
 * writeSampleChunk on its own connection: how many chunks it wrote during the validation, and the
 * slowest one.
 */
import { randomUUID } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { createSql } from '../src/db/client';
import { maintainSamplePartitions } from '../src/db/sample-partitions';
import { writeSampleChunk, type SampleRow } from '../src/db/samples-ingest';
import { fmt, machineLine, serverUrl, table } from './lib';

const ROWS = Number(process.env.BENCH_MIGRATION_ROWS ?? 3_000_000);
const RUNS = 300;
const MIGRATIONS_DIR = path.join(__dirname, '..', 'src', 'db', 'migrations');
const seconds = (since: bigint) => Number(process.hrtime.bigint() - since) / 1e9;

async function main(): Promise<void> {
  console.log(machineLine());
  const admin = createSql(serverUrl(), { max: 1 });
  const name = `rvs_bench_041_${randomUUID().slice(0, 8)}`;
  await admin.unsafe(`create database ${name}`);
  const url = new URL(serverUrl());
  url.pathname = `/${name}`;
  const sql = createSql(url.toString(), { max: 1 });
  const writer = createSql(url.toString(), { max: 1 });
  try {
    const files = (await readdir(MIGRATIONS_DIR)).filter((f) => /^\d{3}_[\w-]+\.sql$/.test(f)).sort();
    await sql`create table schema_migrations (name text primary key, applied_at timestamptz not null default now())`;
    for (const file of files.filter((f) => f < '041')) {
      await sql.unsafe(await readFile(path.join(MIGRATIONS_DIR, file), 'utf8'));
      await sql`insert into schema_migrations (name) values (${file})`;
    }
    const seeded = process.hrtime.bigint();
    const perRun = Math.ceil(ROWS / RUNS);
    await sql`
      insert into run_samples (run_id, target_id, seq, role, method, started_at, latency_us, ok, outcome, http_status, response_hash)
      select run_id, '00000000-0000-0000-0000-0000000000aa', g, 'primary', 'eth_blockNumber', now(), 800 + (g * 7919) % 20000, true, 'ok', 200, left(md5(run_id::text || g), 32)
      from (select gen_random_uuid() as run_id from generate_series(1, ${RUNS})) r cross join generate_series(0, ${perRun - 1}) g`;
    await sql`vacuum analyze run_samples`;
    const [{ n, bytes }] = await sql<[{ n: number; bytes: string }]>`select count(*)::int as n, pg_total_relation_size('run_samples')::text as bytes from run_samples`;
    console.log(`${fmt(n)} samples written the old way (${fmt(Number(bytes) / 2 ** 20)} MiB with indexes) in ${fmt(seconds(seeded), 1)} s`);

    const migrationStarted = process.hrtime.bigint();
    await sql.begin(async (tx) => {
      await tx.unsafe(await readFile(path.join(MIGRATIONS_DIR, files.find((f) => f.startsWith('041_'))!), 'utf8'));
      await tx`insert into schema_migrations (name) values ('041')`;
    });
    const migrationSeconds = seconds(migrationStarted);

    // A writer on its own connection, as a probe activity writes, for as long as the maintenance runs.
    const runId = randomUUID();
    const targetId = randomUUID();
    let writing = true;
    const latencies: number[] = [];
    const write = (async () => {
      for (let from = 0; writing; from += 1_000) {
        const rows: SampleRow[] = Array.from({ length: 1_000 }, (_, i) => ({
          run_id: runId, target_id: targetId, seq: from + i, role: 'primary', method: 'eth_blockNumber', started_at: new Date(),
          latency_us: 900, ok: true, outcome: 'ok', http_status: 200, rpc_error_code: null, response_hash: null, matches_reference: null,
        }));
        const started = process.hrtime.bigint();
        await writeSampleChunk(writer, { runId, targetId, fromSeq: from, toSeq: from + 1_000 }, rows);
        latencies.push(seconds(started));
      }
    })();
    await new Promise((resolve) => setTimeout(resolve, 500));
    const before = latencies.length;
    const maintenanceStarted = process.hrtime.bigint();
    const done = await maintainSamplePartitions(sql, { now: new Date(), expiry: { defaultDays: 90 } });
    const maintenanceSeconds = seconds(maintenanceStarted);
    const during = latencies.slice(before);
    writing = false;
    await write;
    if (!done.legacyConverted) throw new Error('the legacy table was not converted');
    const [{ total }] = await sql<[{ total: number }]>`select count(*)::int as total from run_samples`;
    console.log('');
    console.log(
      table(
        ['step', 'seconds', 'writes meanwhile'],
        [
          ['041 in the migration transaction', fmt(migrationSeconds, 3), 'n/a'],
          ['validate + re-attach + weekly tables', fmt(maintenanceSeconds, 2), `${fmt(during.length)} chunks of 1,000, slowest ${fmt(Math.max(...during) * 1000, 0)} ms, median ${fmt(during.sort((a, b) => a - b)[Math.floor(during.length / 2)]! * 1000, 0)} ms`],
        ],
      ),
    );
    console.log(`\n${fmt(total)} samples readable through run_samples afterwards; weekly tables created: ${done.created.join(', ')}`);
  } finally {
    await sql.end();
    await writer.end();
    await admin.unsafe(`drop database if exists ${name} with (force)`);
    await admin.end();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
