import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Scope } from '../auth/scopes';
import { forbidden } from '../errors';
import { authenticate } from '../services/authenticate';
import type { Ctx, Deps } from '../services/context';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The scope a route needs; null means any authenticated caller; 'public' means no auth. */
    scope?: Scope | null | 'public';
  }
  interface FastifyRequest {
    ctx: Ctx | null;
  }
}

/** Every route is authenticated unless it says `scope: 'public'`; checked before the body is even parsed. */
export function registerAuth(app: FastifyInstance, deps: Deps): void {
  app.decorateRequest('ctx', null);
  app.addHook('onRequest', async (request) => {
    const scope = request.routeOptions.config.scope;
    if (scope === 'public' || request.routeOptions.url === undefined) return;
    const principal = await authenticate(deps, request.headers.authorization);
    if (scope && !principal.scopes.includes(scope)) throw forbidden(`this operation needs the scope ${scope}`);
    request.ctx = { principal, deps };
  });
}

export function ctxOf(request: FastifyRequest): Ctx {
  if (!request.ctx) throw new Error('route reached without authentication');
  return request.ctx;
}
