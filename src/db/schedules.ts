import type { Queryable } from './client';

/** A suite's schedule as stored (migration 015): cron with its timezone, or an interval. */
export interface ScheduleRow {
  suite_id: string;
  tenant_id: string;
  cron: string | null;
  timezone: string | null;
  interval_s: number | null;
  paused: boolean;
  created_at: Date;
  updated_at: Date;
}

export type ScheduleSpecFields = { cron: string; timezone: string; interval_s?: undefined } | { interval_s: number; cron?: undefined; timezone?: undefined };

export async function findSchedule(sql: Queryable, suiteId: string): Promise<ScheduleRow | undefined> {
  const [row] = await sql<ScheduleRow[]>`select * from suite_schedules where suite_id = ${suiteId}`;
  return row;
}

export async function findSchedules(sql: Queryable, suiteIds: readonly string[]): Promise<ScheduleRow[]> {
  if (suiteIds.length === 0) return [];
  return sql<ScheduleRow[]>`select * from suite_schedules where suite_id = any(${suiteIds as string[]}::uuid[])`;
}

/** Creates or replaces the suite's schedule. */
export async function upsertSchedule(
  sql: Queryable,
  schedule: { suiteId: string; tenantId: string; spec: ScheduleSpecFields; paused: boolean },
): Promise<ScheduleRow> {
  const { spec } = schedule;
  const [row] = await sql<ScheduleRow[]>`
    insert into suite_schedules (suite_id, tenant_id, cron, timezone, interval_s, paused)
    values (${schedule.suiteId}, ${schedule.tenantId}, ${spec.cron ?? null}, ${spec.timezone ?? null}, ${spec.interval_s ?? null}, ${schedule.paused})
    on conflict (suite_id) do update set
      cron = excluded.cron, timezone = excluded.timezone, interval_s = excluded.interval_s,
      paused = excluded.paused, updated_at = now()
    returning *`;
  return row!;
}

export async function setSchedulePaused(sql: Queryable, suiteId: string, paused: boolean): Promise<ScheduleRow | undefined> {
  const [row] = await sql<ScheduleRow[]>`
    update suite_schedules set paused = ${paused}, updated_at = now() where suite_id = ${suiteId} returning *`;
  return row;
}

export async function deleteSchedule(sql: Queryable, suiteId: string): Promise<boolean> {
  const rows = await sql`delete from suite_schedules where suite_id = ${suiteId} returning suite_id`;
  return rows.length > 0;
}

/** A run of the suite triggered by its schedule that has not finished yet (overlap check). */
export async function findActiveScheduledRun(sql: Queryable, suiteId: string): Promise<{ id: string } | undefined> {
  const [row] = await sql<{ id: string }[]>`
    select id from runs
    where test_suite_id = ${suiteId} and triggered_by = 'schedule' and status in ('queued', 'claimed', 'running')
    limit 1`;
  return row;
}

/** The run a fire of the suite's schedule started (fire id: the fire workflow's id), if any. */
export async function findRunOfFire(sql: Queryable, suiteId: string, fireId: string): Promise<{ id: string; status: string } | undefined> {
  const [row] = await sql<{ id: string; status: string }[]>`
    select id, status from runs where test_suite_id = ${suiteId} and schedule_fire_id = ${fireId}`;
  return row;
}

// First key of the two-key advisory lock that lets one fire of a suite's schedule at a time check
// for an unfinished scheduled run and trigger one (the migration lock uses the one-key form; the
// finalize and reconcile locks use other classes).
const SCHEDULE_FIRE_LOCK_CLASS = 0x534348; // "SCH"

/**
 * Takes the suite's fire lock until the end of the transaction `tx`, without waiting: false when
 * another fire holds it. Transaction-scoped, so commit, rollback or a lost connection always let
 * it go.
 */
export async function tryLockScheduleFire(tx: Queryable, suiteId: string): Promise<boolean> {
  const [row] = await tx<{ locked: boolean }[]>`
    select pg_try_advisory_xact_lock(${SCHEDULE_FIRE_LOCK_CLASS}, hashtext(${suiteId}::text)) as locked`;
  return row!.locked;
}
