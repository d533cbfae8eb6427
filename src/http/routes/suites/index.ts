import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import * as suites from '../../../services/suites';
import { ctxOf } from '../../auth';
import { exact } from '../shared/exact';
import { operation } from '../shared/operation';
import { createSuiteBody, patchSuiteBody, Suite, SuitePage, suiteParams } from './schemas';

/** Suites of the caller's tenant (their runs and trend: routes/runs/). */
export const suiteRoutes: FastifyPluginAsyncZod = async (app) => {
  app.post(
    '/v1/suites',
    operation({
      method: 'POST',
      scope: 'suites:write',
      operationId: 'createSuite',
      summary: 'Create a suite',
      tag: 'suites',
      body: createSuiteBody,
      success: { status: 201, description: 'the suite, its config with every default applied', schema: Suite },
      errors: {
        400: ['`chain_id` or an endpoint of the config is not the caller\'s, or an endpoint is on another chain', 'an unknown workload preset'],
        403: ['a `schedule` that is not paused, and the credential lacks `runs:write` (a schedule starts runs)'],
        409: ['`conflict`: the chain or an endpoint was deleted meanwhile'],
      },
    }),
    async (request, reply) => {
      const suite = await suites.createSuite({ ctx: ctxOf(request), input: request.body });
      return reply.code(201).header('location', `/v1/suites/${suite.id}`).send(exact(Suite, suite));
    },
  );

  app.get(
    '/v1/suites',
    operation({
      method: 'GET',
      scope: 'suites:read',
      operationId: 'listSuites',
      summary: 'List suites, newest first',
      description: 'With `name`, only the suites of exactly that name: how `rvs run <name>` finds a suite (more than one is ambiguous).',
      tag: 'suites',
      querystring: suites.listSuitesQuery,
      success: { status: 200, description: 'a page of suites', schema: SuitePage },
    }),
    async (request) => exact(SuitePage, await suites.listSuites({ ctx: ctxOf(request), input: request.query })),
  );

  app.get(
    '/v1/suites/:suiteId',
    operation({
      method: 'GET',
      scope: 'suites:read',
      operationId: 'getSuite',
      summary: 'Get a suite',
      tag: 'suites',
      params: suiteParams,
      success: { status: 200, description: 'the suite', schema: Suite },
    }),
    async (request) => exact(Suite, await suites.getSuite({ ctx: ctxOf(request), input: request.params })),
  );

  app.patch(
    '/v1/suites/:suiteId',
    operation({
      method: 'PATCH',
      scope: 'suites:write',
      operationId: 'updateSuite',
      summary: 'Change fields of a suite',
      description: 'Runs already triggered keep the config they snapshotted.',
      tag: 'suites',
      params: suiteParams,
      body: patchSuiteBody,
      success: { status: 200, description: 'the changed suite', schema: Suite },
      errors: {
        403: ['a `schedule` that is not paused, and the credential lacks `runs:write` (a schedule starts runs)'],
        409: ['`conflict`: an endpoint was deleted meanwhile'],
      },
    }),
    async (request) => exact(Suite, await suites.patchSuite({ ctx: ctxOf(request), input: { ...request.params, patch: request.body } })),
  );

  app.delete(
    '/v1/suites/:suiteId',
    operation({
      method: 'DELETE',
      scope: 'suites:write',
      operationId: 'deleteSuite',
      summary: 'Delete a suite that has never run',
      tag: 'suites',
      params: suiteParams,
      success: { status: 204, description: 'deleted' },
      errors: { 409: ['`conflict`: the suite has runs (kept as history)'] },
    }),
    async (request, reply) => {
      await suites.deleteSuite({ ctx: ctxOf(request), input: request.params });
      return reply.code(204).send();
    },
  );
};
