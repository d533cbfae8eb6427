import type { Queryable } from './client';

/** Runs per status and verdict (null before finalize), for the rvs_runs gauge. */
export function countRunsByStatusAndVerdict(sql: Queryable): Promise<{ status: string; verdict: string | null; count: number }[]> {
  return sql<{ status: string; verdict: string | null; count: number }[]>`
    select status, coalesce(verdict_value, verdict ->> 'verdict') as verdict, count(*)::int as count
    from runs group by 1, 2`;
}
