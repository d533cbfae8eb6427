import { nearestRank, orderStatisticRanks } from '../domain/statistics/quantile-interval';
import type { PairedLatencies, VerdictInput } from '../domain/verdict';

type VerdictReference = NonNullable<VerdictInput['reference']>;
import type { Queryable } from './client';

// Candidate and reference samples of one seq, both sent on the shared anchor (send_lag_us set
// only then). Joined on the primary key (run_id, target_id, seq): one merge or hash join.
const PAIRS = (sql: Queryable, runId: string, candidateTargetId: string, referenceTargetId: string) => sql`
  from run_samples c
  join run_samples r on r.run_id = c.run_id and r.target_id = ${referenceTargetId} and r.seq = c.seq
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
 * What the paired latency comparison and the pairing skew need from a paired run, computed in
 * PostgreSQL so a million pairs never reach the worker: the number of seqs sent on the shared
 * anchor to both sides, the skew |candidate send lag − reference send lag| (p50, p95, max), and
 * over the n seqs that succeeded on both sides the two sorted latencies at the ranks of the p-th
 * percentile's interval (sparse) with the indicator counts of the paired interval
 * (relative-difference.ts). Null when no seq was sent on a shared anchor (an unpaired run).
 */
export async function pairedLatencies(
  sql: Queryable,
  runId: string,
  candidateTargetId: string,
  referenceTargetId: string,
  p = 0.95,
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
  const ranks = [...new Set([point, interval.lower, interval.upper])].filter((k) => k >= 1 && k <= n);
  // percentile_disc(f) reads rank ⌈f·n⌉; (k − ½)/n lands on rank k whatever the rounding.
  const fractions = ranks.map((k) => (k - 0.5) / n);
  const pointIndex = ranks.indexOf(point) + 1;
  const [row] = await sql<RanksRow[]>`
    with pairs as materialized (
      select c.latency_us as c_us, r.latency_us as r_us
      ${PAIRS(sql, runId, candidateTargetId, referenceTargetId)} and c.ok and r.ok
    ), q as (
      select percentile_disc(${fractions}::float8[]) within group (order by c_us) as c_values,
        percentile_disc(${fractions}::float8[]) within group (order by r_us) as r_values
      from pairs
    )
    select q.c_values, q.r_values,
      (count(*) filter (where p.c_us <= q.c_values[${pointIndex}] and p.r_us <= q.r_values[${pointIndex}]))::int as below,
      (count(*) filter (where p.c_us <= q.c_values[${pointIndex}]))::int as c_below,
      (count(*) filter (where p.r_us <= q.r_values[${pointIndex}]))::int as r_below
    from pairs p cross join q
    group by q.c_values, q.r_values`;
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
  sql: Queryable,
  run: { runId: string; openLoop: boolean; candidateTargetIds: readonly string[]; referenceTargetId: string },
): Promise<NonNullable<VerdictReference['pairing']>> {
  if (!run.openLoop) return { method: 'unpaired', reason: 'closed_loop' };
  if (run.candidateTargetIds.length !== 1) return { method: 'unpaired', reason: 'several_candidates' };
  const latencies = await pairedLatencies(sql, run.runId, run.candidateTargetIds[0]!, run.referenceTargetId);
  return latencies ? { method: 'paired', latencies } : { method: 'unpaired', reason: 'not_anchored' };
}
