import type { Queryable } from './client';
import { orderStatistics } from './samples-stats';

/*
 * Per-step statistics of a capacity sweep's samples, in Postgres (warm-up calls excluded): counts,
 * error classes (429s apart from other HTTP errors), the prober's own send lag and send rate, and
 * the few order statistics of the successful latencies that the step's percentile intervals read.
 */

/** A pause between two sends of a step longer than this is an interruption (as probe-sweep-step re-anchors after 1 s). */
export const INTERRUPTION_S = 1;

const nullableNumber = (v: number | string | null | undefined) => (v === null || v === undefined ? null : Number(v));

/** One target's step, as measured. */
export interface SweepStepRow {
  step: number;
  calls: number;
  successful: number;
  /** HTTP 429 answers: the endpoint's rate limit, apart from the other error classes. */
  rate_limited: number;
  /** Failed calls by class (sample outcome, with `http_429` apart from `http_error`). */
  errors: Record<string, number>;
  /** Calls sent per second while the step was being sent (interruptions left out); null below two calls. */
  achieved_rps: number | null;
  /** Pauses longer than INTERRUPTION_S between two sends: a lost worker's step resumed by another. */
  interruptions: number;
  send_lag_p50_us: number | null;
  /** A sharded step's: its worst shard's p99 (run_sweep_shards gives the shard count). */
  send_lag_p99_us: number | null;
  send_lag_max_us: number | null;
  /** Sorted successful latencies, µs, sparse: only the ranks `ranksFor(successful)` asked for. */
  latencies: ArrayLike<number>;
}

interface CountRow {
  target_id: string;
  step: number;
  calls: number;
  successful: number;
  rate_limited: number;
  sent_span_s: number | null;
  interruptions: number;
  lag_p50: number | null;
  lag_max: number | null;
}

/**
 * The measured steps of the given targets (all steps, or only `step`), by target id, each target's
 * steps in step order. Warm-up calls (warmup true) count nowhere.
 */
export async function sweepStepRows(
  sql: Queryable,
  runId: string,
  targetIds: readonly string[],
  ranksFor: (n: number) => readonly number[],
  step: number | null = null,
): Promise<Map<string, SweepStepRow[]>> {
  const ids = targetIds as string[];
  const onlyStep = step === null ? sql`` : sql`and sweep_step = ${step}`;
  const onlyStepOf = (alias: string) => (step === null ? sql`` : sql`and ${sql(alias)}.sweep_step = ${step}`);
  // A call's send time: its intended instant plus its send lag (started_at is the intended
  // instant when the call went out late, the send itself when a timer fired early).
  // The send rate is over the time the step was being sent: a pause longer than a re-anchor
  // (a lost worker's step resumed by another) is left out and counted as an interruption; a
  // shorter stall of the prober stays in, and its send lag shows it too.
  const counts = await sql<CountRow[]>`
    with measured as (
      select target_id, sweep_step, ok, http_status, send_lag_us,
        started_at + greatest(coalesce(send_lag_us, 0), 0) * interval '1 microsecond' as sent_at
      from run_samples
      where run_id = ${runId} and target_id = any(${ids}::uuid[]) and sweep_step is not null and warmup = false ${onlyStep}
    ), gaps as (
      select *, extract(epoch from sent_at - lag(sent_at) over (partition by target_id, sweep_step order by sent_at))::float8 as gap_s
      from measured
    )
    select target_id, sweep_step::int as step, count(*)::int as calls,
      (count(*) filter (where ok))::int as successful,
      (count(*) filter (where http_status = 429))::int as rate_limited,
      sum(gap_s) filter (where gap_s <= ${INTERRUPTION_S})::float8 as sent_span_s,
      (count(*) filter (where gap_s > ${INTERRUPTION_S}))::int as interruptions,
      percentile_disc(0.5) within group (order by send_lag_us) as lag_p50,
      max(send_lag_us) as lag_max
    from gaps
    group by target_id, sweep_step
    order by target_id, sweep_step`;
  // Send lag is judged per shard (DESIGN §17): a sharded step's p99 is its worst shard's, so one
  // late worker is not averaged away by the others. An unsharded step is one shard.
  const lags = await sql<{ target_id: string; step: number; lag_p99: number | null }[]>`
    with shards as (
      select target_id, step, max(shards) as k from run_sweep_shards where run_id = ${runId} group by target_id, step
    ), per_shard as (
      select s.target_id, s.sweep_step, percentile_disc(0.99) within group (order by s.send_lag_us) as p99
      from run_samples s left join shards k on k.target_id = s.target_id and k.step = s.sweep_step
      where s.run_id = ${runId} and s.target_id = any(${ids}::uuid[]) and s.sweep_step is not null and s.warmup = false ${onlyStepOf('s')}
      group by s.target_id, s.sweep_step, mod(s.seq, coalesce(k.k, 1))
    )
    select target_id, sweep_step::int as step, max(p99) as lag_p99 from per_shard group by target_id, sweep_step`;
  const errorRows = await sql<{ target_id: string; step: number; class: string; n: number }[]>`
    select target_id, sweep_step::int as step, case when http_status = 429 then 'http_429' else outcome end as class, count(*)::int as n
    from run_samples
    where run_id = ${runId} and target_id = any(${ids}::uuid[]) and sweep_step is not null and warmup = false and not ok ${onlyStep}
    group by 1, 2, 3`;
  const key = (targetId: string, s: number) => `${targetId}/${s}`;
  const errors = new Map<string, Record<string, number>>();
  for (const e of errorRows) {
    const classes = errors.get(key(e.target_id, e.step)) ?? {};
    classes[e.class] = e.n;
    errors.set(key(e.target_id, e.step), classes);
  }
  const lagP99 = new Map(lags.map((l) => [key(l.target_id, l.step), l.lag_p99]));
  const byTarget = new Map<string, SweepStepRow[]>(ids.map((id) => [id, []]));
  for (const c of counts) {
    const successful = sql`run_id = ${runId} and target_id = ${c.target_id} and sweep_step = ${c.step} and warmup = false and ok`;
    const latencies = await orderStatistics(sql, successful, c.successful, ranksFor);
    byTarget.get(c.target_id)?.push({
      step: c.step,
      calls: c.calls,
      successful: c.successful,
      rate_limited: c.rate_limited,
      errors: errors.get(key(c.target_id, c.step)) ?? {},
      interruptions: c.interruptions,
      achieved_rps: c.calls >= 2 && c.sent_span_s !== null && c.sent_span_s > 0 ? (c.calls - 1) / c.sent_span_s : null,
      send_lag_p50_us: c.lag_p50 === null ? null : Number(c.lag_p50),
      send_lag_p99_us: nullableNumber(lagP99.get(key(c.target_id, c.step))),
      send_lag_max_us: c.lag_max === null ? null : Number(c.lag_max),
      latencies,
    });
  }
  return byTarget;
}
