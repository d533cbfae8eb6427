import { nearestRank, orderStatisticRanks } from '../domain/statistics/quantile-interval';
import { smallSampleRanks } from '../domain/statistics/relative-difference';
import type { PairedLatencies, VerdictInput } from '../domain/verdict';

type VerdictReference = NonNullable<VerdictInput['reference']>;
import type postgres from 'postgres';
import type { Queryable } from './client';

// Candidate and reference samples of one seq, both sent on the shared anchor (send_lag_us set
// only then). Joined on the primary key (run_id, target_id, seq): a merge join of two index
// scans in seq order (see withMergeJoin).
const PAIRS = (sql: Queryable, runId: string, candidateTargetId: string, referenceTargetId: string) => sql`
  from run_samples c
  join run_samples r on r.run_id = c.run_id and r.target_id = ${referenceTargetId} and r.seq = c.seq and r.region = c.region
  where c.run_id = ${runId} and c.target_id = ${candidateTargetId}
    and c.send_lag_us is not null and r.send_lag_us is not null`;

interface SkewRow {
  pairs: number;
  n: number;
  skew_p50_us: string | null;
  skew_p95_us: string | null;
  skew_max_us: string | null;
}

interface RanksRow {
  c_values: number[];
  r_values: number[];
  below: number;
  c_below: number;
  r_below: number;
}

/**
 * Runs `work` with hash and nested-loop joins off, then restores the two settings. Without
 * statistics on fresh samples the planner takes each side for a few rows and picks a hash join
 * (5× slower than the merge join on 500,000 pairs under load) or a nested loop (quadratic);
 * both sides are already in seq order in the primary key. set_config(…, true) is transaction-local,
 * hence the transaction. Not restored when `work` fails: the transaction is aborted anyway.
 */
async function withMergeJoin<T>(sql: postgres.TransactionSql, work: () => Promise<T>): Promise<T> {
  const [saved] = await sql<{ hashjoin: string; nestloop: string }[]>`
    select current_setting('enable_hashjoin') as hashjoin, current_setting('enable_nestloop') as nestloop,
      set_config('enable_hashjoin', 'off', true), set_config('enable_nestloop', 'off', true)`;
  const result = await work();
  await sql`select set_config('enable_hashjoin', ${saved!.hashjoin}, true), set_config('enable_nestloop', ${saved!.nestloop}, true)`;
  return result;
}

/**
 * What the paired latency comparison and the pairing skew need from a paired run, computed in
 * PostgreSQL so a million pairs never reach the worker: the number of seqs sent on the shared
 * anchor to both sides, the skew |candidate send lag − reference send lag| (p50, p95, max), and
 * over the n seqs that succeeded on both sides the two sorted latencies at the ranks of the p-th
 * percentile's interval and of its small-sample fail bound (sparse) with the indicator counts of the paired interval
 * (relative-difference.ts). Null when no seq was sent on a shared anchor (an unpaired run).
 */
export async function pairedLatencies(
  sql: postgres.TransactionSql,
  runId: string,
  candidateTargetId: string,
  referenceTargetId: string,
  p = 0.95,
): Promise<PairedLatencies | null> {
  return withMergeJoin(sql, () => pairedLatenciesUnplanned(sql, runId, candidateTargetId, referenceTargetId, p));
}

async function pairedLatenciesUnplanned(
  sql: postgres.TransactionSql,
  runId: string,
  candidateTargetId: string,
  referenceTargetId: string,
  p: number,
): Promise<PairedLatencies | null> {
  const [skew] = await sql<SkewRow[]>`
    select count(*)::int as pairs,
      (count(*) filter (where c.ok and r.ok))::int as n,
      percentile_disc(0.5) within group (order by abs(c.send_lag_us::bigint - r.send_lag_us)) as skew_p50_us,
      percentile_disc(0.95) within group (order by abs(c.send_lag_us::bigint - r.send_lag_us)) as skew_p95_us,
      max(abs(c.send_lag_us::bigint - r.send_lag_us)) as skew_max_us
    ${PAIRS(sql, runId, candidateTargetId, referenceTargetId)}`;
  if (!skew || skew.pairs === 0) return null;
  const { n } = skew;
  const candidate: { length: number; [rank: number]: number } = { length: n };
  const reference: { length: number; [rank: number]: number } = { length: n };
  const paired: PairedLatencies = {
    pairs: skew.pairs,
    candidate,
    reference,
    counts: { n, below: 0, candidateBelow: 0, referenceBelow: 0 },
    skew_us: { p50: Number(skew.skew_p50_us), p95: Number(skew.skew_p95_us), max: Number(skew.skew_max_us) },
  };
  if (n === 0) return paired;
  const interval = orderStatisticRanks(n, p);
  const point = nearestRank(n, p);
  const ranks = [...new Set([point, interval.lower, interval.upper, ...smallSampleRanks(n, p)])].filter((k) => k >= 1 && k <= n);
  // percentile_disc(f) reads rank ⌈f·n⌉; (k − ½)/n lands on rank k whatever the rounding.
  const fractions = ranks.map((k) => (k - 0.5) / n);
  const pointIndex = ranks.indexOf(point) + 1;
  const [row] = await sql<RanksRow[]>`
    with pairs as materialized (
      select c.latency_us as c_us, r.latency_us as r_us
      ${PAIRS(sql, runId, candidateTargetId, referenceTargetId)} and c.ok and r.ok
    ), q as materialized (
      select percentile_disc(${fractions}::float8[]) within group (order by c_us) as c_values,
        percentile_disc(${fractions}::float8[]) within group (order by r_us) as r_values
      from pairs
    )
    -- The one row of q is read through init plans (computed once), not joined: a join would
    -- re-run q per pair, or sort every pair for a group by.
    select (select c_values from q) as c_values, (select r_values from q) as r_values,
      (count(*) filter (where c_us <= (select c_values[${pointIndex}] from q) and r_us <= (select r_values[${pointIndex}] from q)))::int as below,
      (count(*) filter (where c_us <= (select c_values[${pointIndex}] from q)))::int as c_below,
      (count(*) filter (where r_us <= (select r_values[${pointIndex}] from q)))::int as r_below
    from pairs`;
  if (!row) return paired;
  ranks.forEach((k, i) => {
    candidate[k - 1] = Number(row.c_values[i]);
    reference[k - 1] = Number(row.r_values[i]);
  });
  paired.counts = { n, below: row.below, candidateBelow: row.c_below, referenceBelow: row.r_below };
  return paired;
}

/**
 * The verdict's pairing input for a run: paired when it probed in open loop, one candidate
 * against the reference, on a shared anchor; otherwise unpaired, with the reason.
 */
export async function loadPairing(
  sql: postgres.TransactionSql,
  run: { runId: string; openLoop: boolean; candidateTargetIds: readonly string[]; referenceTargetId: string },
): Promise<NonNullable<VerdictReference['pairing']>> {
  if (!run.openLoop) return { method: 'unpaired', reason: 'closed_loop' };
  if (run.candidateTargetIds.length !== 1) return { method: 'unpaired', reason: 'several_candidates' };
  const latencies = await pairedLatencies(sql, run.runId, run.candidateTargetIds[0]!, run.referenceTargetId);
  return latencies ? { method: 'paired', latencies } : { method: 'unpaired', reason: 'not_anchored' };
}
