import type { FastifyInstance } from 'fastify';
import * as runData from '../../services/run-data';
import * as runs from '../../services/runs';
import { ctxOf } from '../auth';
import { parseOrThrow, uuidParam } from '../validate';

export function registerRunRoutes(app: FastifyInstance): void {
  app.post('/v1/suites/:suiteId/runs', { config: { scope: 'runs:write' } }, async (request, reply) => {
    const { suiteId } = parseOrThrow(uuidParam('suiteId'), request.params);
    const body = parseOrThrow(runs.triggerRunInput, request.body);
    const run = await runs.triggerRun({ ctx: ctxOf(request), input: { suiteId, body, idempotency: request.idempotency } });
    return reply.code(201).header('location', `/v1/runs/${run.id}`).send(run);
  });
  app.get('/v1/runs', { config: { scope: 'runs:read' } }, async (request) =>
    runs.listRuns({ ctx: ctxOf(request), input: parseOrThrow(runs.listRunsQuery, request.query) }),
  );
  app.get('/v1/runs/:runId', { config: { scope: 'runs:read' } }, async (request) =>
    runs.getRun({ ctx: ctxOf(request), input: parseOrThrow(uuidParam('runId'), request.params) }),
  );
  app.post('/v1/runs/:runId/cancel', { config: { scope: 'runs:write' } }, async (request, reply) => {
    const run = await runs.cancelRun({ ctx: ctxOf(request), input: parseOrThrow(uuidParam('runId'), request.params) });
    return reply.code(202).send(run);
  });
  app.get('/v1/runs/:runId/verdict', { config: { scope: 'runs:read' } }, async (request) => {
    const { runId } = parseOrThrow(uuidParam('runId'), request.params);
    const { wait } = parseOrThrow(runs.verdictQuery, request.query);
    return runs.getVerdict({ ctx: ctxOf(request), input: { runId, waitSeconds: wait } });
  });
  app.get('/v1/runs/:runId/metrics', { config: { scope: 'runs:read' } }, async (request) =>
    runData.getRunMetrics({ ctx: ctxOf(request), input: parseOrThrow(uuidParam('runId'), request.params) }),
  );
  app.get('/v1/runs/:runId/samples', { config: { scope: 'runs:read' } }, async (request) => {
    const { runId } = parseOrThrow(uuidParam('runId'), request.params);
    const query = parseOrThrow(runData.listSamplesQuery, request.query);
    return runData.listRunSamples({ ctx: ctxOf(request), input: { runId, query } });
  });
}
