import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { cachedReadiness, checkReadiness, READINESS_CACHE_MS } from '../../../services/health';
import type { Deps } from '../../../services/context';
import { operation } from '../shared/operation';
import { Liveness, Readiness } from './schemas';

/**
 * Probes for orchestrators, at the root rather than under /v1: they are about this process, not
 * the versioned API, and /healthz and /readyz are where Kubernetes, compose and load balancers
 * look by convention. Public, so they spend no credential, no rate-limit quota and no failed-auth
 * quota of the prober's address (the auth hook, which counts those, skips public routes).
 */
export const healthRoutes: FastifyPluginAsyncZod<{ deps: Deps }> = async (app, { deps }) => {
  // Public and unquoted: a flood of /readyz costs at most one check of each dependency per interval.
  const readiness = cachedReadiness(() => checkReadiness({ deps }));
  app.get(
    '/healthz',
    operation({
      method: 'GET',
      scope: 'public',
      operationId: 'getLiveness',
      summary: 'Liveness: the process answers HTTP',
      description: 'Public. No I/O: a database or Temporal outage does not fail it (restarting the API would not help); see /readyz.',
      tag: 'meta',
      success: { status: 200, description: 'the process is alive', schema: Liveness },
    }),
    async () => ({ status: 'ok' as const }),
  );

  app.get(
    '/readyz',
    operation({
      method: 'GET',
      scope: 'public',
      operationId: 'getReadiness',
      summary: 'Readiness: PostgreSQL and Temporal answer',
      description: `Public. Each is given 2 s; one answer is given for up to ${READINESS_CACHE_MS / 1000} s (concurrent calls share one check), so a flood of calls costs at most one check per second. Also 503 while the process shuts down.`,
      tag: 'meta',
      success: { status: 200, description: 'ready to serve', schema: Readiness },
      errors: { 503: ['`service_unavailable`: PostgreSQL or Temporal did not answer (each failing one is a detail, by name)'] },
    }),
    async () => readiness(),
  );
};
