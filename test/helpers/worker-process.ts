import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { inject } from 'vitest';
import { workerNodeOptions } from '../../src/runtime/worker-heap';

const ROOT = path.resolve(__dirname, '..', '..');

/**
 * The real worker entry point (`src/worker.ts`), started as `npm run worker` starts it (its heap
 * cap included), in its own process group so kill -9 takes all of it, on the given task queue and
 * database (the shared test database unless given).
 */
export function startWorkerProcess(options: { taskQueue: string; secretKey: string; databaseUrl?: string; env?: Record<string, string> }): ChildProcess {
  return spawn(process.execPath, ['--import', 'tsx', 'src/worker.ts'], {
    cwd: ROOT,
    detached: true,
    stdio: ['ignore', 'ignore', 'inherit'],
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      NODE_OPTIONS: workerNodeOptions(undefined),
      DATABASE_URL: options.databaseUrl ?? inject('databaseUrl'),
      TEMPORAL_ADDRESS: inject('temporalAddress'),
      TEMPORAL_TASK_QUEUE: options.taskQueue,
      RVS_SECRET_KEY: options.secretKey,
      RVS_ALLOW_PRIVATE_TARGETS: 'true',
      LOG_LEVEL: 'error',
      // No metrics server unless a test asks for one (a fixed port would clash between workers).
      RVS_WORKER_METRICS_PORT: '0',
      ...options.env,
    },
  });
}

export function isRunning(child: ChildProcess): boolean {
  return child.exitCode === null && child.signalCode === null;
}

export function killHard(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (!isRunning(child)) return resolve();
    child.once('exit', () => resolve());
    process.kill(-child.pid!, 'SIGKILL');
  });
}

/** Polls until the condition holds (an async condition may read the database). */
export async function until(condition: () => boolean | Promise<boolean>, timeoutMs: number, what = 'condition'): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`${what} not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
