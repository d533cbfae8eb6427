import { randomUUID } from 'node:crypto';
import type { Queryable } from './client';

export interface EndpointRow {
  id: string;
  tenant_id: string;
  chain_id: string;
  name: string;
  protocol: string;
  url_redacted: string;
  url_encrypted: string;
  header_names: string[];
  headers_encrypted: string | null;
  timeout_ms: number;
  created_at: Date;
  updated_at: Date;
}

export interface NewEndpoint {
  tenantId: string;
  chainId: string;
  name: string;
  protocol: string;
  urlRedacted: string;
  urlEncrypted: string;
  headerNames: string[];
  headersEncrypted: string | null;
  timeoutMs: number;
}

export async function insertEndpoint(sql: Queryable, e: NewEndpoint): Promise<EndpointRow> {
  const [row] = await sql<EndpointRow[]>`
    insert into endpoints (id, tenant_id, chain_id, name, protocol, url_redacted, url_encrypted,
                           header_names, headers_encrypted, timeout_ms)
    values (${randomUUID()}, ${e.tenantId}, ${e.chainId}, ${e.name}, ${e.protocol}, ${e.urlRedacted},
            ${e.urlEncrypted}, ${e.headerNames}, ${e.headersEncrypted}, ${e.timeoutMs})
    returning *`;
  return row!;
}

export async function findEndpoint(sql: Queryable, id: string): Promise<EndpointRow | undefined> {
  const [row] = await sql<EndpointRow[]>`select * from endpoints where id = ${id}`;
  return row;
}

export async function findEndpoints(sql: Queryable, ids: readonly string[]): Promise<EndpointRow[]> {
  return sql<EndpointRow[]>`select * from endpoints where id = any(${ids as string[]}::uuid[])`;
}

export async function listEndpoints(
  sql: Queryable,
  tenantId: string,
  page: { limit: number; offset: number },
): Promise<{ rows: EndpointRow[]; total: number }> {
  const rows = await sql<EndpointRow[]>`
    select * from endpoints where tenant_id = ${tenantId}
    order by created_at desc, id desc limit ${page.limit} offset ${page.offset}`;
  const [count] = await sql<{ n: number }[]>`select count(*)::int as n from endpoints where tenant_id = ${tenantId}`;
  return { rows, total: count!.n };
}
