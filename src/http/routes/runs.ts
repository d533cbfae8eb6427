import type { FastifyInstance } from 'fastify';
import * as runs from '../../services/runs';
import { ctxOf } from '../auth';
import { parseOrThrow, uuidParam } from '../validate';

export function registerRunRoutes(app: FastifyInstance): void {
  app.post('/v1/suites/:suiteId/runs', { config: { scope: 'runs:write' } }, async (request, reply) => {
    const { suiteId } = parseOrThrow(uuidParam('suiteId'), request.params);
    const body = parseOrThrow(runs.triggerRunInput, request.body);
    const run = await runs.triggerRun({ ctx: ctxOf(request), input: { suiteId, body } });
    return reply.code(201).header('location', `/v1/runs/${run.id}`).send(run);
  });
  app.get('/v1/runs/:runId', { config: { scope: 'runs:read' } }, async (request) =>
    runs.getRun({ ctx: ctxOf(request), input: parseOrThrow(uuidParam('runId'), request.params) }),
  );
  app.get('/v1/runs/:runId/verdict', { config: { scope: 'runs:read' } }, async (request) =>
    runs.getVerdict({ ctx: ctxOf(request), input: parseOrThrow(uuidParam('runId'), request.params) }),
  );
}
