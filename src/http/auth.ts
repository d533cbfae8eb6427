import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Scope } from '../auth/scopes';
import { AppError, forbidden } from '../errors';
import { authenticate } from '../services/authenticate';
import type { Ctx, Deps } from '../services/context';
import type { RateLimits } from '../config';
import { limitAuthFailure, limitRequest } from './rate-limit';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The scope a route needs; null means any authenticated caller; 'public' means no auth. */
    scope?: Scope | null | 'public';
  }
  interface FastifyRequest {
    ctx: Ctx | null;
  }
}

/**
 * Every route is authenticated unless it says `scope: 'public'`; checked before the body is even
 * parsed. The request counts against its quotas before the scope check, so 403s are limited too.
 */
export function registerAuth(app: FastifyInstance, deps: Deps, limits: RateLimits): void {
  app.decorateRequest('ctx', null);
  deps.jwt?.register(app);
  app.addHook('onRequest', async (request, reply) => {
    const scope = request.routeOptions.config.scope;
    if (scope === 'public' || request.routeOptions.url === undefined) return;
    let principal;
    try {
      principal = await authenticate(deps, request.headers.authorization, request);
    } catch (error) {
      if (error instanceof AppError && error.code === 'unauthorized') {
        throw await limitAuthFailure(deps, request, reply, limits, error);
      }
      throw error;
    }
    await limitRequest(deps, request, reply, limits, principal);
    if (scope && !principal.scopes.includes(scope)) throw forbidden(`this operation needs the scope ${scope}`);
    request.ctx = { principal, deps, log: request.log };
  });
}

export function ctxOf(request: FastifyRequest): Ctx {
  if (!request.ctx) throw new Error('route reached without authentication');
  return request.ctx;
}
