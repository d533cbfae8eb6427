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

/** A held reservation: the owner and the token of its current lease. */
export interface IdempotencyReservation extends IdempotencyOwner {
  reservation: string;
}

export interface ReservedKey {
  reservation: string;
  /** Set when the reservation was taken over from a request that died after creating this. */
  resourceId: string | null;
}

/**
 * Claims the key for this request and returns the lease's token (and what a dead previous holder
 * created, if anything); null when another request of the
 * same principal holds it (within its lease) or completed it. A reservation without a response
 * that is older than `leaseMs` belongs to a request that died with its process: the same request
 * (same hash) takes it over. The insert and the takeover are one statement: concurrent retries
 * queue on the row lock and each re-checks the lease on the row as the previous one left it, so
 * exactly one of them wins.
 */
export async function reserveIdempotencyKey(
  sql: Queryable,
  owner: IdempotencyOwner,
  key: string,
  requestHash: string,
  leaseMs: number,
): Promise<ReservedKey | null> {
  // Expired keys are forgotten first, so a key can be reused after its 24 hours.
  await sql`
    delete from idempotency_keys
    where tenant_id = ${owner.tenantId} and principal = ${owner.principal} and key = ${key}
      and created_at < now() - interval '24 hours'`;
  const rows = await sql<{ reservation: string; resource_id: string | null }[]>`
    insert into idempotency_keys (tenant_id, principal, key, request_hash)
    values (${owner.tenantId}, ${owner.principal}, ${key}, ${requestHash})
    on conflict (tenant_id, principal, key) do update
      set reserved_at = clock_timestamp(), reservation = gen_random_uuid()
      where idempotency_keys.status_code is null
        and idempotency_keys.request_hash = excluded.request_hash
        and idempotency_keys.reserved_at < clock_timestamp() - make_interval(secs => ${leaseMs / 1000})
    returning reservation, resource_id`;
  const [row] = rows;
  return row ? { reservation: row.reservation, resourceId: row.resource_id } : null;
}

/**
 * Records what the request holding the lease created, in the transaction that creates it: if the
 * process dies before answering, the retry that takes the key over finds it.
 */
export async function linkIdempotencyResource(tx: Queryable, holder: IdempotencyReservation, key: string, resourceId: string): Promise<void> {
  await tx`
    update idempotency_keys set resource_id = ${resourceId}
    where tenant_id = ${holder.tenantId} and principal = ${holder.principal} and key = ${key}
      and reservation = ${holder.reservation}`;
}

export async function findIdempotencyKey(sql: Queryable, owner: IdempotencyOwner, key: string): Promise<IdempotencyRow | undefined> {
  const [row] = await sql<IdempotencyRow[]>`
    select request_hash, status_code, response_body, response_location from idempotency_keys
    where tenant_id = ${owner.tenantId} and principal = ${owner.principal} and key = ${key}`;
  return row;
}

/** Stores the response; a no-op when the lease was taken over meanwhile (the new holder's response counts). */
export async function completeIdempotencyKey(
  sql: Queryable,
  holder: IdempotencyReservation,
  key: string,
  response: { statusCode: number; body: string; location: string | null },
): Promise<void> {
  await sql`
    update idempotency_keys
    set status_code = ${response.statusCode}, response_body = ${response.body}, response_location = ${response.location}
    where tenant_id = ${holder.tenantId} and principal = ${holder.principal} and key = ${key}
      and reservation = ${holder.reservation} and status_code is null`;
}

/** A request that failed on our side releases its key so the client's retry is not blocked. */
export async function releaseIdempotencyKey(sql: Queryable, holder: IdempotencyReservation, key: string): Promise<void> {
  await sql`
    delete from idempotency_keys
    where tenant_id = ${holder.tenantId} and principal = ${holder.principal} and key = ${key}
      and reservation = ${holder.reservation} and status_code is null`;
}
