import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import * as endpoints from '../../../services/endpoints';
import { paginationQuery } from '../../../services/pagination';
import { ctxOf } from '../../auth';
import { exact } from '../shared/exact';
import { operation } from '../shared/operation';
import { Endpoint, EndpointPage, endpointParams } from './schemas';

/** Endpoints of the caller's tenant. */
export const endpointRoutes: FastifyPluginAsyncZod = async (app) => {
  app.post(
    '/v1/endpoints',
    operation({
      method: 'POST',
      scope: 'endpoints:write',
      operationId: 'createEndpoint',
      summary: 'Create an endpoint',
      description: 'Addresses (`addresses`, and `url` / `ws_url`, views of the http and ws addresses) and `headers` are secrets: stored encrypted, returned redacted (addresses) or not at all (header values). Each transport once; an http address is required.',
      tag: 'endpoints',
      body: endpoints.createEndpointInput,
      success: { status: 201, description: 'the endpoint', schema: Endpoint },
      errors: { 400: ['`chain_id` names no chain of the caller\'s tenant', 'a link-local or reserved address as host'] },
    }),
    async (request, reply) => {
      const endpoint = await endpoints.createEndpoint({ ctx: ctxOf(request), input: request.body });
      return reply.code(201).header('location', `/v1/endpoints/${endpoint.id}`).send(exact(Endpoint, endpoint));
    },
  );

  app.get(
    '/v1/endpoints',
    operation({
      method: 'GET',
      scope: 'endpoints:read',
      operationId: 'listEndpoints',
      summary: 'List endpoints, newest first',
      tag: 'endpoints',
      querystring: paginationQuery,
      success: { status: 200, description: 'a page of endpoints', schema: EndpointPage },
    }),
    async (request) => exact(EndpointPage, await endpoints.listEndpoints({ ctx: ctxOf(request), input: request.query })),
  );

  app.get(
    '/v1/endpoints/:endpointId',
    operation({
      method: 'GET',
      scope: 'endpoints:read',
      operationId: 'getEndpoint',
      summary: 'Get an endpoint',
      tag: 'endpoints',
      params: endpointParams,
      success: { status: 200, description: 'the endpoint', schema: Endpoint },
    }),
    async (request) => exact(Endpoint, await endpoints.getEndpoint({ ctx: ctxOf(request), input: request.params })),
  );

  app.patch(
    '/v1/endpoints/:endpointId',
    operation({
      method: 'PATCH',
      scope: 'endpoints:write',
      operationId: 'updateEndpoint',
      summary: 'Change fields of an endpoint',
      description: '`headers` replaces every header at once, and so does `addresses` every address (without `url` and `ws_url`); `ws_url: null` removes the WebSocket URL. A run in progress uses the new values from its next chunk on.',
      tag: 'endpoints',
      params: endpointParams,
      body: endpoints.patchEndpointInput,
      success: { status: 200, description: 'the changed endpoint', schema: Endpoint },
    }),
    async (request) => exact(Endpoint, await endpoints.patchEndpoint({ ctx: ctxOf(request), input: { ...request.params, patch: request.body } })),
  );

  app.delete(
    '/v1/endpoints/:endpointId',
    operation({
      method: 'DELETE',
      scope: 'endpoints:write',
      operationId: 'deleteEndpoint',
      summary: 'Delete an endpoint no suite names and no run probed',
      tag: 'endpoints',
      params: endpointParams,
      success: { status: 204, description: 'deleted' },
      errors: { 409: ['`conflict`: a suite names the endpoint, or a run probed it'] },
    }),
    async (request, reply) => {
      await endpoints.deleteEndpoint({ ctx: ctxOf(request), input: request.params });
      return reply.code(204).send();
    },
  );
};
