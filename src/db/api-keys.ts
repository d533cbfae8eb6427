import { randomUUID } from 'node:crypto';
import type { Queryable } from './client';

export interface ApiKeyRow {
  id: string;
  tenant_id: string;
  name: string;
  prefix: string;
  secret_hash: Buffer;
  scopes: string[];
  created_at: Date;
  last_used_at: Date | null;
  revoked_at: Date | null;
}

/** A key with what authentication needs to know of its tenant, in one query (every request runs it). */
export interface ApiKeyWithTenant extends ApiKeyRow {
  tenant_slug: string;
  tenant_disabled_at: Date | null;
}

export async function findApiKeyByPrefix(sql: Queryable, prefix: string): Promise<ApiKeyWithTenant | undefined> {
  const [row] = await sql<ApiKeyWithTenant[]>`
    select k.*, t.slug as tenant_slug, t.disabled_at as tenant_disabled_at
    from api_keys k join tenants t on t.id = k.tenant_id
    where k.prefix = ${prefix}`;
  return row;
}

export async function insertApiKey(
  sql: Queryable,
  key: { tenantId: string; name: string; prefix: string; secretHash: Buffer; scopes: readonly string[] },
): Promise<ApiKeyRow> {
  const [row] = await sql<ApiKeyRow[]>`
    insert into api_keys (id, tenant_id, name, prefix, secret_hash, scopes)
    values (${randomUUID()}, ${key.tenantId}, ${key.name}, ${key.prefix}, ${key.secretHash}, ${key.scopes as string[]})
    returning *`;
  return row!;
}

/** Creates the key if its prefix is free; returns false if a key with that prefix already exists. */
export async function insertApiKeyIfAbsent(
  sql: Queryable,
  key: { tenantId: string; name: string; prefix: string; secretHash: Buffer; scopes: readonly string[] },
): Promise<boolean> {
  const rows = await sql`
    insert into api_keys (id, tenant_id, name, prefix, secret_hash, scopes)
    values (${randomUUID()}, ${key.tenantId}, ${key.name}, ${key.prefix}, ${key.secretHash}, ${key.scopes as string[]})
    on conflict (prefix) do nothing
    returning id`;
  return rows.length === 1;
}

export async function countApiKeys(sql: Queryable, tenantId: string): Promise<number> {
  const [row] = await sql<{ n: number }[]>`select count(*)::int as n from api_keys where tenant_id = ${tenantId}`;
  return row!.n;
}

/** Last-used is advisory: updated at most once a minute per key so reads do not become writes. */
export async function touchApiKey(sql: Queryable, id: string): Promise<void> {
  await sql`
    update api_keys set last_used_at = now()
    where id = ${id} and (last_used_at is null or last_used_at < now() - interval '1 minute')`;
}

export async function findApiKey(sql: Queryable, id: string): Promise<ApiKeyRow | undefined> {
  const [row] = await sql<ApiKeyRow[]>`select * from api_keys where id = ${id}`;
  return row;
}

export async function listApiKeys(
  sql: Queryable,
  tenantId: string,
  page: { limit: number; offset: number },
): Promise<{ rows: ApiKeyRow[]; total: number }> {
  const rows = await sql<ApiKeyRow[]>`
    select * from api_keys where tenant_id = ${tenantId}
    order by created_at desc, id desc limit ${page.limit} offset ${page.offset}`;
  const [count] = await sql<{ n: number }[]>`select count(*)::int as n from api_keys where tenant_id = ${tenantId}`;
  return { rows, total: count!.n };
}

/** Revoking twice keeps the first revocation time. */
export async function revokeApiKey(sql: Queryable, id: string, tenantId: string): Promise<ApiKeyRow | undefined> {
  const [row] = await sql<ApiKeyRow[]>`
    update api_keys set revoked_at = coalesce(revoked_at, now())
    where id = ${id} and tenant_id = ${tenantId}
    returning *`;
  return row;
}
