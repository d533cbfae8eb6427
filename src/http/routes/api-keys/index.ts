import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import * as apiKeys from '../../../services/api-keys';
import { paginationQuery } from '../../../services/pagination';
import { ctxOf } from '../../auth';
import { exact } from '../shared/exact';
import { operation } from '../shared/operation';
import { ApiKey, ApiKeyCreated, ApiKeyPage, keyParams } from './schemas';

/** API keys of the caller's tenant; all of it needs keys:admin. */
export const apiKeyRoutes: FastifyPluginAsyncZod = async (app) => {
  app.post(
    '/v1/api-keys',
    operation({
      method: 'POST',
      scope: 'keys:admin',
      operationId: 'createApiKey',
      summary: 'Issue an API key',
      description:
        'The key itself is in this response only (`Cache-Control: no-store`); it is never stored, so an Idempotency-Key ' +
        'replay answers without `key` (revoke that key and issue another if the secret was lost). A caller can grant only scopes it holds.',
      tag: 'api-keys',
      body: apiKeys.createApiKeyInput,
      success: { status: 201, description: 'the key, with its secret', schema: ApiKeyCreated },
      errors: { 403: ['the key would get a scope the caller does not hold'] },
      // The new key's secret is shown once: an Idempotency-Key replay answers without it.
      config: { secretResponseFields: ['key'] },
    }),
    async (request, reply) => {
      const key = await apiKeys.createApiKey({ ctx: ctxOf(request), input: request.body });
      return reply.code(201).header('location', `/v1/api-keys/${key.id}`).header('cache-control', 'no-store').send(exact(ApiKeyCreated, key));
    },
  );

  app.get(
    '/v1/api-keys',
    operation({
      method: 'GET',
      scope: 'keys:admin',
      operationId: 'listApiKeys',
      summary: 'List the tenant\'s API keys, newest first',
      tag: 'api-keys',
      querystring: paginationQuery,
      success: { status: 200, description: 'a page of API keys', schema: ApiKeyPage },
    }),
    async (request) => exact(ApiKeyPage, await apiKeys.listApiKeys({ ctx: ctxOf(request), input: request.query })),
  );

  app.get(
    '/v1/api-keys/:keyId',
    operation({
      method: 'GET',
      scope: 'keys:admin',
      operationId: 'getApiKey',
      summary: 'Get an API key (never its secret)',
      tag: 'api-keys',
      params: keyParams,
      success: { status: 200, description: 'the API key', schema: ApiKey },
    }),
    async (request) => exact(ApiKey, await apiKeys.getApiKey({ ctx: ctxOf(request), input: request.params })),
  );

  app.delete(
    '/v1/api-keys/:keyId',
    operation({
      method: 'DELETE',
      scope: 'keys:admin',
      operationId: 'revokeApiKey',
      summary: 'Revoke an API key',
      description: 'Takes effect at once. Revoking a revoked key changes nothing.',
      tag: 'api-keys',
      params: keyParams,
      success: { status: 200, description: 'the revoked key', schema: ApiKey },
    }),
    async (request) => exact(ApiKey, await apiKeys.revokeApiKey({ ctx: ctxOf(request), input: request.params })),
  );
};
