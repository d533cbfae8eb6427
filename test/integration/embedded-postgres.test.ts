import { chmod, mkdtemp, rm, stat, unlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createSql } from '../../src/db/client';
import { startEmbeddedPostgres } from '../../src/runtime/embedded-postgres';
import { readSecretFile } from '../../src/runtime/secret-file';
import { freePort } from '../helpers/free-port';

// A real PostgreSQL from the npm-shipped binaries, on a free loopback port in a temporary data dir.

const dirs: string[] = [];

async function dataDir(): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'rvs-embedded-'));
  dirs.push(dir);
  // As root PostgreSQL runs as the `postgres` user, which must reach the data dir (mkdtemp makes it 0700).
  await chmod(dir, 0o755);
  return dir;
}

async function canConnect(url: string): Promise<boolean> {
  const sql = createSql(url, { max: 1 });
  try {
    await sql`select 1`;
    return true;
  } catch {
    return false;
  } finally {
    await sql.end({ timeout: 1 });
  }
}

function withPassword(url: string, password: string): string {
  const parsed = new URL(url);
  parsed.password = password;
  return parsed.toString();
}

afterAll(async () => {
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

describe('embedded PostgreSQL password', () => {
  it('is generated per data dir into a 0600 file, never the old fixed one, and survives a restart', async () => {
    const [dirA, dirB] = [await dataDir(), await dataDir()];
    const port = await freePort();
    const a = await startEmbeddedPostgres(dirA, () => undefined, port);
    try {
      const password = await readSecretFile(dirA, 'postgres.password');
      expect(password).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(new URL(a.url).password).toBe(password);
      expect((await stat(path.join(dirA, 'postgres.password'))).mode & 0o777).toBe(0o600);
      expect(await canConnect(a.url)).toBe(true);
      expect(await canConnect(withPassword(a.url, 'rvs-embedded'))).toBe(false);
    } finally {
      await a.stop();
    }
    const again = await startEmbeddedPostgres(dirA, () => undefined, port);
    try {
      expect(again.url).toBe(a.url);
      expect(await canConnect(again.url)).toBe(true);
    } finally {
      await again.stop();
    }
    const b = await startEmbeddedPostgres(dirB, () => undefined, port);
    await b.stop();
    expect(new URL(b.url).password).not.toBe(new URL(a.url).password);
  });

  it('moves a cluster created with the old fixed password to a generated one', async () => {
    const dir = await dataDir();
    const port = await freePort();
    const first = await startEmbeddedPostgres(dir, () => undefined, port);
    // Make it look like a data dir from before passwords were generated.
    const sql = createSql(first.url, { max: 1 });
    await sql.unsafe(`alter user postgres with password 'rvs-embedded'`);
    await sql.end();
    await first.stop();
    await unlink(path.join(dir, 'postgres.password'));

    const second = await startEmbeddedPostgres(dir, () => undefined, port);
    try {
      const password = await readSecretFile(dir, 'postgres.password');
      expect(password).toBeDefined();
      expect(new URL(second.url).password).toBe(password);
      expect(await canConnect(second.url)).toBe(true);
      expect(await canConnect(withPassword(second.url, 'rvs-embedded'))).toBe(false);
    } finally {
      await second.stop();
    }
  });
});
