import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyInstance } from 'fastify';
import {
  completeIdempotencyKey,
  findIdempotencyKey,
  releaseIdempotencyKey,
  reserveIdempotencyKey,
  type IdempotencyOwner,
  type IdempotencyReservation,
} from '../db/idempotency';
import { AppError, validationError } from '../errors';
import { canonicalJson } from '../domain/canonical-json';
import { principalKey, type Deps } from '../services/context';

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * Top-level fields of the route's response that are shown once and never stored (a created
     * API key's secret): the Idempotency-Key record keeps the response without them, so a replay
     * answers without them too.
     */
    secretResponseFields?: readonly string[];
  }
  interface FastifyRequest {
    idempotency: HeldIdempotencyKey | null;
  }
}

/** The key this request holds, and what a dead previous holder of it created (services/runs/trigger.ts). */
export type HeldIdempotencyKey = IdempotencyReservation & { key: string; resourceId: string | null };

const VALID_KEY = /^[\x21-\x7e]{1,255}$/;
/** How long a duplicate waits for the first request with its key to finish before giving up. */
const WAIT_FOR_FIRST_MS = 15_000;

/**
 * The response as it may be kept: without the route's secret fields. Null when it cannot be made
 * safe (not a JSON object), and then it is not kept at all.
 */
function storableBody(payload: string, secretFields: readonly string[] | undefined): string | null {
  if (!secretFields?.length) return payload;
  try {
    const parsed: unknown = JSON.parse(payload);
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return null;
    const kept = Object.fromEntries(Object.entries(parsed).filter(([field]) => !secretFields.includes(field)));
    return JSON.stringify(kept);
  } catch {
    return null;
  }
}

/**
 * Idempotency-Key on every authenticated POST: the first response (2xx or 4xx) to a key is kept
 * for 24 hours; the same key with the same request replays it (Idempotency-Replayed: true), with
 * a different request it is 409 idempotency_conflict. A duplicate that arrives while the first
 * is still running waits for it, so concurrent duplicates create one resource.
 *
 * A reservation is a lease of `config.idempotencyLeaseMs` (60 s by default, longer than any request
 * may take): an API process killed while handling a request never stores its response, and once
 * the lease is over a retry with the same key and request takes the reservation over and runs
 * (a run trigger then continues with the run the dead request had committed, if any).
 * A completed response replays for the whole 24 hours.
 *
 * Keys belong to the principal that sent them (an API key, or a JWT's tenant and subject), not to
 * the tenant: a replay hands out the first response, which only its own caller may read (another
 * key of the tenant may hold fewer scopes). Replays are `Cache-Control: no-store`, like the
 * responses that carry secrets.
 */
export function registerIdempotency(app: FastifyInstance, deps: Deps): void {
  app.decorateRequest('idempotency', null);
  // preValidation (after the input guard, before the route's schemas): the hash is of the body as
  // sent, and a request refused by validation is a 4xx kept for its key like any other.
  app.addHook('preValidation', async (request, reply) => {
    const key = request.headers['idempotency-key'];
    if (request.method !== 'POST' || !request.ctx || key === undefined) return;
    if (typeof key !== 'string' || !VALID_KEY.test(key)) {
      throw validationError([{ field: 'Idempotency-Key', message: 'must be 1 to 255 printable ASCII characters' }]);
    }
    const { principal } = request.ctx;
    const owner: IdempotencyOwner = { tenantId: principal.tenantId, principal: principalKey(principal) };
    const requestHash = createHash('sha256')
      .update(`${request.method} ${request.url}\n${canonicalJson(request.body ?? null)}`)
      .digest('hex');
    const deadline = Date.now() + WAIT_FOR_FIRST_MS;
    while (Date.now() < deadline) {
      const reserved = await reserveIdempotencyKey(deps.sql, owner, key, requestHash, deps.config.idempotencyLeaseMs);
      if (reserved) {
        request.idempotency = { ...owner, ...reserved, key };
        return;
      }
      const first = await findIdempotencyKey(deps.sql, owner, key);
      if (!first) continue; // released or expired meanwhile: try to reserve again
      if (first.request_hash !== requestHash) {
        throw new AppError('idempotency_conflict', 'this Idempotency-Key was already used with a different request');
      }
      if (first.status_code !== null) {
        reply
          .code(first.status_code)
          .header('idempotency-replayed', 'true')
          .header('cache-control', 'no-store')
          .type('application/json; charset=utf-8');
        if (first.response_location) reply.header('location', first.response_location);
        return reply.send(first.response_body);
      }
      await sleep(100);
    }
    throw new AppError('conflict', 'a request with this Idempotency-Key is still being processed; retry later');
  });
  app.addHook('onSend', async (request, reply, payload) => {
    const reservation = request.idempotency;
    if (!reservation) return payload;
    request.idempotency = null;
    const body =
      reply.statusCode >= 500
        ? null
        : storableBody(typeof payload === 'string' ? payload : String(payload), request.routeOptions.config.secretResponseFields);
    if (body === null) {
      // Our failure (or nothing safe to keep): free the key so the client's retry runs instead of
      // replaying an error.
      await releaseIdempotencyKey(deps.sql, reservation, reservation.key);
    } else {
      const location = reply.getHeader('location');
      await completeIdempotencyKey(deps.sql, reservation, reservation.key, {
        statusCode: reply.statusCode,
        body,
        location: typeof location === 'string' ? location : null,
      });
    }
    return payload;
  });
}
