import type { FastifyInstance } from 'fastify';
import { findJsonProblem, formatJsonPath, MAX_BODY_DEPTH, MAX_BODY_VALUES, type JsonProblem } from '../domain/json-bounds';
import { validationError } from '../errors';

/*
 * One check of everything a request carries, before any route schema, the idempotency hash or a
 * query sees it: no NUL and no lone surrogate anywhere (Postgres refuses them, which would be a
 * 500; a text column would silently store U+FFFD for the surrogate), and
 * no body nested deeper than MAX_BODY_DEPTH (every later step — zod, JSON.stringify,
 * canonicalisation — recurses), and no more than MAX_BODY_VALUES values (each later step walks
 * them all on the event loop, which every tenant shares). preValidation runs after the body is
 * parsed and before the route's schemas validate; this hook is registered before the idempotency
 * one, so nothing downstream meets such input. Free-form fields have
 * their own, tighter depth cap in their schemas (MAX_JSON_DEPTH), with a message naming the field.
 */
const MESSAGES: Record<JsonProblem['kind'], string> = {
  nul: 'must not contain a NUL (\\u0000) character',
  lone_surrogate: 'must be well-formed Unicode (a lone surrogate such as \\ud800 is not)',
  too_deep: `nests deeper than ${MAX_BODY_DEPTH} levels`,
  too_many_values: `holds more than ${MAX_BODY_VALUES} values`,
};

export function registerInputGuard(app: FastifyInstance): void {
  app.addHook('preValidation', async (request) => {
    for (const value of [request.params, request.query, request.body]) {
      if (value === undefined || value === null) continue;
      const problem = findJsonProblem(value, MAX_BODY_DEPTH, MAX_BODY_VALUES);
      if (!problem) continue;
      // The root of the body itself has no name; parameters always sit under theirs.
      const field = formatJsonPath(problem.path) || '(body)';
      throw validationError([{ field, message: MESSAGES[problem.kind] }]);
    }
  });
}
