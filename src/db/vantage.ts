import type { Queryable } from './client';

/*
 * Vantage points of a run (migration 023): which regions sent samples, and which regions no
 * worker took the probe tasks of (run_vantage_outcomes).
 */

/** Records that `region` could not probe a target: idempotent (a retried activity writes it once). */
export async function recordVantageUnavailable(sql: Queryable, input: { runId: string; region: string; targetId: string }): Promise<void> {
  await sql`
    insert into run_vantage_outcomes (run_id, region, target_id, outcome)
    values (${input.runId}, ${input.region}, ${input.targetId}, 'vantage_unavailable')
    on conflict (run_id, region, target_id) do nothing`;
}

/** Regions recorded as unavailable for the run, with the targets each could not probe. */
export async function findUnavailableRegions(sql: Queryable, runId: string): Promise<Map<string, string[]>> {
  const rows = await sql<{ region: string; target_ids: string[] }[]>`
    select region, array_agg(target_id::text order by target_id) as target_ids
    from run_vantage_outcomes where run_id = ${runId} and outcome = 'vantage_unavailable'
    group by region order by region`;
  return new Map(rows.map((r) => [r.region, r.target_ids]));
}
