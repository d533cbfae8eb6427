import Fastify, { type FastifyInstance } from 'fastify';
import { serializerCompiler, type FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { registerErrorHandling, validatorCompiler } from '../../src/http/error-handler';
import { operation } from '../../src/http/routes/shared/operation';
import { timestamp, uuidParam } from '../../src/http/routes/shared/schemas';
import { paginationQuery } from '../../src/services/pagination';

/*
 * The route pattern itself, without a database: a route's zod schemas validate the request (with
 * the API's validation_error details) and serialize the response (fields the schema does not name
 * never leave the server).
 */

const Thing = z.object({ id: z.string(), created_at: timestamp });
const ID = '0c0a1a00-0000-4000-8000-000000000001';

const routes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/things/:thingId',
    operation({
      method: 'GET',
      scope: 'public',
      operationId: 'getThing',
      summary: 'a thing',
      tag: 'meta',
      params: uuidParam('thingId'),
      querystring: paginationQuery,
      success: { status: 200, description: 'the thing', schema: Thing },
    }),
    async (request) => ({ id: request.params.thingId, created_at: new Date(0), secret: 'must not leave', limit: request.query.limit }),
  );
  app.post(
    '/things',
    operation({
      method: 'POST',
      scope: 'public',
      operationId: 'createThing',
      summary: 'make a thing',
      tag: 'meta',
      body: z.strictObject({ name: z.string().min(1), size: z.number().int().default(1) }),
      success: { status: 201, description: 'the thing', schema: Thing },
    }),
    // A presenter bug: created_at as a string where the schema says a Date.
    async (request, reply) => reply.code(201).send({ id: request.body.name, created_at: 'yesterday' } as never),
  );
};

describe('routes with zod schemas', () => {
  let app: FastifyInstance;
  beforeAll(async () => {
    app = Fastify({ logger: false });
    registerErrorHandling(app);
    await app.register(async (api) => {
      api.setValidatorCompiler(validatorCompiler);
      api.setSerializerCompiler(serializerCompiler);
      await api.register(routes);
    });
    await app.ready();
  });
  afterAll(() => app.close());

  it('serializes by the response schema: an unnamed field is stripped, a Date is an ISO string', async () => {
    const response = await app.inject({ method: 'GET', url: `/things/${ID}?limit=5` });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ id: ID, created_at: '1970-01-01T00:00:00.000Z' });
    expect(response.body).not.toContain('must not leave');
  });

  it('answers a bad path parameter or query with validation_error and the field', async () => {
    const param = await app.inject({ method: 'GET', url: '/things/not-a-uuid' });
    expect(param.statusCode).toBe(400);
    expect(param.json().error).toMatchObject({ code: 'validation_error', details: [{ field: 'thingId', message: 'thingId must be a UUID' }] });
    const query = await app.inject({ method: 'GET', url: `/things/${ID}?limit=0` });
    expect(query.statusCode).toBe(400);
    expect(query.json().error.details).toEqual([{ field: 'limit', message: expect.any(String) }]);
  });

  it('lists every bad body field by path, unknown ones too', async () => {
    const response = await app.inject({ method: 'POST', url: '/things', payload: { name: '', extra: 1 } });
    expect(response.statusCode).toBe(400);
    const { details } = response.json().error as { details: { field: string; message: string }[] };
    expect(details).toEqual(
      expect.arrayContaining([
        { field: 'extra', message: 'unknown field' },
        { field: 'name', message: expect.any(String) },
      ]),
    );
  });

  it('refuses to send a response its schema does not allow: a 500 without internal detail', async () => {
    const response = await app.inject({ method: 'POST', url: '/things', payload: { name: 'x' } });
    expect(response.statusCode).toBe(500);
    expect(response.json().error).toMatchObject({ code: 'internal_error', message: 'internal server error', details: [] });
    expect(response.body).not.toContain('yesterday');
  });
});
