import { randomUUID } from 'node:crypto';
import { isUuidShaped, type ChainPreset, type WorkloadPreset } from '../domain/catalog-presets';
import { storedChainId } from '../domain/chain-id';
import type { Queryable } from './client';

/** tenant_id is null for a built-in preset. */
export interface ChainPresetRow {
  id: string;
  tenant_id: string | null;
  slug: string;
  name: string;
  family: string;
  chain_id: string | null;
  explorer_url: string | null;
  created_at: Date;
}

export interface WorkloadPresetRow {
  id: string;
  tenant_id: string | null;
  slug: string;
  name: string;
  family: string;
  description: string;
  workload: Record<string, unknown>;
  created_at: Date;
}

export type CatalogKind = 'chain' | 'workload';

export interface CatalogListQuery {
  family: string | null;
  limit: number;
  offset: number;
}

/*
 * The two tables differ only in their payload columns, so each query is written once and the
 * table chosen here (from a closed set: never from input).
 */
const TABLES: Record<CatalogKind, string> = {
  chain: 'catalog_chain_presets',
  workload: 'catalog_workload_presets',
};

function tableOf(sql: Queryable, kind: CatalogKind) {
  const name: string = TABLES[kind];
  return sql(name);
}

type RowOf<K extends CatalogKind> = K extends 'chain' ? ChainPresetRow : WorkloadPresetRow;

/** Built-ins plus the tenant's own entries, newest first. */
export async function listPresets<K extends CatalogKind>(
  sql: Queryable,
  kind: K,
  tenantId: string,
  query: CatalogListQuery,
): Promise<{ rows: RowOf<K>[]; total: number }> {
  const table = tableOf(sql, kind);
  const visible = sql`(tenant_id is null or tenant_id = ${tenantId}) and (${query.family}::text is null or family = ${query.family})`;
  const rows = await sql<RowOf<K>[]>`
    select * from ${table} where ${visible}
    order by created_at desc, id desc limit ${query.limit} offset ${query.offset}`;
  const [count] = await sql<{ n: number }[]>`select count(*)::int as n from ${table} where ${visible}`;
  return { rows, total: count!.n };
}

export async function findPresetById<K extends CatalogKind>(sql: Queryable, kind: K, id: string): Promise<RowOf<K> | undefined> {
  const [row] = await sql<RowOf<K>[]>`select * from ${tableOf(sql, kind)} where id = ${id}`;
  return row;
}

/**
 * The preset a tenant means by a slug: its own entry first, then the built-in. (Creating an entry
 * with a built-in's slug is refused, but a later migration may add a built-in a tenant already
 * has a slug for; the tenant's deliberate choice wins.)
 */
export async function findPresetBySlug<K extends CatalogKind>(
  sql: Queryable,
  kind: K,
  tenantId: string,
  slug: string,
): Promise<RowOf<K> | undefined> {
  const [row] = await sql<RowOf<K>[]>`
    select * from ${tableOf(sql, kind)}
    where slug = ${slug} and (tenant_id is null or tenant_id = ${tenantId})
    order by tenant_id nulls last limit 1`;
  return row;
}

/** By id or slug, among the built-ins and the tenant's own entries only. */
export async function findVisiblePreset<K extends CatalogKind>(
  sql: Queryable,
  kind: K,
  tenantId: string,
  ref: string,
): Promise<RowOf<K> | undefined> {
  if (!isUuidShaped(ref)) return findPresetBySlug(sql, kind, tenantId, ref);
  const row = await findPresetById(sql, kind, ref);
  return row && (row.tenant_id === null || row.tenant_id === tenantId) ? row : undefined;
}

export async function builtinSlugExists(sql: Queryable, kind: CatalogKind, slug: string): Promise<boolean> {
  const [row] = await sql`select 1 from ${tableOf(sql, kind)} where tenant_id is null and slug = ${slug}`;
  return row !== undefined;
}

export async function insertChainPreset(
  sql: Queryable,
  preset: { tenantId: string; slug: string; name: string; family: string; chainId: string | null; explorerUrl: string | null },
): Promise<ChainPresetRow> {
  const [row] = await sql<ChainPresetRow[]>`
    insert into catalog_chain_presets (id, tenant_id, slug, name, family, chain_id, explorer_url)
    values (${randomUUID()}, ${preset.tenantId}, ${preset.slug}, ${preset.name}, ${preset.family},
            ${preset.chainId}, ${preset.explorerUrl})
    returning *`;
  return row!;
}

export async function insertWorkloadPreset(
  sql: Queryable,
  preset: { tenantId: string; slug: string; name: string; family: string; description: string; workload: Record<string, unknown> },
): Promise<WorkloadPresetRow> {
  const [row] = await sql<WorkloadPresetRow[]>`
    insert into catalog_workload_presets (id, tenant_id, slug, name, family, description, workload)
    values (${randomUUID()}, ${preset.tenantId}, ${preset.slug}, ${preset.name}, ${preset.family},
            ${preset.description}, ${sql.json(preset.workload as never)})
    returning *`;
  return row!;
}

/** Deletes a tenant-owned entry; built-ins (tenant_id null) are never matched. */
export async function deleteTenantPreset(sql: Queryable, kind: CatalogKind, tenantId: string, id: string): Promise<boolean> {
  const rows = await sql`delete from ${tableOf(sql, kind)} where id = ${id} and tenant_id = ${tenantId} returning id`;
  return rows.length > 0;
}

/**
 * Makes the built-in rows (tenant_id null) exactly the given presets: the chain registry's, so a
 * family's presets reach the catalog from its folder with no SQL. A built-in missing from the list
 * is deleted (nothing references catalog rows: chains and suites copy their values), then each
 * preset is inserted or, when its values changed, updated in place (id and created_at are kept).
 * An unchanged row is not written, so running this at every start costs no writes. A new built-in
 * takes the oldest built-in's created_at, so lists (newest first) keep a tenant's entries before
 * every built-in.
 */
export async function syncBuiltinPresets(
  sql: Queryable,
  presets: { chains: readonly ChainPreset[]; workloads: readonly WorkloadPreset[] },
): Promise<void> {
  const chainIds = presets.chains.map((p) => p.id);
  const workloadIds = presets.workloads.map((p) => p.id);
  await sql`delete from catalog_chain_presets where tenant_id is null and not (id = any(${chainIds}::uuid[]))`;
  await sql`delete from catalog_workload_presets where tenant_id is null and not (id = any(${workloadIds}::uuid[]))`;
  for (const p of presets.chains) {
    await sql`
      insert into catalog_chain_presets as c (id, tenant_id, slug, name, family, chain_id, explorer_url, created_at)
      values (${p.id}, null, ${p.slug}, ${p.name}, ${p.family}, ${storedChainId(p.chain_id)}, ${p.explorer_url},
              coalesce((select min(created_at) from catalog_chain_presets where tenant_id is null), now()))
      on conflict (id) do update
        set slug = excluded.slug, name = excluded.name, family = excluded.family,
            chain_id = excluded.chain_id, explorer_url = excluded.explorer_url
        where c.tenant_id is null
          and (c.slug, c.name, c.family, c.chain_id, c.explorer_url)
              is distinct from (excluded.slug, excluded.name, excluded.family, excluded.chain_id, excluded.explorer_url)`;
  }
  for (const p of presets.workloads) {
    await sql`
      insert into catalog_workload_presets as w (id, tenant_id, slug, name, family, description, workload, created_at)
      values (${p.id}, null, ${p.slug}, ${p.name}, ${p.family}, ${p.description}, ${sql.json(p.workload as never)},
              coalesce((select min(created_at) from catalog_workload_presets where tenant_id is null), now()))
      on conflict (id) do update
        set slug = excluded.slug, name = excluded.name, family = excluded.family,
            description = excluded.description, workload = excluded.workload
        where w.tenant_id is null
          and (w.slug, w.name, w.family, w.description, w.workload)
              is distinct from (excluded.slug, excluded.name, excluded.family, excluded.description, excluded.workload)`;
  }
}
