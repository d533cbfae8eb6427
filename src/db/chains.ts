import { randomUUID } from 'node:crypto';
import type { Queryable } from './client';

export interface ChainRow {
  id: string;
  tenant_id: string;
  name: string;
  slug: string;
  family: string;
  chain_id: string | null; // bigint arrives as a string
  explorer_url: string | null;
  created_at: Date;
  updated_at: Date;
}

export interface NewChain {
  tenantId: string;
  name: string;
  slug: string;
  family: string;
  chainId: number | null;
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

export async function listChains(
  sql: Queryable,
  tenantId: string,
  page: { limit: number; offset: number },
): Promise<{ rows: ChainRow[]; total: number }> {
  const rows = await sql<ChainRow[]>`
    select * from chains where tenant_id = ${tenantId}
    order by created_at desc, id desc limit ${page.limit} offset ${page.offset}`;
  const [count] = await sql<{ n: number }[]>`select count(*)::int as n from chains where tenant_id = ${tenantId}`;
  return { rows, total: count!.n };
}
