import { randomUUID } from 'node:crypto';
import type { SuiteConfig } from '../domain/suite-config';
import type { Queryable } from './client';
import { listTenantPage } from './tenant-page';

export interface SuiteRow {
  id: string;
  tenant_id: string;
  chain_id: string;
  name: string;
  description: string;
  config: SuiteConfig;
  created_at: Date;
  updated_at: Date;
}

export async function insertSuite(
  sql: Queryable,
  suite: { tenantId: string; chainId: string; name: string; description: string; config: SuiteConfig },
): Promise<SuiteRow> {
  const id = randomUUID();
  const [row] = await sql<SuiteRow[]>`
    insert into suites (id, tenant_id, chain_id, name, description, config)
    values (${id}, ${suite.tenantId}, ${suite.chainId}, ${suite.name}, ${suite.description}, ${sql.json(suite.config as never)})
    returning *`;
  await writeSuiteEndpoints(sql, id, suite.config);
  return row!;
}

/** suite_endpoints mirrors the endpoints a config names, so their foreign keys guard deletes. */
async function writeSuiteEndpoints(sql: Queryable, suiteId: string, config: SuiteConfig): Promise<void> {
  const endpointIds = [
    ...config.targets.map((t) => t.endpoint_id),
    ...(config.reference_endpoint_id ? [config.reference_endpoint_id] : []),
  ];
  await sql`delete from suite_endpoints where suite_id = ${suiteId}`;
  await sql`
    insert into suite_endpoints (suite_id, endpoint_id)
    select ${suiteId}, unnest(${endpointIds}::uuid[])`;
}

export async function findSuite(sql: Queryable, id: string): Promise<SuiteRow | undefined> {
  const [row] = await sql<SuiteRow[]>`select * from suites where id = ${id}`;
  return row;
}

/** One page of the tenant's suites, newest first; with `name`, only the suites of exactly that name. */
export async function listSuites(
  sql: Queryable,
  tenantId: string,
  page: { limit: number; offset: number; name?: string | null },
): Promise<{ rows: SuiteRow[]; total: number }> {
  if (page.name === undefined || page.name === null) return listTenantPage<SuiteRow>(sql, 'suites', tenantId, page);
  // Names are not unique (no constraint): a name may match several suites, and callers say so.
  const rows = await sql<SuiteRow[]>`
    select * from suites where tenant_id = ${tenantId} and name = ${page.name}
    order by created_at desc, id desc limit ${page.limit} offset ${page.offset}`;
  const [count] = await sql<{ n: number }[]>`select count(*)::int as n from suites where tenant_id = ${tenantId} and name = ${page.name}`;
  return { rows, total: count!.n };
}

/**
 * Sets the given fields (undefined = unchanged), bumps updated_at and, with a new config,
 * rewrites suite_endpoints. Run it in a transaction so the config and its links change together.
 * Undefined when no such row.
 */
export async function updateSuite(
  sql: Queryable,
  id: string,
  tenantId: string,
  patch: { name?: string; description?: string; config?: SuiteConfig },
): Promise<SuiteRow | undefined> {
  const columns = Object.fromEntries(
    Object.entries({
      name: patch.name,
      description: patch.description,
      config: patch.config === undefined ? undefined : sql.json(patch.config as never),
    }).filter(([, value]) => value !== undefined),
  );
  // Nothing but updated_at when only the suite's schedule (another table) changes. sql(columns)
  // must sit right after `set` (postgres.js builds an update list only there, not in a fragment).
  const [row] =
    Object.keys(columns).length > 0
      ? await sql<SuiteRow[]>`
          update suites set ${sql(columns)}, updated_at = now()
          where id = ${id} and tenant_id = ${tenantId}
          returning *`
      : await sql<SuiteRow[]>`
          update suites set updated_at = now()
          where id = ${id} and tenant_id = ${tenantId}
          returning *`;
  if (row && patch.config) await writeSuiteEndpoints(sql, id, patch.config);
  return row;
}

export async function countSuiteRuns(sql: Queryable, id: string): Promise<number> {
  const [row] = await sql<{ n: number }[]>`select count(*)::int as n from runs where test_suite_id = ${id}`;
  return row!.n;
}

/** suite_endpoints rows go with the suite (on delete cascade); runs do not (they keep history). */
export async function deleteSuite(sql: Queryable, id: string, tenantId: string): Promise<boolean> {
  const rows = await sql`delete from suites where id = ${id} and tenant_id = ${tenantId} returning id`;
  return rows.length > 0;
}
