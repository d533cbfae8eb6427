import { randomUUID } from 'node:crypto';
import type { SuiteConfig } from '../domain/suite-config';
import type { Queryable } from './client';

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
  const endpointIds = [
    ...suite.config.targets.map((t) => t.endpoint_id),
    ...(suite.config.reference_endpoint_id ? [suite.config.reference_endpoint_id] : []),
  ];
  await sql`
    insert into suite_endpoints (suite_id, endpoint_id)
    select ${id}, unnest(${endpointIds}::uuid[])`;
  return row!;
}

export async function findSuite(sql: Queryable, id: string): Promise<SuiteRow | undefined> {
  const [row] = await sql<SuiteRow[]>`select * from suites where id = ${id}`;
  return row;
}

export async function listSuites(
  sql: Queryable,
  tenantId: string,
  page: { limit: number; offset: number },
): Promise<{ rows: SuiteRow[]; total: number }> {
  const rows = await sql<SuiteRow[]>`
    select * from suites where tenant_id = ${tenantId}
    order by created_at desc, id desc limit ${page.limit} offset ${page.offset}`;
  const [count] = await sql<{ n: number }[]>`select count(*)::int as n from suites where tenant_id = ${tenantId}`;
  return { rows, total: count!.n };
}
