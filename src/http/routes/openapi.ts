import fastifySwagger from '@fastify/swagger';
import fastifySwaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import { buildOpenApiDocument } from '../openapi/document';

/** Swagger UI loads only its own files from this server; it injects inline styles. */
const DOCS_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/**
 * GET /v1/openapi.json (the document, built once here from src/http/openapi/) and the Swagger UI
 * at /docs, its assets served from the @fastify/swagger-ui package (no network needed). Both
 * public: no credential.
 */
export function registerOpenApiRoutes(app: FastifyInstance): void {
  const document = buildOpenApiDocument();

  app.get('/v1/openapi.json', { config: { scope: 'public' } }, async () => document);

  // The UI plugin registers its own routes (/docs, /docs/json, /docs/static/*, …): mark each one
  // public as it is added. onRoute hooks are encapsulated, so this reaches no other route.
  void app.register(async (docs) => {
    docs.addHook('onRoute', (route) => {
      route.config = { ...route.config, scope: 'public' };
    });
    // Static mode: the plugin only serves the given document (it collects nothing from the routes).
    await docs.register(fastifySwagger, { mode: 'static', specification: { document: document as never } });
    await docs.register(fastifySwaggerUi, {
      routePrefix: '/docs',
      staticCSP: DOCS_CSP,
      theme: { title: 'Run Verification Service API' },
      uiConfig: { deepLinking: true, displayOperationId: true, defaultModelsExpandDepth: 0 },
    });
  });
}
