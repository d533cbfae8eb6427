import type { Sql } from './client';

/*
 * run_samples is partitioned by run_week, the Monday (UTC) of the week its run was requested
 * (migration 041): one table per week, run_samples_wYYYYMMDD, plus run_samples_legacy for the
 * samples written before the weekly tables existed (run_week '1970-01-01'). A run takes its week
 * at creation (runs.samples_week) only when that week's table exists; the writer stores it on
 * every sample, so all of a run's samples sit in one table.
 */

/** Session advisory lock held by one maintenance pass at a time (DETACH … CONCURRENTLY runs outside a transaction). */
const MAINTENANCE_LOCK_KEY = 0x525653_41; // "RVS" + migration 041
/** Weeks ahead whose tables exist before they start, so runs requested on a Monday never wait for a pass. */
export const SAMPLE_WEEKS_AHEAD = 2;
export const LEGACY_WEEK = '1970-01-01';
const DAY_MS = 86_400_000;

/** The Monday (UTC) of the week holding `at`, as 'YYYY-MM-DD'. */
export function sampleWeekOf(at: Date): string {
  const day = Math.floor(at.getTime() / DAY_MS);
  // 1970-01-01 was a Thursday: day 0 is weekday 3 counted from Monday.
  const monday = day - ((((day + 3) % 7) + 7) % 7);
  return new Date(monday * DAY_MS).toISOString().slice(0, 10);
}

export function samplePartitionName(week: string): string {
  return `run_samples_w${week.replaceAll('-', '')}`;
}

function addDays(week: string, days: number): string {
  return new Date(Date.parse(`${week}T00:00:00Z`) + days * DAY_MS).toISOString().slice(0, 10);
}

export interface PartitionMaintenance {
  /** The legacy table's constraint was validated and it became an ordinary range partition in this pass. */
  legacyConverted: boolean;
  created: string[];
  dropped: string[];
  /** Runs marked samples_expired_at because their week's table was dropped. */
  expiredRuns: number;
}

/**
 * One maintenance pass over run_samples' partitions, safe while samples are written:
 * 1. the legacy table (the parent's DEFAULT partition right after migration 041 on a non-empty
 *    table): its check constraint validated (SHARE UPDATE EXCLUSIVE: reads and writes go on, one
 *    scan), then, in one short transaction, detached and attached again as the range partition of
 *    '1970-01-01' (no scan: the valid constraint proves the bound);
 * 2. the tables of this week and the next SAMPLE_WEEKS_AHEAD created and attached (each empty);
 * 3. with `expiry`, every past week's table whose runs are all expired or due (finished longer
 *    ago than their retention, the same rule as expireRunSamples) detached CONCURRENTLY, dropped,
 *    and its runs marked expired. A week with a run still running or still kept stays; its due
 *    runs are deleted row by row by expireRunSamples.
 * Steps 2 and 3 wait for step 1 (no weekly table may exist next to a default partition: it would
 * be scanned at each attach, and DETACH CONCURRENTLY refuses it). One pass at a time (advisory
 * lock); a pass that finds the lock taken does nothing.
 */
export async function maintainSamplePartitions(
  sql: Sql,
  options: { now: Date; expiry?: { defaultDays: number } },
): Promise<PartitionMaintenance> {
  const result: PartitionMaintenance = { legacyConverted: false, created: [], dropped: [], expiredRuns: 0 };
  const conn = await sql.reserve();
  try {
    const [lock] = await conn<{ ok: boolean }[]>`select pg_try_advisory_lock(${MAINTENANCE_LOCK_KEY}) as ok`;
    if (!lock!.ok) return result;
    try {
      if (!(await convertLegacy(conn, options.expiry !== undefined, result))) return result;
      await createWeeks(conn, options.now, result);
      if (options.expiry) {
        // Built beside writes, once; finds a week's runs without reading every run.
        await conn`create index concurrently if not exists runs_samples_week on runs (samples_week) where samples_expired_at is null`;
        await dropExpiredWeeks(conn, options.now, options.expiry.defaultDays, result);
      }
      return result;
    } finally {
      await conn`select pg_advisory_unlock(${MAINTENANCE_LOCK_KEY})`;
    }
  } finally {
    conn.release();
  }
}

type Conn = Awaited<ReturnType<Sql['reserve']>>;

/** A transaction on the reserved connection (which has no begin()): the lock is the session's, the DDL the transaction's. */
async function inTransaction(conn: Conn, work: () => Promise<void>): Promise<void> {
  await conn`begin`;
  try {
    await work();
    await conn`commit`;
  } catch (error) {
    await conn`rollback`;
    throw error;
  }
}

/** True once the legacy table is a range partition; `validate` false: only looks (migrate()'s start-up step scans nothing). */
async function convertLegacy(conn: Conn, validate: boolean, result: PartitionMaintenance): Promise<boolean> {
  const [legacy] = await conn<{ bound: string; valid: boolean }[]>`
    select pg_get_expr(c.relpartbound, c.oid) as bound, k.convalidated as valid
    from pg_class c join pg_constraint k on k.conrelid = c.oid and k.conname = 'run_samples_legacy_week'
    where c.oid = 'run_samples_legacy'::regclass`;
  if (legacy!.bound !== 'DEFAULT') return true;
  if (!validate) return false;
  if (!legacy!.valid) await conn`alter table run_samples_legacy validate constraint run_samples_legacy_week`;
  await inTransaction(conn, async () => {
    // DETACH takes ACCESS EXCLUSIVE on run_samples: wait briefly behind long readers rather than
    // queue every writer behind us; a pass that times out tries again next time.
    await conn`set local lock_timeout = '5s'`;
    await conn`alter table run_samples detach partition run_samples_legacy`;
    await conn.unsafe(`alter table run_samples attach partition run_samples_legacy for values from ('${LEGACY_WEEK}') to ('1970-01-02')`);
  });
  result.legacyConverted = true;
  return true;
}

async function createWeeks(conn: Conn, now: Date, result: PartitionMaintenance): Promise<void> {
  const first = sampleWeekOf(now);
  for (let i = 0; i <= SAMPLE_WEEKS_AHEAD; i++) {
    const week = addDays(first, 7 * i);
    const name = samplePartitionName(week);
    const [exists] = await conn<{ oid: string | null }[]>`select to_regclass(${name})::text as oid`;
    if (exists!.oid !== null) continue;
    // Created apart and attached (SHARE UPDATE EXCLUSIVE on the parent), not CREATE … PARTITION OF
    // (ACCESS EXCLUSIVE): writers of the other weeks never wait.
    await inTransaction(conn, async () => {
      await conn.unsafe(`create table ${name} (like run_samples including defaults)`);
      await conn.unsafe(`alter table ${name} add primary key (run_id, target_id, seq, region)`);
      await conn.unsafe(`alter table run_samples attach partition ${name} for values from ('${week}') to ('${addDays(week, 7)}')`);
    });
    result.created.push(name);
  }
}

async function dropExpiredWeeks(conn: Conn, now: Date, defaultDays: number, result: PartitionMaintenance): Promise<void> {
  const thisWeek = sampleWeekOf(now);
  // Weekly tables attached, being detached (a pass cut short in DETACH CONCURRENTLY), or detached
  // and not yet dropped (cut short before DROP): all of past weeks.
  const tables = await conn<{ name: string; attached: boolean; pending: boolean }[]>`
    select c.relname as name, i.inhrelid is not null as attached, coalesce(i.inhdetachpending, false) as pending
    from pg_class c join pg_namespace n on n.oid = c.relnamespace and n.nspname = current_schema()
      left join pg_inherits i on i.inhrelid = c.oid
    where c.relkind = 'r' and c.relname ~ '^run_samples_w[0-9]{8}$'
    order by c.relname`;
  for (const table of tables) {
    const week = `${table.name.slice(13, 17)}-${table.name.slice(17, 19)}-${table.name.slice(19, 21)}`;
    if (week >= thisWeek) continue;
    if (table.attached && !table.pending) {
      const [kept] = await conn<{ n: number }[]>`
        select count(*)::int as n from runs r join suites s on s.id = r.test_suite_id join tenants t on t.id = r.tenant_id
        where r.samples_week = ${week}::date and r.samples_expired_at is null
          and (r.finished_at is null or r.finished_at >= ${now}::timestamptz
            - make_interval(days => coalesce(s.sample_retention_days, t.sample_retention_days, ${defaultDays}::int)))`;
      if (kept!.n > 0) continue;
    }
    // Not in a transaction block: CONCURRENTLY waits for queries using the table instead of locking them out.
    if (table.attached) await conn.unsafe(`alter table run_samples detach partition ${table.name} ${table.pending ? 'finalize' : 'concurrently'}`);
    await conn.unsafe(`drop table ${table.name}`);
    const marked = await conn`
      update runs set samples_expired_at = ${now} where samples_week = ${week}::date and samples_expired_at is null`;
    result.dropped.push(table.name);
    result.expiredRuns += marked.count;
  }
}
