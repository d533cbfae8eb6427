import type { FastifyInstance } from 'fastify';
import { httpLongPollDuration, httpRequestDuration, httpRequests } from './registry';

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * The query parameter (seconds) with which a request of this route is held until something
     * happens: with a value above 0 its duration goes to rvs_http_long_poll_duration_seconds.
     */
    longPollParameter?: string;
  }
}

/**
 * Counts every response of the API by route pattern (`/v1/runs/:runId`, never the raw URL, so
 * ids do not multiply the series), method and status, and observes its latency: long polls in a
 * histogram of their own, so that a verdict held for 30 s on purpose is not read as a slow API.
 */
export function registerHttpMetrics(app: FastifyInstance): void {
  app.addHook('onResponse', async (request, reply) => {
    const route = request.routeOptions.url ?? 'unmatched';
    const method = request.method;
    httpRequests.inc({ route, method, status: String(reply.statusCode) });
    const parameter = request.routeOptions.config?.longPollParameter;
    const wait = parameter ? Number((request.query as Record<string, unknown> | undefined)?.[parameter]) : 0;
    const histogram = wait > 0 ? httpLongPollDuration : httpRequestDuration;
    histogram.observe({ route, method }, reply.elapsedTime / 1000);
  });
}
