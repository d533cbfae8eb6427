import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { z } from 'zod';
import * as catalog from '../../../services/catalog';
import type { Ctx } from '../../../services/context';
import { ctxOf } from '../../auth';
import { operation } from '../shared/operation';
import { ChainPreset, ChainPresetPage, WorkloadPreset, WorkloadPresetPage } from './schemas';

const listQuery = catalog.catalogListQuery.extend({
  family: catalog.catalogListQuery.shape.family.describe('only presets of this chain family'),
});

type App = Parameters<FastifyPluginAsyncZod>[0];
type Verb<I, O> = (args: { ctx: Ctx; input: I }) => Promise<O>;

/**
 * One kind of preset: its schemas and service verbs; its paths, operation ids and texts follow from
 * `kind`. The verbs must answer their schemas' types: that is checked here, where each kind names
 * its schemas, because inside the generic presetRoutes the compiler cannot resolve a reply type.
 */
interface PresetKind<Preset extends z.ZodType<{ id: string }>, Page extends z.ZodType, Create extends z.ZodType> {
  kind: Parameters<typeof catalog.deletePreset>[0]['input']['kind'];
  /** The operation ids' noun: listChainPresets, getChainPreset, … */
  noun: string;
  preset: Preset;
  page: Page;
  createInput: Create;
  list: Verb<z.output<typeof listQuery>, z.output<Page>>;
  get: Verb<{ presetId: string }, z.output<Preset>>;
  create: Verb<z.output<Create>, z.output<Preset>>;
}

/** GET (list), GET one, POST and DELETE of one kind of preset, in that order. */
function presetRoutes<Preset extends z.ZodType<{ id: string }>, Page extends z.ZodType, Create extends z.ZodType>(
  app: App,
  spec: PresetKind<Preset, Page, Create>,
): void {
  // Widened: for a generic schema the reply type Fastify derives is a conditional type the compiler
  // cannot resolve (nothing would be assignable to it). PresetKind has checked the verbs already.
  const schemas: { preset: z.ZodType; page: z.ZodType } = spec;
  const { kind, noun } = spec;
  const collection = `/v1/catalog/${kind}s`;
  app.get(
    collection,
    operation({
      method: 'GET',
      scope: 'catalog:read',
      operationId: `list${noun}Presets`,
      summary: `List ${kind} presets: built-ins and the tenant's own`,
      tag: 'catalog',
      querystring: listQuery,
      success: { status: 200, description: `a page of ${kind} presets`, schema: schemas.page },
    }),
    async (request) => spec.list({ ctx: ctxOf(request), input: request.query }),
  );
  app.get(
    `${collection}/:presetId`,
    operation({
      method: 'GET',
      scope: 'catalog:read',
      operationId: `get${noun}Preset`,
      summary: `Get a ${kind} preset by id or slug`,
      tag: 'catalog',
      params: catalog.presetParam,
      success: { status: 200, description: `the ${kind} preset`, schema: schemas.preset },
    }),
    async (request) => spec.get({ ctx: ctxOf(request), input: request.params }),
  );
  app.post(
    collection,
    operation({
      method: 'POST',
      scope: 'catalog:write',
      operationId: `create${noun}Preset`,
      summary: `Add a ${kind} preset to the tenant's catalog`,
      tag: 'catalog',
      body: spec.createInput,
      success: { status: 201, description: `the ${kind} preset`, schema: schemas.preset },
      errors: { 409: ['`conflict`: the slug is taken (by a built-in or the tenant\'s own entry)'] },
    }),
    async (request, reply) => {
      // The body was validated by spec.createInput; the type provider cannot resolve that for a generic schema.
      const preset = await spec.create({ ctx: ctxOf(request), input: request.body as z.output<Create> });
      return reply.code(201).header('location', `${collection}/${preset.id}`).send(preset);
    },
  );
  app.delete(
    `${collection}/:presetId`,
    operation({
      method: 'DELETE',
      scope: 'catalog:write',
      operationId: `delete${noun}Preset`,
      summary: `Delete one of the tenant's ${kind} presets`,
      description: 'Chains and suites made from a preset keep their copy.',
      tag: 'catalog',
      params: catalog.presetParam,
      success: { status: 204, description: 'deleted' },
      errors: { 403: ['built-in presets are read-only'] },
    }),
    async (request, reply) => {
      await catalog.deletePreset({ ctx: ctxOf(request), input: { kind, presetId: request.params.presetId } });
      return reply.code(204).send();
    },
  );
}

/** Chain and workload presets: built-ins plus the caller's own entries. */
export const catalogRoutes: FastifyPluginAsyncZod = async (app) => {
  presetRoutes(app, {
    kind: 'chain',
    noun: 'Chain',
    preset: ChainPreset,
    page: ChainPresetPage,
    createInput: catalog.createChainPresetInput,
    list: catalog.listChainPresets,
    get: catalog.getChainPreset,
    create: catalog.createChainPreset,
  });
  presetRoutes(app, {
    kind: 'workload',
    noun: 'Workload',
    preset: WorkloadPreset,
    page: WorkloadPresetPage,
    createInput: catalog.createWorkloadPresetInput,
    list: catalog.listWorkloadPresets,
    get: catalog.getWorkloadPreset,
    create: catalog.createWorkloadPreset,
  });
};
