import type { FastifyInstance } from 'fastify';
import * as catalog from '../../services/catalog';
import { ctxOf } from '../auth';
import { parseOrThrow } from '../validate';

/** Chain and workload presets: built-ins plus the caller's own entries. Validate, call a verb, return. */
export function registerCatalogRoutes(app: FastifyInstance): void {
  app.get('/v1/catalog/chains', { config: { scope: 'catalog:read' } }, async (request) =>
    catalog.listChainPresets({ ctx: ctxOf(request), input: parseOrThrow(catalog.catalogListQuery, request.query) }),
  );
  app.get('/v1/catalog/chains/:presetId', { config: { scope: 'catalog:read' } }, async (request) =>
    catalog.getChainPreset({ ctx: ctxOf(request), input: parseOrThrow(catalog.presetParam, request.params) }),
  );
  app.post('/v1/catalog/chains', { config: { scope: 'catalog:write' } }, async (request, reply) => {
    const preset = await catalog.createChainPreset({
      ctx: ctxOf(request),
      input: parseOrThrow(catalog.createChainPresetInput, request.body),
    });
    return reply.code(201).header('location', `/v1/catalog/chains/${preset.id}`).send(preset);
  });
  app.delete('/v1/catalog/chains/:presetId', { config: { scope: 'catalog:write' } }, async (request, reply) => {
    const { presetId } = parseOrThrow(catalog.presetParam, request.params);
    await catalog.deletePreset({ ctx: ctxOf(request), input: { kind: 'chain', presetId } });
    return reply.code(204).send();
  });

  app.get('/v1/catalog/workloads', { config: { scope: 'catalog:read' } }, async (request) =>
    catalog.listWorkloadPresets({ ctx: ctxOf(request), input: parseOrThrow(catalog.catalogListQuery, request.query) }),
  );
  app.get('/v1/catalog/workloads/:presetId', { config: { scope: 'catalog:read' } }, async (request) =>
    catalog.getWorkloadPreset({ ctx: ctxOf(request), input: parseOrThrow(catalog.presetParam, request.params) }),
  );
  app.post('/v1/catalog/workloads', { config: { scope: 'catalog:write' } }, async (request, reply) => {
    const preset = await catalog.createWorkloadPreset({
      ctx: ctxOf(request),
      input: parseOrThrow(catalog.createWorkloadPresetInput, request.body),
    });
    return reply.code(201).header('location', `/v1/catalog/workloads/${preset.id}`).send(preset);
  });
  app.delete('/v1/catalog/workloads/:presetId', { config: { scope: 'catalog:write' } }, async (request, reply) => {
    const { presetId } = parseOrThrow(catalog.presetParam, request.params);
    await catalog.deletePreset({ ctx: ctxOf(request), input: { kind: 'workload', presetId } });
    return reply.code(204).send();
  });
}
