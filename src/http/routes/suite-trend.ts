import type { FastifyInstance } from 'fastify';
import * as suiteTrend from '../../services/suite-trend';
import { ctxOf } from '../auth';
import { parseOrThrow, uuidParam } from '../validate';

/**
 * A suite's trend: one point per finished run. It reads runs (their verdicts and stats), so it
 * takes runs:read like every other run read, not suites:read (which reads suite configs).
 */
export function registerSuiteTrendRoutes(app: FastifyInstance): void {
  app.get('/v1/suites/:suiteId/trend', { config: { scope: 'runs:read' } }, async (request) => {
    const { suiteId } = parseOrThrow(uuidParam('suiteId'), request.params);
    const query = parseOrThrow(suiteTrend.suiteTrendQuery, request.query);
    return suiteTrend.getSuiteTrend({ ctx: ctxOf(request), input: { suiteId, ...query } });
  });
}
