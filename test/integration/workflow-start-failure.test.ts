import { Client, Connection } from '@temporalio/client';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app';
import { createLogger } from '../../src/logger';
import { createSuite, get, post } from '../helpers/api';
import { freePort } from '../helpers/free-port';
import { startStack, type Stack } from '../helpers/stack';

/*
 * A run trigger whose workflow cannot be started answers 503 and fails the run visibly; the
 * operator must also learn why from the log (issue 9 item 6). The API here talks to a Temporal
 * address on loopback where nothing listens.
 */
describe('a workflow that cannot be started', () => {
  let stack: Stack;
  let app: FastifyInstance;
  let connection: Connection;
  const logs: string[] = [];
  let deadAddress: string;

  beforeAll(async () => {
    stack = await startStack({ worker: false });
    deadAddress = `127.0.0.1:${await freePort()}`;
    // No retry interceptor: the default one would retry UNAVAILABLE for many seconds before giving up.
    connection = Connection.lazy({ address: deadAddress, interceptors: [] });
    const temporal = new Client({ connection, namespace: stack.config.temporal.namespace });
    const logger = createLogger('info', 'test', { write: (line: string) => void logs.push(line) });
    app = buildApp({ config: stack.config, sql: stack.sql, box: stack.box, temporal, jwt: null }, logger);
    await app.ready();
  });
  afterAll(async () => {
    await app?.close();
    await connection?.close();
    await stack?.close();
  });

  it('answers 503, fails the run, and logs the cause at error level with the run id and request id, without secrets', async () => {
    const { auth, key } = await stack.newTenant();
    const { suiteId } = await createSuite(stack.app, auth, {
      candidates: ['http://user:S3cretPass@127.0.0.1:9/v1/S3cretPathKey'],
      headers: { 'x-api-key': 'S3cretHeaderValue' },
    });
    const response = await post<any>(app, `/v1/suites/${suiteId}/runs`, auth, { metadata: { ci: 'build-1' } });
    expect(response.status).toBe(503);
    expect(response.body.error.code).toBe('service_unavailable');
    const requestId = response.headers['x-request-id'];

    const runs = await get<any>(app, '/v1/runs', auth);
    const [run] = runs.body.data;
    expect(run.status).toBe('failed');
    expect(run.failure_reason).toMatch(/could not be scheduled/);

    const entries = logs.map((line) => JSON.parse(line) as Record<string, any>);
    const failure = entries.find((e) => e.msg === 'workflow start failed');
    expect(failure, logs.join('\n')).toBeDefined();
    expect(failure!.level).toBe(50); // pino's error level
    expect(failure!.reqId).toBe(requestId);
    expect(failure!.runId).toBe(run.id);
    expect(failure!.workflowId).toBe(`run-${run.id}`);
    // The cause as Temporal and gRPC reported it: enough for an operator to see "nothing listens there".
    expect(failure!.cause).toMatchObject({ name: expect.any(String), message: expect.any(String) });
    expect(JSON.stringify(failure!.cause)).toMatch(/UNAVAILABLE|ECONNREFUSED|No connection established/);
    expect(JSON.stringify(failure!.cause)).toContain(deadAddress);
    const everything = logs.join('\n');
    expect(everything).not.toContain('S3cret');
    expect(everything).not.toContain(key);
  });
});
