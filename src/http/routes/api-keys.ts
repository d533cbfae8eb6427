import type { FastifyInstance } from 'fastify';
import * as apiKeys from '../../services/api-keys';
import { ctxOf } from '../auth';
import { paginationQuery, parseOrThrow, uuidParam } from '../validate';

/** API keys of the caller's tenant; all of it needs keys:admin. */
export function registerApiKeyRoutes(app: FastifyInstance): void {
  // The new key's secret is shown once: an Idempotency-Key replay answers without it.
  app.post('/v1/api-keys', { config: { scope: 'keys:admin', secretResponseFields: ['key'] } }, async (request, reply) => {
    const key = await apiKeys.createApiKey({ ctx: ctxOf(request), input: parseOrThrow(apiKeys.createApiKeyInput, request.body) });
    return reply.code(201).header('location', `/v1/api-keys/${key.id}`).header('cache-control', 'no-store').send(key);
  });
  app.get('/v1/api-keys', { config: { scope: 'keys:admin' } }, async (request) =>
    apiKeys.listApiKeys({ ctx: ctxOf(request), input: parseOrThrow(paginationQuery, request.query) }),
  );
  app.get('/v1/api-keys/:keyId', { config: { scope: 'keys:admin' } }, async (request) =>
    apiKeys.getApiKey({ ctx: ctxOf(request), input: parseOrThrow(uuidParam('keyId'), request.params) }),
  );
  app.delete('/v1/api-keys/:keyId', { config: { scope: 'keys:admin' } }, async (request) =>
    apiKeys.revokeApiKey({ ctx: ctxOf(request), input: parseOrThrow(uuidParam('keyId'), request.params) }),
  );
}
