import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { createSql } from '../db/client';
import { ensurePostgresUser, importEmbeddedPostgres, reachableDatabaseDir } from './embedded-postgres-as-root';
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
 * to run as root, so as root it runs as the `postgres` system user (created if missing), from
 * places that user can reach (embedded-postgres-as-root.ts).
 * Its password is generated into <dataDir>/postgres.password (mode 0600) on first start, so two
 * installations never share one; a cluster initialised with the old fixed password gets the
 * generated one on its next start.
 */
export async function startEmbeddedPostgres(
  dataDir: string,
  log: (line: string) => void,
  port: number = EMBEDDED_POSTGRES_PORT,
  /** Tests only: where the packages are installed, and the root-owned place of embedded-postgres-as-root.ts. */
  options: { modules?: string; rootPlace?: string } = {},
): Promise<EmbeddedDatabase> {
  await mkdir(dataDir, { recursive: true });
  // As root the postgres user runs it, and must reach the binaries and the cluster (embedded-postgres-as-root.ts).
  const asRoot = process.getuid?.() === 0 ? await ensurePostgresUser() : null;
  const { default: EmbeddedPostgres } = await importEmbeddedPostgres(asRoot, { place: options.rootPlace, modules: options.modules });
  const databaseDir = await reachableDatabaseDir(asRoot, path.join(dataDir, 'postgres'), options.rootPlace);
  const initialised = existsSync(path.join(databaseDir, 'PG_VERSION'));
  const password = await readOrCreateSecretFile(dataDir, PASSWORD_FILE);
  const legacyCluster = initialised && password.created;
  const pg = new EmbeddedPostgres({
    databaseDir,
    port,
    user: 'postgres',
    password: password.value,
    persistent: true,
    createPostgresUser: asRoot !== null,
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
