import { LEGACY_WEEK } from './sample-partitions';
import type { Queryable } from './client';

/**
 * Deletes the raw samples of finished runs past their retention: the suite's
 * sample_retention_days, else its tenant's, else `defaultDays` (migration 032). At most `runLimit`
 * runs per call, oldest finish first, each run's samples in statements of at most `batchSize`
 * rows, so no statement holds many locks or runs long on a large table; the run is marked
 * (samples_expired_at) once its last batch is gone. Whole weeks go first, as dropped partitions
 * (maintainSamplePartitions, which marks their runs); what this deletes is the rest: runs in the
 * legacy table, and due runs of a week that still holds a run kept longer.
 */
export async function expireRunSamples(
  sql: Queryable,
  options: { now: Date; defaultDays: number; runLimit: number; batchSize: number },
): Promise<{ runs: number; samples: number }> {
  const due = await sql<{ id: string; week: string }[]>`
    select r.id, to_char(coalesce(r.samples_week, ${LEGACY_WEEK}::date), 'YYYY-MM-DD') as week from runs r join suites s on s.id = r.test_suite_id join tenants t on t.id = r.tenant_id
    where r.finished_at is not null and r.samples_expired_at is null
      and r.finished_at < ${options.now}::timestamptz
        - make_interval(days => coalesce(s.sample_retention_days, t.sample_retention_days, ${options.defaultDays}::int))
    order by r.finished_at limit ${options.runLimit}`;
  let samples = 0;
  for (const { id, week } of due) {
    for (;;) {
      // A ctid names a row within one table only: both sides keep to the run's week, so to the one
      // partition that holds all of its rows.
      const deleted = await sql`
        delete from run_samples where run_week = ${week}::date and ctid = any(array(
          select ctid from run_samples where run_week = ${week}::date and run_id = ${id} limit ${options.batchSize}))`;
      samples += deleted.count;
      if (deleted.count < options.batchSize) break;
    }
    await sql`update runs set samples_expired_at = ${options.now} where id = ${id} and samples_expired_at is null`;
  }
  return { runs: due.length, samples };
}
