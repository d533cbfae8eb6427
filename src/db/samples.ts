import type { Queryable } from './client';
import type { SampleOutcome } from '../domain/sample-outcome';
import type { SampleRow } from './samples-ingest';

/* A run's samples as the API reads them back: a filtered page, and how many a run holds. */

export async function countRunSamples(sql: Queryable, runId: string): Promise<number> {
  const [row] = await sql<{ n: number }[]>`select count(*)::int as n from run_samples where run_id = ${runId}`;
  return row!.n;
}

export async function listSamples(
  sql: Queryable,
  runId: string,
  filter: { targetId: string | null; method: string | null; outcome: SampleOutcome | null; region?: string | null; limit: number; offset: number },
): Promise<{ rows: SampleRow[]; total: number }> {
  const where = sql`
    where run_id = ${runId}
    ${filter.targetId ? sql`and target_id = ${filter.targetId}` : sql``}
    ${filter.method ? sql`and method = ${filter.method}` : sql``}
    ${filter.outcome ? sql`and outcome = ${filter.outcome}` : sql``}
    ${filter.region ? sql`and region = ${filter.region}` : sql``}`;
  const rows = await sql<SampleRow[]>`
    select * from run_samples ${where} order by target_id, seq, region limit ${filter.limit} offset ${filter.offset}`;
  const [count] = await sql<{ n: number }[]>`select count(*)::int as n from run_samples ${where}`;
  return { rows, total: count!.n };
}

/**
 * A sweep's warm-up calls, by run: the stats leave them out, but the planned calls count them, so a
 * finished sweep's progress adds them back (warm-ups are in both the total and the done).
 */
export async function countWarmupSamplesOfRuns(sql: Queryable, runIds: readonly string[]): Promise<Map<string, number>> {
  if (runIds.length === 0) return new Map();
  const rows = await sql<{ run_id: string; n: number }[]>`
    select run_id, count(*)::int as n from run_samples where run_id = any(${runIds as string[]}::uuid[]) and warmup group by run_id`;
  return new Map(rows.map((r) => [r.run_id, r.n]));
}

export async function countSamplesOfRuns(sql: Queryable, runIds: readonly string[]): Promise<Map<string, number>> {
  const rows = await sql<{ run_id: string; n: number }[]>`
    select run_id, count(*)::int as n from run_samples where run_id = any(${runIds as string[]}::uuid[]) group by run_id`;
  return new Map(rows.map((r) => [r.run_id, r.n]));
}
