import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, inject } from 'vitest';
import { createSql } from '../../src/db/client';
import { freePort } from '../helpers/free-port';
import { getWithin, killGroup, ROOT, spawnInGroup, until, type Spawned } from '../helpers/processes';

// The signal and crash handling every entry point (API, worker, dev-server host) installs, in a
// real process: a stop that takes 1.5 s, as a graceful shutdown does.

let dir: string;
let script: string;

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'rvs-shutdown-'));
  script = path.join(dir, 'entry.ts');
  await writeFile(
    script,
    `import { createLogger } from ${JSON.stringify(path.join(ROOT, 'src/logger'))};
import { exitOnUncaughtError, onShutdownSignal } from ${JSON.stringify(path.join(ROOT, 'src/runtime/shutdown'))};
exitOnUncaughtError(createLogger('info', 'entry'));
onShutdownSignal(async () => {
  process.stdout.write('stopping\\n');
  await new Promise((resolve) => setTimeout(resolve, 1_500));
  process.stdout.write('stopped\\n');
  process.exit(0);
});
if (process.argv[2] === 'reject') void Promise.reject(new Error('boom'));
process.stdout.write('ready\\n');
setInterval(() => undefined, 1_000);
`,
  );
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function started(...args: string[]): Promise<Spawned> {
  const entry = spawnInGroup(process.execPath, ['--import', 'tsx', script, ...args], {});
  await until(() => (entry.output().includes('ready') ? true : undefined), 20_000, () => `entry started\n${entry.output()}`);
  return entry;
}

describe('entry point signal handling', () => {
  it('takes two SIGINTs within a second (terminal and npm) as one Ctrl-C and stops gracefully', { timeout: 30_000 }, async () => {
    const entry = await started();
    process.kill(entry.child.pid!, 'SIGINT');
    await new Promise((resolve) => setTimeout(resolve, 20));
    process.kill(entry.child.pid!, 'SIGINT');
    expect(await entry.exited).toEqual({ code: 0, signal: null });
    expect(entry.output()).toContain('stopped');
    expect(entry.output()).not.toContain('again');
  });

  it('exits at once on a second SIGINT more than a second later', { timeout: 30_000 }, async () => {
    const entry = await started();
    process.kill(entry.child.pid!, 'SIGINT');
    await until(() => (entry.output().includes('stopping') ? true : undefined), 5_000, 'stopping');
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    process.kill(entry.child.pid!, 'SIGINT');
    expect(await entry.exited).toEqual({ code: 130, signal: null });
    expect(entry.output()).toContain('received SIGINT again; exiting now');
    expect(entry.output()).not.toContain('stopped');
  });

  it('ignores a second SIGTERM more than a second later: a process manager and the supervisor each send one', { timeout: 30_000 }, async () => {
    const entry = await started();
    process.kill(entry.child.pid!, 'SIGTERM');
    await until(() => (entry.output().includes('stopping') ? true : undefined), 5_000, 'stopping');
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    process.kill(entry.child.pid!, 'SIGTERM');
    expect(await entry.exited).toEqual({ code: 0, signal: null });
    expect(entry.output()).toContain('stopped');
    expect(entry.output()).not.toContain('again');
  });

  it('logs an unhandled rejection and exits 1', { timeout: 30_000 }, async () => {
    const entry = spawnInGroup(process.execPath, ['--import', 'tsx', script, 'reject'], {});
    expect(await entry.exited).toEqual({ code: 1, signal: null });
    const fatal = entry.output().split('\n').find((line) => line.includes('uncaught error; exiting'));
    expect(JSON.parse(fatal!)).toMatchObject({ level: 60, origin: 'unhandledRejection', err: { message: 'boom' } });
  });
});

/** The pids of a process's children (Linux: /proc/<pid>/task/<tid>/children). */
async function childrenOf(pid: number): Promise<number[]> {
  const pids: number[] = [];
  for (const task of await readdir(`/proc/${pid}/task`)) {
    const text = await readFile(`/proc/${pid}/task/${task}/children`, 'utf8').catch(() => '');
    pids.push(...text.split(/\s+/).filter(Boolean).map(Number));
  }
  return pids;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

// What compose, pm2 or systemd do with `npm run api|worker`: signal the npm process only. npm
// passes the signal to its script's process, which must be node itself (the script execs it),
// not a `sh -c` that keeps it.
describe('npm run api | worker under a process manager', () => {
  const dbName = `rvs_signals_${randomBytes(6).toString('hex')}`;
  let databaseUrl: string;
  const spawned: Spawned[] = [];

  beforeAll(async () => {
    const admin = createSql(inject('databaseUrl'), { max: 1 });
    await admin.unsafe(`create database ${dbName}`);
    await admin.end();
    const url = new URL(inject('databaseUrl'));
    url.pathname = `/${dbName}`;
    databaseUrl = url.toString();
  });

  afterAll(async () => {
    for (const npm of spawned) killGroup(npm);
    const admin = createSql(inject('databaseUrl'), { max: 1 });
    await admin.unsafe(`drop database if exists ${dbName} with (force)`);
    await admin.end();
  });

  const env = () => ({
    DATABASE_URL: databaseUrl,
    TEMPORAL_ADDRESS: inject('temporalAddress'),
    TEMPORAL_TASK_QUEUE: `signals-${randomUUID()}`,
    RVS_SECRET_KEY: 'shutdown-signals-test-key-0123456789abcdef',
    RVS_API_METRICS_PORT: '0',
    RVS_WORKER_METRICS_PORT: '0',
  });

  async function stopsOn(signal: NodeJS.Signals, npm: Spawned, stoppedLine: string): Promise<void> {
    const children = await childrenOf(npm.child.pid!);
    expect(children).toHaveLength(1);
    process.kill(npm.child.pid!, signal);
    const exit = await Promise.race([npm.exited, new Promise<'running'>((resolve) => setTimeout(() => resolve('running'), 30_000))]);
    expect(exit, npm.output()).not.toBe('running');
    expect(npm.output()).toContain(stoppedLine);
    await until(() => (alive(children[0]!) ? undefined : true), 5_000, () => `node gone\n${npm.output()}`);
  }

  it('npm run worker stops gracefully on SIGTERM to npm alone', { timeout: 90_000 }, async () => {
    const npm = spawnInGroup('npm', ['run', 'worker'], env());
    spawned.push(npm);
    await until(() => (npm.output().includes('"worker started"') ? true : undefined), 60_000, () => `worker started\n${npm.output()}`);
    await stopsOn('SIGTERM', npm, '"worker stopped"');
  });

  it('npm run api stops gracefully on SIGINT to npm alone', { timeout: 90_000 }, async () => {
    const port = await freePort();
    const npm = spawnInGroup('npm', ['run', 'api'], { ...env(), PORT: String(port) });
    spawned.push(npm);
    await until(() => (npm.output().includes('"api started"') ? true : undefined), 60_000, () => `api started\n${npm.output()}`);
    // Listening on loopback by default.
    expect(npm.output()).toContain(`"url":"http://127.0.0.1:${port}"`);
    await stopsOn('SIGINT', npm, '"api stopped"');
    expect((await getWithin(`http://127.0.0.1:${port}/healthz`, {}, 2_000)).status).toBe(0);
  });
});
