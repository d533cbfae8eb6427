import type { Queryable } from './client';

/**
 * Deletes the raw samples of finished runs past their retention: the suite's
 * sample_retention_days, else its tenant's, else `defaultDays` (migration 032). At most `runLimit`
 * runs per call, oldest finish first, each run's samples in statements of at most `batchSize`
 * rows, so no statement holds many locks or runs long on a large table; the run is marked
 * (samples_expired_at) once its last batch is gone. A bounded batched DELETE: dropping whole
 * partitions needs run_samples partitioned by time (issue 36 item 2), not done yet.
 */
export async function expireRunSamples(
  sql: Queryable,
  options: { now: Date; defaultDays: number; runLimit: number; batchSize: number },
): Promise<{ runs: number; samples: number }> {
  const due = await sql<{ id: string }[]>`
    select r.id from runs r join suites s on s.id = r.test_suite_id join tenants t on t.id = r.tenant_id
    where r.finished_at is not null and r.samples_expired_at is null
      and r.finished_at < ${options.now}::timestamptz
        - make_interval(days => coalesce(s.sample_retention_days, t.sample_retention_days, ${options.defaultDays}::int))
    order by r.finished_at limit ${options.runLimit}`;
  let samples = 0;
  for (const { id } of due) {
    for (;;) {
      const deleted = await sql`
        delete from run_samples where ctid = any(array(select ctid from run_samples where run_id = ${id} limit ${options.batchSize}))`;
      samples += deleted.count;
      if (deleted.count < options.batchSize) break;
    }
    await sql`update runs set samples_expired_at = ${options.now} where id = ${id} and samples_expired_at is null`;
  }
  return { runs: due.length, samples };
}
