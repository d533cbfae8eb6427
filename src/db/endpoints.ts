import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { Queryable } from './client';

/**
 * One address of an endpoint as stored (migration 037): its transport (a registry key of
 * src/domain/transport.ts, kept as text: a newer version's transport is read, not trusted) and its
 * URL, a secret, encrypted and redacted by the one path every transport takes (services/endpoints.ts).
 */
export const storedAddressSchema = z.strictObject({
  transport: z.string(),
  url_redacted: z.string(),
  url_encrypted: z.string(),
});
export type StoredAddress = z.infer<typeof storedAddressSchema>;

/** The endpoint's address of one transport, undefined when it has none. */
export function addressOf(endpoint: Pick<EndpointRow, 'addresses'>, transport: string): StoredAddress | undefined {
  return endpoint.addresses.find((address) => address.transport === transport);
}

export interface EndpointRow {
  id: string;
  tenant_id: string;
  chain_id: string;
  name: string;
  protocol: string;
  /** At most one per transport; always one of transport http (the endpoint's `url`). */
  addresses: StoredAddress[];
  /**
   * Views of `addresses` that Postgres derives (generated columns, migration 037): the http and
   * ws addresses, for SQL that shows an endpoint's URL and for readers from before addresses.
   * Never written; null when the endpoint has no such address.
   */
  url_redacted: string;
  url_encrypted: string;
  ws_url_redacted: string | null;
  ws_url_encrypted: string | null;
  header_names: string[];
  headers_encrypted: string | null;
  timeout_ms: number;
  /** Set for an endpoint given to one run only (a trigger's `targets`): the run owns it. */
  owner_run_id: string | null;
  created_at: Date;
  updated_at: Date;
}

export interface NewEndpoint {
  tenantId: string;
  chainId: string;
  name: string;
  protocol: string;
  /** Encrypted and redacted (services/endpoints.ts storedAddresses); one of transport http. */
  addresses: StoredAddress[];
  headerNames: string[];
  headersEncrypted: string | null;
  timeoutMs: number;
  /** A run's own endpoint (inserted after its run row, before its targets). */
  ownerRunId?: string;
  id?: string;
}

export async function insertEndpoint(sql: Queryable, e: NewEndpoint): Promise<EndpointRow> {
  const [row] = await sql<EndpointRow[]>`
    insert into endpoints (id, tenant_id, chain_id, name, protocol, addresses, header_names, headers_encrypted, timeout_ms, owner_run_id)
    values (${e.id ?? randomUUID()}, ${e.tenantId}, ${e.chainId}, ${e.name}, ${e.protocol}, ${sql.json(e.addresses)},
            ${e.headerNames}, ${e.headersEncrypted}, ${e.timeoutMs}, ${e.ownerRunId ?? null})
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

/** The tenant's own endpoints, newest first: endpoints owned by a run are not the tenant's to list. */
export async function listEndpoints(
  sql: Queryable,
  tenantId: string,
  page: { limit: number; offset: number },
): Promise<{ rows: EndpointRow[]; total: number }> {
  const rows = await sql<EndpointRow[]>`
    select * from endpoints where tenant_id = ${tenantId} and owner_run_id is null
    order by created_at desc, id desc limit ${page.limit} offset ${page.offset}`;
  const [count] = await sql<{ n: number }[]>`
    select count(*)::int as n from endpoints where tenant_id = ${tenantId} and owner_run_id is null`;
  return { rows, total: count!.n };
}

export interface EndpointPatch {
  name?: string;
  /** Replaces every address at once (one of transport http among them). */
  addresses?: StoredAddress[];
  headerNames?: string[];
  headersEncrypted?: string | null;
  timeoutMs?: number;
}

/** Sets the given fields (undefined = unchanged) and bumps updated_at; undefined when no such row. */
export async function updateEndpoint(
  sql: Queryable,
  id: string,
  tenantId: string,
  patch: EndpointPatch,
): Promise<EndpointRow | undefined> {
  const columns = Object.fromEntries(
    Object.entries({
      name: patch.name,
      addresses: patch.addresses === undefined ? undefined : sql.json(patch.addresses),
      header_names: patch.headerNames,
      headers_encrypted: patch.headersEncrypted,
      timeout_ms: patch.timeoutMs,
    }).filter(([, value]) => value !== undefined),
  );
  const [row] = await sql<EndpointRow[]>`
    update endpoints set ${sql(columns)}, updated_at = now()
    where id = ${id} and tenant_id = ${tenantId} and owner_run_id is null
    returning *`;
  return row;
}

/** What still points at an endpoint: suites (through suite_endpoints) and run targets. */
export async function endpointReferences(
  sql: Queryable,
  id: string,
): Promise<{ suites: number; suiteNames: string[]; runs: number }> {
  const [row] = await sql<{ suites: number; suite_names: string[] | null; runs: number }[]>`
    select (select count(*)::int from suite_endpoints where endpoint_id = ${id}) as suites,
           (select array_agg(name order by name) from (
              select s.name from suite_endpoints se join suites s on s.id = se.suite_id
              where se.endpoint_id = ${id} order by s.name limit 3) named) as suite_names,
           (select count(distinct run_id)::int from run_targets where endpoint_id = ${id}) as runs`;
  return { suites: row!.suites, suiteNames: row!.suite_names ?? [], runs: row!.runs };
}

export async function deleteEndpoint(sql: Queryable, id: string, tenantId: string): Promise<boolean> {
  const rows = await sql`delete from endpoints where id = ${id} and tenant_id = ${tenantId} and owner_run_id is null returning id`;
  return rows.length > 0;
}
