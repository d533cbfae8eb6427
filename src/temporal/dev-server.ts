import { spawn, type ChildProcess } from 'node:child_process';
import { Connection } from '@temporalio/client';
import { ensureSearchAttributes } from './search-attributes';

export interface DevServer {
  address: string;
  uiUrl: string | null;
  stop(): Promise<void>;
}

export interface DevServerOptions {
  cliPath: string;
  host?: string;
  port: number;
  /** null runs headless (tests). */
  uiPort: number | null;
  /** SQLite file so runs survive a restart; null keeps everything in memory (tests). */
  dbFile: string | null;
  namespace: string;
  log: (line: string) => void;
}

async function waitUntilServing(address: string, namespace: string, child: ChildProcess, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`temporal dev server exited with code ${child.exitCode}`);
    try {
      const connection = await Connection.connect({ address, connectTimeout: 1_000 });
      try {
        await connection.workflowService.getSystemInfo({});
        await ensureSearchAttributes(connection, namespace);
        return;
      } finally {
        await connection.close();
      }
    } catch (error) {
      lastError = error;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
  throw new Error(`temporal dev server did not answer on ${address} within ${timeoutMs} ms: ${String(lastError)}`);
}

/**
 * Dynamic config the service needs of any Temporal server (DESIGN §17): task Priority (the
 * priorityKey of a run's class) needs the new matcher, and per-tenant fairness keys need fairness
 * on. One partition per task queue keeps dispatch in priority and fairness order on a server
 * with few pollers (each partition orders only its own backlog). A production cluster sets the
 * same keys in its dynamic config file (docs/operations.md).
 */
export const DEV_SERVER_DYNAMIC_CONFIG = [
  'matching.useNewMatcher=true',
  'matching.enableFairness=true',
  'matching.numTaskqueueReadPartitions=1',
  'matching.numTaskqueueWritePartitions=1',
] as const;

/** Runs `temporal server start-dev` as a child process and registers the project's search attributes. */
export async function startDevServer(options: DevServerOptions): Promise<DevServer> {
  const host = options.host ?? '127.0.0.1';
  const args = ['server', 'start-dev', '--ip', host, '--port', String(options.port), '--namespace', options.namespace];
  args.push('--log-level', 'error');
  for (const value of DEV_SERVER_DYNAMIC_CONFIG) args.push('--dynamic-config-value', value);
  if (options.dbFile) args.push('--db-filename', options.dbFile);
  if (options.uiPort === null) args.push('--headless');
  else args.push('--ui-port', String(options.uiPort), '--ui-ip', host);

  const child = spawn(options.cliPath, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderrTail = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderrTail = (stderrTail + chunk.toString()).slice(-4_000);
  });
  const address = `${host}:${options.port}`;
  try {
    await waitUntilServing(address, options.namespace, child, 60_000);
  } catch (error) {
    child.kill('SIGKILL');
    throw new Error(`${(error as Error).message}\n${stderrTail}`);
  }
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    address,
    uiUrl: options.uiPort === null ? null : `http://${host === '0.0.0.0' ? 'localhost' : host}:${options.uiPort}`,
    async stop() {
      if (child.exitCode !== null) return;
      child.kill('SIGTERM');
      const killTimer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(killTimer);
    },
  };
}
