import type { Queryable } from './client';

export interface IdempotencyRow {
  request_hash: string;
  status_code: number | null;
  response_body: string | null;
  response_location: string | null;
}

/** Whose key it is: the tenant and the principal within it (services/context.ts principalKey). */
export interface IdempotencyOwner {
  tenantId: string;
  principal: string;
}

/** Claims the key for this request; false when another request of the same principal holds or held it. */
export async function reserveIdempotencyKey(
  sql: Queryable,
  owner: IdempotencyOwner,
  key: string,
  requestHash: string,
): Promise<boolean> {
  // Expired keys are forgotten first, so a key can be reused after its 24 hours.
  await sql`
    delete from idempotency_keys
    where tenant_id = ${owner.tenantId} and principal = ${owner.principal} and key = ${key}
      and created_at < now() - interval '24 hours'`;
  const rows = await sql`
    insert into idempotency_keys (tenant_id, principal, key, request_hash)
    values (${owner.tenantId}, ${owner.principal}, ${key}, ${requestHash})
    on conflict do nothing returning key`;
  return rows.length === 1;
}

export async function findIdempotencyKey(sql: Queryable, owner: IdempotencyOwner, key: string): Promise<IdempotencyRow | undefined> {
  const [row] = await sql<IdempotencyRow[]>`
    select request_hash, status_code, response_body, response_location from idempotency_keys
    where tenant_id = ${owner.tenantId} and principal = ${owner.principal} and key = ${key}`;
  return row;
}

export async function completeIdempotencyKey(
  sql: Queryable,
  owner: IdempotencyOwner,
  key: string,
  response: { statusCode: number; body: string; location: string | null },
): Promise<void> {
  await sql`
    update idempotency_keys
    set status_code = ${response.statusCode}, response_body = ${response.body}, response_location = ${response.location}
    where tenant_id = ${owner.tenantId} and principal = ${owner.principal} and key = ${key}`;
}

/** A request that failed on our side releases its key so the client's retry is not blocked. */
export async function releaseIdempotencyKey(sql: Queryable, owner: IdempotencyOwner, key: string): Promise<void> {
  await sql`
    delete from idempotency_keys
    where tenant_id = ${owner.tenantId} and principal = ${owner.principal} and key = ${key} and status_code is null`;
}
