import fastifySwaggerUi from '@fastify/swagger-ui';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { rvsFileJsonSchema } from '../../../domain/rvs-file';
import { operation } from '../shared/operation';
import { component, freeObject } from '../shared/schemas';

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

/** Only the top is described; the document is its own schema. */
const OpenApiDocument = component(
  'OpenApiDocument',
  z.looseObject({ openapi: z.string().regex(/^3\.1\.\d+$/), info: freeObject, paths: freeObject }),
);

const JsonSchemaDocument = component(
  'JsonSchemaDocument',
  z.looseObject({ $schema: z.string(), type: z.literal('object') }).describe('A JSON Schema (draft 2020-12) document.'),
);

/**
 * GET /v1/openapi.json (the document @fastify/swagger generates from the registered routes,
 * src/http/openapi/document.ts) and the Swagger UI at /docs, its assets served from the
 * @fastify/swagger-ui package (no network needed). Both public: no credential.
 */
export const openApiRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/v1/openapi.json',
    operation({
      method: 'GET',
      scope: 'public',
      operationId: 'getOpenApiDocument',
      summary: 'This OpenAPI 3.1 document',
      description: 'Public. Browsable at /docs.',
      tag: 'meta',
      success: { status: 200, description: 'the document', schema: OpenApiDocument },
    }),
    async () => app.swagger() as z.output<typeof OpenApiDocument>,
  );

  // Public like the OpenAPI document: editors fetch it without a credential to validate rvs.yaml.
  const rvsFileSchema = rvsFileJsonSchema();
  app.get(
    '/v1/schemas/rvs-file.json',
    operation({
      method: 'GET',
      scope: 'public',
      operationId: 'getRvsFileSchema',
      summary: 'The JSON Schema of the suites-as-code file (rvs.yaml) that rvs apply reads and rvs export writes',
      description: 'Public. The same schema the CLI validates a file against (`rvs schema` prints it).',
      tag: 'meta',
      success: { status: 200, description: 'the schema', schema: JsonSchemaDocument },
    }),
    async () => rvsFileSchema as z.output<typeof JsonSchemaDocument>,
  );

  // The UI plugin registers its own routes (/docs, /docs/json, /docs/static/*, …), hidden from the
  // document: mark each one public as it is added. onRoute hooks are encapsulated, so this reaches no other route.
  await app.register(async (docs) => {
    docs.addHook('onRoute', (route) => {
      route.config = { ...route.config, scope: 'public' };
    });
    await docs.register(fastifySwaggerUi, {
      routePrefix: '/docs',
      staticCSP: DOCS_CSP,
      theme: { title: 'Run Verification Service API' },
      uiConfig: { deepLinking: true, displayOperationId: true, defaultModelsExpandDepth: 0 },
    });
  });
};
