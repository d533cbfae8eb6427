import type { FastifyInstance } from 'fastify';
import * as endpoints from '../../services/endpoints';
import * as suites from '../../services/suites';
import { getMe } from '../../services/users';
import { ctxOf } from '../auth';
import { paginationQuery, parseOrThrow, uuidParam } from '../validate';

/** Endpoints, suites and the caller's identity: validate, call a verb, return. */
export function registerResourceRoutes(app: FastifyInstance): void {
  app.get('/v1/users/me', { config: { scope: null } }, async (request) => getMe({ ctx: ctxOf(request) }));

  app.post('/v1/endpoints', { config: { scope: 'endpoints:write' } }, async (request, reply) => {
    const endpoint = await endpoints.createEndpoint({
      ctx: ctxOf(request),
      input: parseOrThrow(endpoints.createEndpointInput, request.body),
    });
    return reply.code(201).header('location', `/v1/endpoints/${endpoint.id}`).send(endpoint);
  });
  app.get('/v1/endpoints', { config: { scope: 'endpoints:read' } }, async (request) =>
    endpoints.listEndpoints({ ctx: ctxOf(request), input: parseOrThrow(paginationQuery, request.query) }),
  );
  app.get('/v1/endpoints/:endpointId', { config: { scope: 'endpoints:read' } }, async (request) =>
    endpoints.getEndpoint({ ctx: ctxOf(request), input: parseOrThrow(uuidParam('endpointId'), request.params) }),
  );
  app.patch('/v1/endpoints/:endpointId', { config: { scope: 'endpoints:write' } }, async (request) =>
    endpoints.patchEndpoint({
      ctx: ctxOf(request),
      input: { ...parseOrThrow(uuidParam('endpointId'), request.params), patch: parseOrThrow(endpoints.patchEndpointInput, request.body) },
    }),
  );
  app.delete('/v1/endpoints/:endpointId', { config: { scope: 'endpoints:write' } }, async (request, reply) => {
    await endpoints.deleteEndpoint({ ctx: ctxOf(request), input: parseOrThrow(uuidParam('endpointId'), request.params) });
    return reply.code(204).send();
  });

  app.post('/v1/suites', { config: { scope: 'suites:write' } }, async (request, reply) => {
    const suite = await suites.createSuite({ ctx: ctxOf(request), input: parseOrThrow(suites.createSuiteInput, request.body) });
    return reply.code(201).header('location', `/v1/suites/${suite.id}`).send(suite);
  });
  app.get('/v1/suites', { config: { scope: 'suites:read' } }, async (request) =>
    suites.listSuites({ ctx: ctxOf(request), input: parseOrThrow(paginationQuery, request.query) }),
  );
  app.get('/v1/suites/:suiteId', { config: { scope: 'suites:read' } }, async (request) =>
    suites.getSuite({ ctx: ctxOf(request), input: parseOrThrow(uuidParam('suiteId'), request.params) }),
  );
  app.patch('/v1/suites/:suiteId', { config: { scope: 'suites:write' } }, async (request) =>
    suites.patchSuite({
      ctx: ctxOf(request),
      input: { ...parseOrThrow(uuidParam('suiteId'), request.params), patch: parseOrThrow(suites.patchSuiteInput, request.body) },
    }),
  );
  app.delete('/v1/suites/:suiteId', { config: { scope: 'suites:write' } }, async (request, reply) => {
    await suites.deleteSuite({ ctx: ctxOf(request), input: parseOrThrow(uuidParam('suiteId'), request.params) });
    return reply.code(204).send();
  });
}
