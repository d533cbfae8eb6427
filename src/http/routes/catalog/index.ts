import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import * as catalog from '../../../services/catalog';
import { ctxOf } from '../../auth';
import { operation } from '../shared/operation';
import { ChainPreset, ChainPresetPage, WorkloadPreset, WorkloadPresetPage } from './schemas';

const listQuery = catalog.catalogListQuery.extend({
  family: catalog.catalogListQuery.shape.family.describe('only presets of this chain family'),
});

/** Chain and workload presets: built-ins plus the caller's own entries. */
export const catalogRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/v1/catalog/chains',
    operation({
      method: 'GET',
      scope: 'catalog:read',
      operationId: 'listChainPresets',
      summary: 'List chain presets: built-ins and the tenant\'s own',
      tag: 'catalog',
      querystring: listQuery,
      success: { status: 200, description: 'a page of chain presets', schema: ChainPresetPage },
    }),
    async (request) => catalog.listChainPresets({ ctx: ctxOf(request), input: request.query }),
  );
  app.get(
    '/v1/catalog/chains/:presetId',
    operation({
      method: 'GET',
      scope: 'catalog:read',
      operationId: 'getChainPreset',
      summary: 'Get a chain preset by id or slug',
      tag: 'catalog',
      params: catalog.presetParam,
      success: { status: 200, description: 'the chain preset', schema: ChainPreset },
    }),
    async (request) => catalog.getChainPreset({ ctx: ctxOf(request), input: request.params }),
  );
  app.post(
    '/v1/catalog/chains',
    operation({
      method: 'POST',
      scope: 'catalog:write',
      operationId: 'createChainPreset',
      summary: 'Add a chain preset to the tenant\'s catalog',
      tag: 'catalog',
      body: catalog.createChainPresetInput,
      success: { status: 201, description: 'the chain preset', schema: ChainPreset },
      errors: { 409: ['`conflict`: the slug is taken (by a built-in or the tenant\'s own entry)'] },
    }),
    async (request, reply) => {
      const preset = await catalog.createChainPreset({ ctx: ctxOf(request), input: request.body });
      return reply.code(201).header('location', `/v1/catalog/chains/${preset.id}`).send(preset);
    },
  );
  app.delete(
    '/v1/catalog/chains/:presetId',
    operation({
      method: 'DELETE',
      scope: 'catalog:write',
      operationId: 'deleteChainPreset',
      summary: 'Delete one of the tenant\'s chain presets',
      description: 'Chains and suites made from a preset keep their copy.',
      tag: 'catalog',
      params: catalog.presetParam,
      success: { status: 204, description: 'deleted' },
      errors: { 403: ['built-in presets are read-only'] },
    }),
    async (request, reply) => {
      await catalog.deletePreset({ ctx: ctxOf(request), input: { kind: 'chain', presetId: request.params.presetId } });
      return reply.code(204).send();
    },
  );

  app.get(
    '/v1/catalog/workloads',
    operation({
      method: 'GET',
      scope: 'catalog:read',
      operationId: 'listWorkloadPresets',
      summary: 'List workload presets: built-ins and the tenant\'s own',
      tag: 'catalog',
      querystring: listQuery,
      success: { status: 200, description: 'a page of workload presets', schema: WorkloadPresetPage },
    }),
    async (request) => catalog.listWorkloadPresets({ ctx: ctxOf(request), input: request.query }),
  );
  app.get(
    '/v1/catalog/workloads/:presetId',
    operation({
      method: 'GET',
      scope: 'catalog:read',
      operationId: 'getWorkloadPreset',
      summary: 'Get a workload preset by id or slug',
      tag: 'catalog',
      params: catalog.presetParam,
      success: { status: 200, description: 'the workload preset', schema: WorkloadPreset },
    }),
    async (request) => catalog.getWorkloadPreset({ ctx: ctxOf(request), input: request.params }),
  );
  app.post(
    '/v1/catalog/workloads',
    operation({
      method: 'POST',
      scope: 'catalog:write',
      operationId: 'createWorkloadPreset',
      summary: 'Add a workload preset to the tenant\'s catalog',
      tag: 'catalog',
      body: catalog.createWorkloadPresetInput,
      success: { status: 201, description: 'the workload preset', schema: WorkloadPreset },
      errors: { 409: ['`conflict`: the slug is taken (by a built-in or the tenant\'s own entry)'] },
    }),
    async (request, reply) => {
      const preset = await catalog.createWorkloadPreset({ ctx: ctxOf(request), input: request.body });
      return reply.code(201).header('location', `/v1/catalog/workloads/${preset.id}`).send(preset);
    },
  );
  app.delete(
    '/v1/catalog/workloads/:presetId',
    operation({
      method: 'DELETE',
      scope: 'catalog:write',
      operationId: 'deleteWorkloadPreset',
      summary: 'Delete one of the tenant\'s workload presets',
      description: 'Chains and suites made from a preset keep their copy.',
      tag: 'catalog',
      params: catalog.presetParam,
      success: { status: 204, description: 'deleted' },
      errors: { 403: ['built-in presets are read-only'] },
    }),
    async (request, reply) => {
      await catalog.deletePreset({ ctx: ctxOf(request), input: { kind: 'workload', presetId: request.params.presetId } });
      return reply.code(204).send();
    },
  );
};
