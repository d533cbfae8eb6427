import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, spawnInGroup, until, type Spawned } from '../helpers/processes';

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

  it('logs an unhandled rejection and exits 1', { timeout: 30_000 }, async () => {
    const entry = spawnInGroup(process.execPath, ['--import', 'tsx', script, 'reject'], {});
    expect(await entry.exited).toEqual({ code: 1, signal: null });
    const fatal = entry.output().split('\n').find((line) => line.includes('uncaught error; exiting'));
    expect(JSON.parse(fatal!)).toMatchObject({ level: 60, origin: 'unhandledRejection', err: { message: 'boom' } });
  });
});
