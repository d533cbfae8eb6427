import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { hitRateLimit, purgeOldRateLimitWindows } from '../db/rate-limits';
import { AppError } from '../errors';
import type { Deps } from '../services/context';

export interface RateLimits {
  perMinute: number;
  triggersPerMinute: number;
  authFailuresPerMinute: number;
}

function setHeaders(reply: FastifyReply, limit: number, count: number, windowStart: Date): number {
  const resetSeconds = Math.max(1, Math.ceil((windowStart.getTime() + 60_000 - Date.now()) / 1000));
  reply.header('ratelimit-limit', String(limit));
  reply.header('ratelimit-remaining', String(Math.max(0, limit - count)));
  reply.header('ratelimit-reset', String(resetSeconds));
  return resetSeconds;
}

function limited(resetSeconds: number, what: string): AppError {
  return new AppError('rate_limited', `rate limit exceeded for ${what}; retry after ${resetSeconds} s`, [], {
    'retry-after': String(resetSeconds),
  });
}

/** Counts a failed authentication against the client's address; past the quota it is a 429. */
export async function limitAuthFailure(
  deps: Deps,
  request: FastifyRequest,
  reply: FastifyReply,
  limits: RateLimits,
  failure: AppError,
): Promise<AppError> {
  const { count, windowStart } = await hitRateLimit(deps.sql, `auth-failures:${request.ip}`);
  if (count <= limits.authFailuresPerMinute) return failure;
  return limited(setHeaders(reply, limits.authFailuresPerMinute, count, windowStart), 'failed authentication from this address');
}

const isRunTrigger = (request: FastifyRequest) =>
  request.method === 'POST' && request.routeOptions.url === '/v1/suites/:suiteId/runs';

/**
 * Per-identity quotas in fixed one-minute windows kept in Postgres, so every API replica shares
 * them. Run triggers have their own, stricter quota; failed authentication is limited per client IP.
 */
export function registerRateLimits(app: FastifyInstance, deps: Deps, limits: RateLimits): void {
  app.addHook('onRequest', async (request, reply) => {
    const principal = request.ctx?.principal;
    if (!principal) return;
    const identity = `${principal.kind}:${principal.id}`;
    const { count, windowStart } = await hitRateLimit(deps.sql, `requests:${identity}`);
    const reset = setHeaders(reply, limits.perMinute, count, windowStart);
    if (count > limits.perMinute) throw limited(reset, 'this credential');
    if (isRunTrigger(request)) {
      const trigger = await hitRateLimit(deps.sql, `triggers:${identity}`);
      if (trigger.count > limits.triggersPerMinute) {
        throw limited(setHeaders(reply, limits.triggersPerMinute, trigger.count, trigger.windowStart), 'run triggers');
      }
    }
  });
  const purge = setInterval(() => void purgeOldRateLimitWindows(deps.sql).catch(() => undefined), 60_000);
  purge.unref();
  app.addHook('onClose', async () => clearInterval(purge));
}
