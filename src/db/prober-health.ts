import type { ProberHealth, ProberHealthSample } from '../domain/verdict';
import type { Queryable } from './client';

/** Where one probe activity attempt ran: a retried attempt records a row of its own. */
export interface ProberHealthKey {
  runId: string;
  targetId: string;
  activity: string;
  fromSeq: number;
  attempt: number;
}

/** Records what one probe activity attempt measured of its worker; a repeated write of the same attempt keeps the last. */
export async function recordProberHealth(sql: Queryable, key: ProberHealthKey, sample: ProberHealthSample): Promise<void> {
  await sql`
    insert into run_prober_health (run_id, target_id, activity, from_seq, attempt, worker, loop_delay_p99_us, loop_delay_max_us,
                                   send_lag_p99_us, cpu_pct, duration_ms)
    values (${key.runId}, ${key.targetId}, ${key.activity}, ${key.fromSeq}, ${key.attempt}, ${sample.worker}, ${sample.loopDelayP99Us},
            ${sample.loopDelayMaxUs}, ${sample.sendLagP99Us}, ${sample.cpuPct}, ${sample.durationMs})
    on conflict (run_id, target_id, activity, from_seq, attempt) do update set
      worker = excluded.worker, loop_delay_p99_us = excluded.loop_delay_p99_us, loop_delay_max_us = excluded.loop_delay_max_us,
      send_lag_p99_us = excluded.send_lag_p99_us, cpu_pct = excluded.cpu_pct, duration_ms = excluded.duration_ms, recorded_at = now()`;
}

/**
 * The worst the run's probe activities recorded: the verdict judges the run by its most loaded
 * prober, since any of its samples may come from it. Undefined when none recorded (runs probed
 * before the prober was measured).
 */
export async function proberHealthOfRun(sql: Queryable, runId: string): Promise<ProberHealth | undefined> {
  const [row] = await sql<{ activities: number; p99: string | null; max: string | null; lag: string | null; cpu: number | null }[]>`
    select count(*)::int as activities, max(loop_delay_p99_us) as p99, max(loop_delay_max_us) as max,
           max(send_lag_p99_us) as lag, max(cpu_pct)::float8 as cpu
    from run_prober_health where run_id = ${runId}`;
  if (!row || row.activities === 0) return undefined;
  const ms = (us: string | null) => Math.round(Number(us ?? 0) / 100) / 10;
  return {
    activities: row.activities,
    loop_delay_p99_ms: ms(row.p99),
    loop_delay_max_ms: ms(row.max),
    send_lag_p99_ms: row.lag === null ? null : ms(row.lag),
    cpu_pct: Math.round((row.cpu ?? 0) * 10) / 10,
  };
}
