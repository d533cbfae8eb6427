import type { Sql } from './client';

/** How long a probe lease lives without renewal: a dead worker's lease is given back within this. */
export const PROBE_LEASE_TTL_S = 45;

export interface ProbeLeaseKey {
  runId: string;
  /** Stable over an activity's attempts (the Temporal activity's own id), so a retry takes its own lease back. */
  leaseKey: string;
  /** host:pid of the worker holding it (for an operator reading the table). */
  worker: string;
}

/**
 * Takes a place among the probe activities the run's tenant has in flight, unless it already has
 * its cap of them (tenants.max_probe_activities, else `defaultCap`): true when taken (or already
 * held under this key). Leases past their expiry are dropped first. Takes of one tenant are
 * serialized by an advisory lock on it, so two cannot both take the last place. A run that is gone
 * takes nothing and is let through (tenantId null): the activity finds that out itself.
 */
export async function takeProbeLease(sql: Sql, key: ProbeLeaseKey, defaultCap: number): Promise<{ taken: boolean; tenantId: string | null }> {
  return (await sql.begin(async (tx) => {
    const [run] = await tx<{ tenant_id: string }[]>`select tenant_id from runs where id = ${key.runId}`;
    if (!run) return { taken: true, tenantId: null };
    await tx`select pg_advisory_xact_lock(hashtext(${`rvs-tenant-probe-cap:${run.tenant_id}`}))`;
    await tx`delete from tenant_probe_leases where tenant_id = ${run.tenant_id} and expires_at < now()`;
    const [load] = await tx<{ cap: number; held: number; mine: boolean }[]>`
      select coalesce((select max_probe_activities from tenants where id = ${run.tenant_id}), ${defaultCap})::int as cap,
             (select count(*) from tenant_probe_leases where tenant_id = ${run.tenant_id})::int as held,
             exists (select 1 from tenant_probe_leases where tenant_id = ${run.tenant_id} and lease_key = ${key.leaseKey}) as mine`;
    if (!load!.mine && load!.held >= load!.cap) return { taken: false, tenantId: run.tenant_id };
    await tx`
      insert into tenant_probe_leases (tenant_id, lease_key, worker, expires_at)
      values (${run.tenant_id}, ${key.leaseKey}, ${key.worker}, now() + make_interval(secs => ${PROBE_LEASE_TTL_S}))
      on conflict (tenant_id, lease_key) do update set worker = excluded.worker, expires_at = excluded.expires_at`;
    return { taken: true, tenantId: run.tenant_id };
  }))!;
}

/** Keeps a held lease alive for another PROBE_LEASE_TTL_S. */
export async function renewProbeLease(sql: Sql, tenantId: string, leaseKey: string): Promise<void> {
  await sql`update tenant_probe_leases set expires_at = now() + make_interval(secs => ${PROBE_LEASE_TTL_S})
            where tenant_id = ${tenantId} and lease_key = ${leaseKey}`;
}

export async function releaseProbeLease(sql: Sql, tenantId: string, leaseKey: string): Promise<void> {
  await sql`delete from tenant_probe_leases where tenant_id = ${tenantId} and lease_key = ${leaseKey}`;
}

/** The probe activities a tenant has in flight (leases not expired). */
export async function probeLeasesHeld(sql: Sql, tenantId: string): Promise<number> {
  const [row] = await sql<{ n: number }[]>`select count(*)::int as n from tenant_probe_leases where tenant_id = ${tenantId} and expires_at >= now()`;
  return row!.n;
}

/** Sets or clears (null) a tenant's cap on probe activities in flight at once. */
export async function setTenantProbeCap(sql: Sql, tenantId: string, cap: number | null): Promise<void> {
  await sql`update tenants set max_probe_activities = ${cap}, updated_at = now() where id = ${tenantId}`;
}

/** A tenant's own caps (null: the service's default applies). */
export async function tenantCaps(sql: Sql, tenantId: string): Promise<{ maxRunningRuns: number | null; maxProbeActivities: number | null }> {
  const [row] = await sql<{ max_running_runs: number | null; max_probe_activities: number | null }[]>`
    select max_running_runs, max_probe_activities from tenants where id = ${tenantId}`;
  return { maxRunningRuns: row?.max_running_runs ?? null, maxProbeActivities: row?.max_probe_activities ?? null };
}
