import type { Tracer } from '@opentelemetry/api';
import Fastify, { type FastifyInstance } from 'fastify';
import { serializerCompiler } from 'fastify-type-provider-zod';
import { randomUUID } from 'node:crypto';
import type { Logger } from './logger';
import { registerTracing } from './http/tracing';
import { registerHttpMetrics } from './metrics/http-metrics';
import { registerAuth } from './http/auth';
import { handleClientError, handleFrameworkError, registerErrorHandling, validatorCompiler } from './http/error-handler';
import { registerIdempotency } from './http/idempotency';
import { registerInputGuard } from './http/input-guard';
import { registerRateLimits } from './http/rate-limit';
import { registerOpenApiDocument } from './http/openapi/document';
import { apiKeyRoutes } from './http/routes/api-keys';
import { catalogRoutes } from './http/routes/catalog';
import { chainRoutes } from './http/routes/chains';
import { dashboardRoutes } from './http/routes/dashboard';
import { endpointRoutes } from './http/routes/endpoints';
import { healthRoutes } from './http/routes/health';
import { openApiRoutes } from './http/routes/openapi';
import { runRoutes } from './http/routes/runs';
import { suiteRoutes } from './http/routes/suites';
import { scheduleRoutes } from './http/routes/schedules';
import { userRoutes } from './http/routes/users';
import { tenantRoutes } from './http/routes/tenants';
import { webhookRoutes } from './http/routes/webhooks';
import { acknowledgementRoutes } from './http/routes/acknowledgements';
import type { Deps } from './services/context';

export const BODY_LIMIT_BYTES = 1024 * 1024;
/**
 * The whole request (headers and body) must arrive within this. Fastify's default is no limit at
 * all, which lets an authenticated client hold a socket and a partly buffered 1 MiB body forever
 * by sending the body slowly or not at all. Long polls are not affected: the limit ends when the
 * request has been received, not when it is answered.
 */
export const REQUEST_TIMEOUT_MS = 30_000;
const VALID_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export interface AppOptions {
  /** Overrides REQUEST_TIMEOUT_MS (tests use a short one). */
  requestTimeoutMs?: number;
  /** A span per request when traces are on (src/telemetry/tracing.ts). */
  tracer?: Tracer;
}

/** Builds the API; never listens (src/server.ts does), so tests inject requests into it. */
export function buildApp(deps: Deps, logger: Logger, options: AppOptions = {}): FastifyInstance {
  const requestTimeout = options.requestTimeoutMs ?? REQUEST_TIMEOUT_MS;
  const app = Fastify({
    loggerInstance: logger,
    bodyLimit: BODY_LIMIT_BYTES,
    // Node checks the timeout on an interval (30 s by default), so a stalled request is cut
    // between requestTimeout and requestTimeout + interval: keep the interval a fraction of it.
    // An expired request reaches clientErrorHandler as ERR_HTTP_REQUEST_TIMEOUT: a 408 in the envelope.
    requestTimeout,
    http: { requestTimeout, connectionsCheckingInterval: Math.min(30_000, Math.max(100, Math.floor(requestTimeout / 4))) },
    requestIdHeader: false,
    // Echo a well-formed incoming X-Request-Id so callers can correlate; otherwise make one.
    genReqId: (req) => {
      const incoming = req.headers['x-request-id'];
      return typeof incoming === 'string' && VALID_REQUEST_ID.test(incoming) ? incoming : randomUUID();
    },
    // Router and HTTP-parser errors happen before any hook runs; these answer them in the envelope.
    frameworkErrors: handleFrameworkError,
    clientErrorHandler: handleClientError,
  }) as unknown as FastifyInstance;
  // Bodies are JSON only: any other content type is a 415, not a string handed to validation.
  app.removeContentTypeParser(['text/plain']);
  // First: the hooks after it, and the handler, run inside the request's span.
  if (options.tracer) registerTracing(app, options.tracer);
  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });
  registerHttpMetrics(app);
  registerErrorHandling(app);
  registerAuth(app, deps, deps.config.rateLimits);
  registerRateLimits(app, deps);
  registerInputGuard(app);
  registerIdempotency(app, deps);
  // Before the routes: it records each route as it is registered.
  registerOpenApiDocument(app);
  // Routes declare their schemas in zod: validated and serialized through the type provider.
  void app.register(async (api) => {
    api.setValidatorCompiler(validatorCompiler);
    api.setSerializerCompiler(serializerCompiler);
    await api.register(userRoutes);
    await api.register(chainRoutes);
    await api.register(endpointRoutes);
    await api.register(suiteRoutes);
    await api.register(scheduleRoutes);
    await api.register(runRoutes);
    await api.register(catalogRoutes);
    await api.register(apiKeyRoutes);
    await api.register(dashboardRoutes, { deps });
    await api.register(openApiRoutes);
    await api.register(healthRoutes, { deps });
    await api.register(tenantRoutes);
    await api.register(webhookRoutes);
    await api.register(acknowledgementRoutes);
  });
  return app;
}
