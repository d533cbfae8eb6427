import type { Queryable } from './client';

/** The tables whose rows a tenant lists, newest first (endpoints list in db/endpoints.ts: runs own some). */
export type TenantTable = 'chains' | 'suites';

/** One page of a tenant's rows (created_at desc, id desc) and the total count. */
export async function listTenantPage<Row extends object>(
  sql: Queryable,
  table: TenantTable,
  tenantId: string,
  page: { limit: number; offset: number },
): Promise<{ rows: Row[]; total: number }> {
  const rows = await sql<Row[]>`
    select * from ${sql(table)} where tenant_id = ${tenantId}
    order by created_at desc, id desc limit ${page.limit} offset ${page.offset}`;
  const [count] = await sql<{ n: number }[]>`select count(*)::int as n from ${sql(table)} where tenant_id = ${tenantId}`;
  return { rows, total: count!.n };
}
