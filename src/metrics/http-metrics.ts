import type { FastifyInstance } from 'fastify';
import { httpRequestDuration, httpRequests } from './registry';

/**
 * Counts every response of the API by route pattern (`/v1/runs/:runId`, never the raw URL, so
 * ids do not multiply the series), method and status, and observes its latency.
 */
export function registerHttpMetrics(app: FastifyInstance): void {
  app.addHook('onResponse', async (request, reply) => {
    const route = request.routeOptions.url ?? 'unmatched';
    const method = request.method;
    httpRequests.inc({ route, method, status: String(reply.statusCode) });
    httpRequestDuration.observe({ route, method }, reply.elapsedTime / 1000);
  });
}
