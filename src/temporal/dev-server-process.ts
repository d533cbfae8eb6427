/**
 * The Temporal dev server of `npm start`, behind a small Node process of its own: the supervisor
 * starts this in its own process group (a Ctrl-C in the terminal does not stop Temporal under a
 * worker that is still draining), and the dev server stops with it — on SIGTERM from the
 * supervisor, and when the supervisor goes away (its IPC channel closes), so no orphaned
 * `temporal` process keeps the ports. Reports its addresses over the IPC channel once it serves.
 */
import path from 'node:path';
import { loadConfigOrExit } from '../config';
import { onShutdownSignal } from '../runtime/shutdown';
import { startDevServer } from './dev-server';

export interface DevServerReady {
  address: string;
  uiUrl: string | null;
}

async function main(): Promise<void> {
  const config = loadConfigOrExit(process.env);
  if (!config.temporal.cliPath) throw new Error('TEMPORAL_CLI_PATH must name the temporal binary');
  const server = await startDevServer({
    cliPath: config.temporal.cliPath,
    port: config.embedded.temporalPort,
    uiPort: config.embedded.temporalUiPort,
    dbFile: path.join(config.dataDir, 'temporal.db'),
    namespace: config.temporal.namespace,
    log: (line) => process.stdout.write(`${line}\n`),
  });
  onShutdownSignal(async () => {
    await server.stop();
    process.exit(0);
  });
  const ready: DevServerReady = { address: server.address, uiUrl: server.uiUrl };
  process.send?.(ready);
}

main().catch((error: unknown) => {
  process.stderr.write(`temporal dev server failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
