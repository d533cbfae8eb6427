import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { completeIdempotencyKey, findIdempotencyKey, releaseIdempotencyKey, reserveIdempotencyKey } from '../../src/db/idempotency';
import { createSuite } from '../helpers/api';
import { startStack, type Stack } from '../helpers/stack';

/*
 * An API process killed while handling a request leaves its Idempotency-Key reservation behind
 * (no response stored). Issue 10: every retry with that key got 409 "still being processed" for
 * 24 hours. A reservation lives for a short lease (lowered to 1 s here); after it, a retry with the
 * same key and request takes it over, exactly one at a time.
 */
describe('Idempotency-Key reservation lease', () => {
  let stack: Stack;
  beforeAll(async () => {
    // No worker: runs stay queued, which is all these tests need.
    stack = await startStack({ worker: false, env: { RVS_IDEMPOTENCY_LEASE_S: '1' } });
  });
  afterAll(async () => {
    await stack.close();
  });

  const trigger = (auth: { authorization: string }, suiteId: string, key: string, body: unknown = {}) =>
    stack.app.inject({ method: 'POST', url: `/v1/suites/${suiteId}/runs`, headers: { ...auth, 'idempotency-key': key }, payload: body as object });

  const runsOf = async (suiteId: string) =>
    (await stack.sql<{ id: string }[]>`select id from runs where test_suite_id = ${suiteId}`).map((r) => r.id);

  /**
   * The state a crash leaves: the reservation made by a real request (so its request hash is the
   * real one), without the response the process never got to store, reserved `ageS` seconds ago.
   */
  async function leaveReservationBehind(tenantId: string, key: string, ageS: number): Promise<void> {
    const rows = await stack.sql`
      update idempotency_keys
      set status_code = null, response_body = null, response_location = null,
          created_at = now() - make_interval(secs => ${ageS}), reserved_at = now() - make_interval(secs => ${ageS})
      where tenant_id = ${tenantId} and key = ${key} returning key`;
    expect(rows).toHaveLength(1);
  }

  it('a retry after the lease runs the request instead of answering 409, and the response is kept from then on', async () => {
    const { auth, tenantId } = await stack.newTenant();
    const { suiteId } = await createSuite(stack.app, auth, { candidates: ['http://127.0.0.1:9/'] });
    const body = { metadata: { build: 'crashed-1' } };
    expect((await trigger(auth, suiteId, 'crash-1', body)).statusCode).toBe(201);
    await leaveReservationBehind(tenantId, 'crash-1', 5);

    const retry = await trigger(auth, suiteId, 'crash-1', body);
    expect(retry.statusCode, retry.body).toBe(201);
    expect(retry.headers['idempotency-replayed']).toBeUndefined();
    const replay = await trigger(auth, suiteId, 'crash-1', body);
    expect(replay.statusCode).toBe(201);
    expect(replay.headers['idempotency-replayed']).toBe('true');
    expect(replay.json().id).toBe(retry.json().id);
  });

  it('a duplicate waiting on a reservation whose holder died takes it over once the lease is over', async () => {
    const { auth, tenantId } = await stack.newTenant();
    const { suiteId } = await createSuite(stack.app, auth, { candidates: ['http://127.0.0.1:9/'] });
    expect((await trigger(auth, suiteId, 'crash-2')).statusCode).toBe(201);
    await leaveReservationBehind(tenantId, 'crash-2', 0);

    const retry = await trigger(auth, suiteId, 'crash-2');
    expect(retry.statusCode, retry.body).toBe(201);
    expect(retry.headers['idempotency-replayed']).toBeUndefined();
  });

  it('concurrent retries after the lease: exactly one takes over, the others replay its response', async () => {
    const { auth, tenantId } = await stack.newTenant();
    const { suiteId } = await createSuite(stack.app, auth, { candidates: ['http://127.0.0.1:9/'] });
    expect((await trigger(auth, suiteId, 'crash-3')).statusCode).toBe(201);
    await leaveReservationBehind(tenantId, 'crash-3', 5);

    const responses = await Promise.all(Array.from({ length: 6 }, () => trigger(auth, suiteId, 'crash-3')));
    expect(responses.map((r) => r.statusCode)).toEqual(Array(6).fill(201));
    expect(new Set(responses.map((r) => r.json().id)).size).toBe(1);
    expect(responses.filter((r) => r.headers['idempotency-replayed'] === undefined)).toHaveLength(1);
    expect(await runsOf(suiteId)).toHaveLength(1);
  });

  it('a run trigger retried after the lease answers with the run the crashed request committed, not a second one', async () => {
    const { auth, tenantId } = await stack.newTenant();
    const { suiteId } = await createSuite(stack.app, auth, { candidates: ['http://127.0.0.1:9/'] });
    const first = await trigger(auth, suiteId, 'crash-5', { metadata: { build: 5 } });
    expect(first.statusCode).toBe(201);
    await leaveReservationBehind(tenantId, 'crash-5', 5);
    const retry = await trigger(auth, suiteId, 'crash-5', { metadata: { build: 5 } });
    expect(retry.statusCode).toBe(201);
    expect(retry.headers['idempotency-replayed']).toBeUndefined();
    expect(retry.json().id).toBe(first.json().id);
    expect(retry.headers.location).toBe(`/v1/runs/${first.json().id}`);
    expect(await runsOf(suiteId)).toHaveLength(1);
  });

  it('an expired reservation is still the key of its request: a different body is 409 idempotency_conflict', async () => {
    const { auth, tenantId } = await stack.newTenant();
    const { suiteId } = await createSuite(stack.app, auth, { candidates: ['http://127.0.0.1:9/'] });
    expect((await trigger(auth, suiteId, 'crash-4', { metadata: { a: 1 } })).statusCode).toBe(201);
    await leaveReservationBehind(tenantId, 'crash-4', 5);
    const clash = await trigger(auth, suiteId, 'crash-4', { metadata: { a: 2 } });
    expect(clash.statusCode).toBe(409);
    expect(clash.json().error.code).toBe('idempotency_conflict');
  });

  it('a completed response still replays long after the lease', async () => {
    const { auth, tenantId } = await stack.newTenant();
    const { suiteId } = await createSuite(stack.app, auth, { candidates: ['http://127.0.0.1:9/'] });
    const first = await trigger(auth, suiteId, 'done-1');
    expect(first.statusCode).toBe(201);
    await stack.sql`
      update idempotency_keys set created_at = now() - interval '23 hours', reserved_at = now() - interval '23 hours'
      where tenant_id = ${tenantId} and key = 'done-1'`;
    const replay = await trigger(auth, suiteId, 'done-1');
    expect(replay.statusCode).toBe(201);
    expect(replay.headers['idempotency-replayed']).toBe('true');
    expect(replay.json().id).toBe(first.json().id);
    expect(await runsOf(suiteId)).toHaveLength(1);
  });

  it('takeover is race-safe in SQL: of 20 concurrent reservations of an expired lease exactly one wins', async () => {
    const { tenantId } = await stack.newTenant();
    const owner = { tenantId, principal: 'api_key:test:racer' };
    const first = await reserveIdempotencyKey(stack.sql, owner, 'race-1', 'hash-a', 1000);
    expect(first).not.toBeNull();
    await stack.sql`update idempotency_keys set reserved_at = now() - interval '5 seconds' where tenant_id = ${tenantId} and key = 'race-1'`;
    const attempts = await Promise.all(Array.from({ length: 20 }, () => reserveIdempotencyKey(stack.sql, owner, 'race-1', 'hash-a', 1000)));
    const winners = attempts.filter((token) => token !== null);
    expect(winners).toHaveLength(1);
    expect(winners[0]!.reservation).not.toBe(first!.reservation);
    // A different request never takes a key over, expired or not.
    await stack.sql`update idempotency_keys set reserved_at = now() - interval '5 seconds' where tenant_id = ${tenantId} and key = 'race-1'`;
    expect(await reserveIdempotencyKey(stack.sql, owner, 'race-1', 'hash-b', 1000)).toBeNull();
  });

  it('a request that outlived its lease can neither store nor release the key the retry took over', async () => {
    const { tenantId } = await stack.newTenant();
    const owner = { tenantId, principal: 'api_key:test:slow' };
    const slow = (await reserveIdempotencyKey(stack.sql, owner, 'slow-1', 'hash-a', 1000))?.reservation;
    await stack.sql`update idempotency_keys set reserved_at = now() - interval '5 seconds' where tenant_id = ${tenantId} and key = 'slow-1'`;
    const retry = (await reserveIdempotencyKey(stack.sql, owner, 'slow-1', 'hash-a', 1000))?.reservation;
    expect(slow).not.toBeNull();
    expect(retry).not.toBeNull();

    await completeIdempotencyKey(stack.sql, { ...owner, reservation: slow! }, 'slow-1', { statusCode: 201, body: '{"stale":true}', location: null });
    await releaseIdempotencyKey(stack.sql, { ...owner, reservation: slow! }, 'slow-1');
    expect(await findIdempotencyKey(stack.sql, owner, 'slow-1')).toMatchObject({ status_code: null });

    await completeIdempotencyKey(stack.sql, { ...owner, reservation: retry! }, 'slow-1', { statusCode: 201, body: '{"fresh":true}', location: null });
    expect(await findIdempotencyKey(stack.sql, owner, 'slow-1')).toMatchObject({ status_code: 201, response_body: '{"fresh":true}' });
  });
});
