import { Client, Connection } from '@temporalio/client';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app';
import { createSql } from '../../src/db/client';
import { createLogger } from '../../src/logger';
import { freePort } from './free-port';
import type { Stack } from './stack';

/**
 * The API with PostgreSQL and Temporal both unreachable: a loopback port nothing listens on for
 * each (the connections are lazy, so building it needs neither).
 */
export async function startUnreadyApp(stack: Stack): Promise<{ app: FastifyInstance; close(): Promise<void> }> {
  const closedPort = await freePort();
  const sql = createSql(`postgres://postgres@127.0.0.1:${closedPort}/nothing`, { max: 1 });
  // No retry interceptor: its retries of UNAVAILABLE outlive the check (which gives up after 2 s)
  // and would start a call on the connection closed below.
  const connection = Connection.lazy({ address: `127.0.0.1:${closedPort}`, interceptors: [] });
  const temporal = new Client({ connection, namespace: 'default' });
  const app = buildApp({ config: stack.config, sql, box: stack.box, temporal, jwt: null }, createLogger('silent', 'unready'));
  await app.ready();
  return {
    app,
    async close() {
      await app.close();
      await connection.close();
      await sql.end({ timeout: 1 });
    },
  };
}
