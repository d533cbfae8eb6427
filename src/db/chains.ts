import { randomUUID } from 'node:crypto';
import type { Queryable } from './client';
import { listTenantPage } from './tenant-page';

export interface ChainRow {
  id: string;
  tenant_id: string;
  name: string;
  slug: string;
  family: string;
  chain_id: string | null;
  explorer_url: string | null;
  created_at: Date;
  updated_at: Date;
}

export interface NewChain {
  tenantId: string;
  name: string;
  slug: string;
  family: string;
  chainId: string | null;
  explorerUrl: string | null;
}

export async function insertChain(sql: Queryable, chain: NewChain): Promise<ChainRow> {
  const [row] = await sql<ChainRow[]>`
    insert into chains (id, tenant_id, name, slug, family, chain_id, explorer_url)
    values (${randomUUID()}, ${chain.tenantId}, ${chain.name}, ${chain.slug}, ${chain.family}, ${chain.chainId}, ${chain.explorerUrl})
    returning *`;
  return row!;
}

export async function findChain(sql: Queryable, id: string): Promise<ChainRow | undefined> {
  const [row] = await sql<ChainRow[]>`select * from chains where id = ${id}`;
  return row;
}

export function listChains(
  sql: Queryable,
  tenantId: string,
  page: { limit: number; offset: number },
): Promise<{ rows: ChainRow[]; total: number }> {
  return listTenantPage<ChainRow>(sql, 'chains', tenantId, page);
}

export interface ChainPatch {
  name?: string;
  slug?: string;
  family?: string;
  chainId?: string | null;
  explorerUrl?: string | null;
}

/** Sets the given fields (undefined = unchanged) and bumps updated_at; undefined when no such row. */
export async function updateChain(sql: Queryable, id: string, tenantId: string, patch: ChainPatch): Promise<ChainRow | undefined> {
  const columns = definedColumns({
    name: patch.name,
    slug: patch.slug,
    family: patch.family,
    chain_id: patch.chainId,
    explorer_url: patch.explorerUrl,
  });
  const [row] = await sql<ChainRow[]>`
    update chains set ${sql(columns)}, updated_at = now()
    where id = ${id} and tenant_id = ${tenantId}
    returning *`;
  return row;
}

/** What still points at a chain (the foreign keys of endpoints and suites). */
export async function chainReferences(sql: Queryable, id: string): Promise<{ endpoints: number; suites: number }> {
  const [row] = await sql<{ endpoints: number; suites: number }[]>`
    select (select count(*)::int from endpoints where chain_id = ${id}) as endpoints,
           (select count(*)::int from suites where chain_id = ${id}) as suites`;
  return row!;
}

export async function deleteChain(sql: Queryable, id: string, tenantId: string): Promise<boolean> {
  const rows = await sql`delete from chains where id = ${id} and tenant_id = ${tenantId} returning id`;
  return rows.length > 0;
}

/** The entries whose value is not undefined: postgres.js would write undefined as null. */
function definedColumns(values: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(values).filter(([, value]) => value !== undefined));
}
