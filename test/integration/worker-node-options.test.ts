import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnInGroup } from '../helpers/processes';

// `npm run worker` caps the worker's heap by default; an operator's NODE_OPTIONS must win over that
// default. A preload reports the heap limit the worker process got and exits before the worker runs.

let dir: string;
let preload: string;

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'rvs-worker-heap-'));
  preload = path.join(dir, 'report-heap.cjs');
  // NODE_OPTIONS reaches npm and the shell's node processes too: only the worker reports and exits.
  await writeFile(
    preload,
    `if ((process.argv[1] || '').endsWith('worker.ts')) {
      const mb = Math.round(require('node:v8').getHeapStatistics().heap_size_limit / 2 ** 20);
      process.stdout.write('heap-limit-mb=' + mb + '\\n');
      process.exit(0);
    }\n`,
  );
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function workerHeapLimitMb(nodeOptions: string): Promise<number> {
  const npm = spawnInGroup('npm', ['run', '--silent', 'worker'], { NODE_OPTIONS: nodeOptions });
  await npm.exited;
  const match = /heap-limit-mb=(\d+)/.exec(npm.output());
  if (!match) throw new Error(`no heap limit reported:\n${npm.output()}`);
  return Number(match[1]);
}

describe('npm run worker heap cap', () => {
  it('is about 160 MB of old space by default', { timeout: 30_000 }, async () => {
    const limit = await workerHeapLimitMb(`--require ${preload}`);
    // heap_size_limit is old space plus young generation.
    expect(limit).toBeGreaterThanOrEqual(160);
    expect(limit).toBeLessThan(300);
  });

  it("is the operator's when NODE_OPTIONS sets --max-old-space-size", { timeout: 30_000 }, async () => {
    expect(await workerHeapLimitMb(`--max-old-space-size=640 --require ${preload}`)).toBeGreaterThanOrEqual(640);
    expect(await workerHeapLimitMb(`--require ${preload} --max_old_space_size=96`)).toBeLessThan(160);
  });
});
