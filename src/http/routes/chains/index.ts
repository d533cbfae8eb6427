import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import * as chains from '../../../services/chains';
import { paginationQuery } from '../../../services/pagination';
import { ctxOf } from '../../auth';
import { exact } from '../shared/exact';
import { operation } from '../shared/operation';
import { Chain, ChainPage, chainParams } from './schemas';

/** Chains of the caller's tenant: validate (the schemas), call a verb, return (serialized by the schemas). */
export const chainRoutes: FastifyPluginAsyncZod = async (app) => {
  app.post(
    '/v1/chains',
    operation({
      method: 'POST',
      scope: 'chains:write',
      operationId: 'createChain',
      summary: 'Create a chain',
      description: 'Either `name` and `slug` (and optionally the rest), or `preset`: a catalog chain preset whose fields the given ones override.',
      tag: 'chains',
      body: chains.createChainRequest,
      success: { status: 201, description: 'the chain', schema: Chain },
      errors: { 400: ['`preset` names no chain preset in the catalog'], 409: ['`conflict`: a chain with this slug exists'] },
    }),
    async (request, reply) => {
      const chain = await chains.createChain({ ctx: ctxOf(request), input: request.body });
      return reply.code(201).header('location', `/v1/chains/${chain.id}`).send(exact(Chain, chain));
    },
  );

  app.get(
    '/v1/chains',
    operation({
      method: 'GET',
      scope: 'chains:read',
      operationId: 'listChains',
      summary: 'List chains, newest first',
      tag: 'chains',
      querystring: paginationQuery,
      success: { status: 200, description: 'a page of chains', schema: ChainPage },
    }),
    async (request) => exact(ChainPage, await chains.listChains({ ctx: ctxOf(request), input: request.query })),
  );

  app.get(
    '/v1/chains/:chainId',
    operation({
      method: 'GET',
      scope: 'chains:read',
      operationId: 'getChain',
      summary: 'Get a chain',
      tag: 'chains',
      params: chainParams,
      success: { status: 200, description: 'the chain', schema: Chain },
    }),
    async (request) => exact(Chain, await chains.getChain({ ctx: ctxOf(request), input: request.params })),
  );

  app.patch(
    '/v1/chains/:chainId',
    operation({
      method: 'PATCH',
      scope: 'chains:write',
      operationId: 'updateChain',
      summary: 'Change fields of a chain',
      tag: 'chains',
      params: chainParams,
      body: chains.patchChainInput,
      success: { status: 200, description: 'the changed chain', schema: Chain },
      errors: { 409: ['`conflict`: a chain with this slug exists'] },
    }),
    async (request) => exact(Chain, await chains.patchChain({ ctx: ctxOf(request), input: { ...request.params, patch: request.body } })),
  );

  app.delete(
    '/v1/chains/:chainId',
    operation({
      method: 'DELETE',
      scope: 'chains:write',
      operationId: 'deleteChain',
      summary: 'Delete a chain no endpoint or suite uses',
      tag: 'chains',
      params: chainParams,
      success: { status: 204, description: 'deleted' },
      errors: { 409: ['`conflict`: endpoints or suites still use the chain'] },
    }),
    async (request, reply) => {
      await chains.deleteChain({ ctx: ctxOf(request), input: request.params });
      return reply.code(204).send();
    },
  );
};
