import { randomBytes } from 'node:crypto';
import type { TestProject } from 'vitest/node' with { 'resolution-mode': 'import' };
import { createSql } from '../../src/db/client';
import { migrate } from '../../src/db/migrate';
import { resolveTemporalCli } from '../../src/temporal/temporal-binary';
import { startDevServer } from '../../src/temporal/dev-server';
import { freePort } from './free-port';

declare module 'vitest' {
  export interface ProvidedContext {
    databaseUrl: string;
    temporalAddress: string;
    temporalCliPath: string;
  }
}

/** The base server for test databases: TEST_DATABASE_URL, DATABASE_URL, or the local default. */
function serverUrl(): string {
  return process.env.TEST_DATABASE_URL ?? process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
}

/**
 * Starts what every integration test talks to: a real Temporal dev server (in memory, headless)
 * and a fresh, migrated PostgreSQL database that is dropped afterwards.
 */
export default async function setup(project: TestProject) {
  const cliPath = await resolveTemporalCli({
    cliPath: process.env.TEMPORAL_CLI_PATH,
    pathVariable: process.env.PATH,
    log: (line) => process.stdout.write(`${line}\n`),
  });
  const server = await startDevServer({
    cliPath,
    port: await freePort(),
    uiPort: null,
    dbFile: null,
    namespace: 'default',
    log: () => undefined,
  });

  const admin = createSql(serverUrl(), { max: 1 });
  const dbName = `rvs_test_${randomBytes(6).toString('hex')}`;
  await admin.unsafe(`create database ${dbName}`);
  const url = new URL(serverUrl());
  url.pathname = `/${dbName}`;
  const databaseUrl = url.toString();
  const sql = createSql(databaseUrl, { max: 1 });
  await migrate(sql);
  await sql.end();

  project.provide('databaseUrl', databaseUrl);
  project.provide('temporalAddress', server.address);
  project.provide('temporalCliPath', cliPath);

  return async () => {
    await server.stop();
    await admin.unsafe(`drop database if exists ${dbName} with (force)`);
    await admin.end();
  };
}
