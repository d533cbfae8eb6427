import type { Sql } from './client';
import { claimRun } from './runs';

export type CappedClaim = 'claimed' | 'not_queued' | 'over_cap';

/**
 * queued → claimed unless the run's tenant already has its cap of runs claimed or running
 * (tenants.max_running_runs, else `defaultCap`). Claims of one tenant are serialized by an
 * advisory lock on it, so two claims cannot both take the last place.
 */
export async function claimRunWithinTenantCap(sql: Sql, runId: string, defaultCap: number): Promise<CappedClaim> {
  return (await sql.begin(async (tx) => {
    const [run] = await tx<{ tenant_id: string; status: string }[]>`select tenant_id, status from runs where id = ${runId}`;
    if (!run || run.status !== 'queued') return 'not_queued';
    await tx`select pg_advisory_xact_lock(hashtext(${`rvs-tenant-run-cap:${run.tenant_id}`}))`;
    const [load] = await tx<{ cap: number; active: number }[]>`
      select coalesce((select max_running_runs from tenants where id = ${run.tenant_id}), ${defaultCap})::int as cap,
             (select count(*) from runs where tenant_id = ${run.tenant_id} and status in ('claimed', 'running'))::int as active`;
    if (load!.active >= load!.cap) return 'over_cap';
    return (await claimRun(tx, runId)) ? 'claimed' : 'not_queued';
  }))!;
}

/** Sets or clears (null) a tenant's cap on runs claimed or running at once. */
export async function setTenantRunCap(sql: Sql, tenantId: string, cap: number | null): Promise<void> {
  await sql`update tenants set max_running_runs = ${cap}, updated_at = now() where id = ${tenantId}`;
}
