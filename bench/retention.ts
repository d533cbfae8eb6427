/**
 * npm run bench:retention — what expiring a month of samples costs (issue 36 item 2): one month
 * of a 5-minute schedule (8,640 runs, CALLS samples each, simulated with server-side INSERTs) is
 * expired twice on a fresh database, once the way runs before migration 041 are (their rows in
 * the legacy table: expireRunSamples' batched per-run DELETE, what the rvs-sample-expiry schedule
 * runs, then the VACUUM it leaves to autovacuum) and once the way runs after it are (their rows in
 * weekly partitions: maintainSamplePartitions detaches them CONCURRENTLY and drops them, then
 * expireRunSamples finds nothing left). Sizes are pg_total_relation_size (heap + TOAST +
 * indexes) of run_samples' partitions, before and after.
 */
import { randomUUID } from 'node:crypto';
import { EXPIRY_BATCH_SIZE, EXPIRY_RUN_LIMIT } from '../activities/expire-samples';
import { createSql, type Sql } from '../src/db/client';
import { maintainSamplePartitions } from '../src/db/sample-partitions';
import { expireRunSamples } from '../src/db/sample-retention';
import { createFreshDatabase, fmt, machineLine, table } from './lib';

const RUNS = Number(process.env.BENCH_RETENTION_RUNS ?? 8_640); // 30 days × 288 fires
const CALLS = Number(process.env.BENCH_RETENTION_CALLS ?? 100);
const FIRE_EVERY_MS = 5 * 60_000;
const DAY_MS = 86_400_000;
const RETENTION_DAYS = 90;
/** The simulated month starts on a Monday long past, so every week of it is a past week. */
const MONTH_START = new Date('2026-01-05T00:00:00Z');

/** The scenario's own tables: the legacy table, or the weekly ones. */
async function samplesBytes(sql: Sql, partitioned: boolean): Promise<{ bytes: number; tables: number }> {
  const [row] = await sql<{ bytes: string; tables: number }[]>`
    select coalesce(sum(pg_total_relation_size(relid)), 0)::text as bytes, count(*)::int as tables
    from pg_partition_tree('run_samples') where isleaf and (relid = 'run_samples_legacy'::regclass) = ${!partitioned}`;
  return { bytes: Number(row!.bytes), tables: row!.tables };
}

/** A suite and RUNS finished runs of it, one every 5 minutes over the month; samples_week set when partitioned. */
async function seedMonth(sql: Sql, partitioned: boolean): Promise<void> {
  const [tenant, chain, suite, target] = [randomUUID(), randomUUID(), randomUUID(), randomUUID()];
  await sql`insert into tenants (id, name, slug) values (${tenant}, 'T', ${`t-${tenant}`})`;
  await sql`insert into chains (id, tenant_id, name, slug, family) values (${chain}, ${tenant}, 'c', 'c', 'evm')`;
  await sql`insert into suites (id, tenant_id, chain_id, name, config) values (${suite}, ${tenant}, ${chain}, 's', '{}'::jsonb)`;
  await sql`
    insert into runs (id, tenant_id, test_suite_id, triggered_by, status, requested_at, finished_at, config_snapshot, seed, workflow_id, samples_week)
    select gen_random_uuid(), ${tenant}, ${suite}, 'schedule', 'success', at, at + interval '1 minute', '{}'::jsonb, 1, 'bench-' || gen_random_uuid(),
      case when ${partitioned} then date_trunc('week', at)::date end
    from (select ${MONTH_START}::timestamptz + i * make_interval(secs => ${FIRE_EVERY_MS / 1000}) as at from generate_series(0, ${RUNS - 1}) i) fires`;
  // Samples shaped like a probe's: mostly ok with a 32-hex fingerprint, every 50th an rpc_error.
  await sql`
    insert into run_samples (run_id, target_id, seq, role, method, started_at, latency_us, ok, outcome, http_status, rpc_error_code, response_hash, run_week)
    select r.id, ${target}, g, 'primary', 'eth_blockNumber', r.requested_at, 800 + (g * 7919) % 20000, g % 50 <> 49,
      case when g % 50 = 49 then 'rpc_error' else 'ok' end, 200, case when g % 50 = 49 then -32000 end,
      case when g % 50 <> 49 then left(md5(r.id::text || g), 32) end, coalesce(r.samples_week, '1970-01-01')
    from runs r cross join generate_series(0, ${CALLS - 1}) g where r.test_suite_id = ${suite}`;
}

const seconds = (since: bigint) => Number(process.hrtime.bigint() - since) / 1e9;

async function main(): Promise<void> {
  console.log(machineLine());
  const db = await createFreshDatabase('rvs_bench_retention');
  const sql = createSql(db.url, { max: 2 });
  try {
    // The month's weekly tables, created as the maintenance would have at the time.
    for (let day = 0; day <= 35; day += 7) await maintainSamplePartitions(sql, { now: new Date(MONTH_START.getTime() + day * DAY_MS) });
    const expireAt = new Date(MONTH_START.getTime() + (31 + RETENTION_DAYS) * DAY_MS);
    const rows: string[][] = [];
    for (const partitioned of [false, true]) {
      const label = partitioned ? 'weekly partitions: detach + drop' : 'legacy table: batched DELETE';
      const seedStarted = process.hrtime.bigint();
      await seedMonth(sql, partitioned);
      await sql`vacuum analyze run_samples`;
      const [{ n }] = await sql<[{ n: number }]>`select count(*)::int as n from run_samples`;
      console.log(`${label}: ${fmt(RUNS)} runs, ${fmt(n)} samples seeded in ${fmt(seconds(seedStarted), 1)} s`);
      const before = await samplesBytes(sql, partitioned);
      const started = process.hrtime.bigint();
      let dropped = 0;
      if (partitioned) dropped = (await maintainSamplePartitions(sql, { now: expireAt, expiry: { defaultDays: RETENTION_DAYS } })).dropped.length;
      let expired = { runs: 0, samples: 0 };
      for (;;) {
        const pass = await expireRunSamples(sql, { now: expireAt, defaultDays: RETENTION_DAYS, runLimit: EXPIRY_RUN_LIMIT, batchSize: EXPIRY_BATCH_SIZE });
        expired = { runs: expired.runs + pass.runs, samples: expired.samples + pass.samples };
        if (pass.runs === 0) break;
      }
      const expirySeconds = seconds(started);
      const after = await samplesBytes(sql, partitioned);
      const vacuumStarted = process.hrtime.bigint();
      await sql`vacuum run_samples`;
      const vacuumSeconds = seconds(vacuumStarted);
      const afterVacuum = await samplesBytes(sql, partitioned);
      const [{ left }] = await sql<[{ left: number }]>`select count(*)::int as left from run_samples`;
      const [{ marked }] = await sql<[{ marked: number }]>`select count(*)::int as marked from runs where samples_expired_at is not null`;
      if (left !== 0 || marked !== RUNS * (partitioned ? 2 : 1)) throw new Error(`${label}: ${left} samples left, ${marked} runs marked`);
      console.log(`  expired: ${fmt(expired.samples)} samples deleted row by row, ${dropped} tables dropped, ${fmt(expirySeconds, 2)} s; vacuum ${fmt(vacuumSeconds, 2)} s`);
      rows.push([label, fmt(n), fmt(expirySeconds, 2), fmt(vacuumSeconds, 2), fmt(before.bytes / 2 ** 20, 1), fmt(after.bytes / 2 ** 20, 1), fmt(afterVacuum.bytes / 2 ** 20, 1), `${before.tables} → ${afterVacuum.tables}`]);
    }
    console.log('');
    console.log(
      table(['expiry of one month (8,640 runs)', 'samples', 'expiry s', 'vacuum s', 'MiB before', 'MiB after', 'after vacuum', 'tables'], rows),
    );
    const [del, drop] = rows.map((r) => Number(r[2]!.replaceAll(',', '')) + Number(r[3]!.replaceAll(',', '')));
    console.log(`\nexpiry + vacuum: DELETE ${fmt(del!, 2)} s, partition drop ${fmt(drop!, 2)} s (${fmt(del! / drop!, 0)}× faster)`);
  } finally {
    await sql.end();
    await db.drop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
