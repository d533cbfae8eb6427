import type { Logger } from '../logger';

/**
 * One Ctrl-C is delivered twice: by the terminal to the whole foreground process group and by
 * npm, which forwards it to its child. A repeat this close to the first is the same keypress.
 */
export const REPEATED_SIGNAL_WINDOW_MS = 1_000;

/**
 * Past this after SIGTERM, an API or worker shutdown still waiting on something exits anyway:
 * under the 30 s most orchestrators give (the Kubernetes manifests' terminationGracePeriodSeconds
 * are checked against it).
 */
export const SHUTDOWN_DEADLINE_MS = 25_000;

/**
 * Whether a signal received while already stopping means "stop now": only a second Ctrl-C
 * (SIGINT) later than REPEATED_SIGNAL_WINDOW_MS. A repeated SIGTERM never does: a process manager
 * that signals every process at once (systemd's default, a Kubernetes pod) reaches a child of
 * `npm start` directly and again through the supervisor, seconds later, once the children stopped
 * before it are down; cutting the drain short then would defeat it. Its own deadline (SIGKILL) is
 * the process manager's way to force.
 */
export function forcesExit(signal: NodeJS.Signals, firstAt: number, now: number = performance.now()): boolean {
  return signal === 'SIGINT' && now - firstAt >= REPEATED_SIGNAL_WINDOW_MS;
}

/**
 * Runs `stop` once on the first SIGINT/SIGTERM (or when the supervising parent goes away). A repeat
 * is ignored, except a second SIGINT later than REPEATED_SIGNAL_WINDOW_MS (the operator pressing
 * Ctrl-C again), which exits at once.
 */
export function onShutdownSignal(stop: () => unknown): void {
  let firstAt: number | undefined;
  const handler = (signal: NodeJS.Signals) => {
    if (firstAt !== undefined) {
      if (!forcesExit(signal, firstAt)) return;
      process.stderr.write(`received ${signal} again; exiting now\n`);
      process.exit(130);
    }
    firstAt = performance.now();
    void Promise.resolve(stop());
  };
  process.on('SIGINT', handler);
  process.on('SIGTERM', handler);
  onSupervisorGone(() => handler('SIGTERM'));
}

/**
 * Started by `npm start` with an IPC channel: it closes when the supervisor is gone (even by
 * SIGKILL), and a child in its own process group would otherwise be left running on its own.
 * Entry points install this once they are up, which can be many seconds after the channel closed
 * (a worker bundling its workflows): then `stop` runs on the next turn of the event loop, after
 * the caller's synchronous steps (the worker's run()) have begun, so it stops what they started.
 */
export function onSupervisorGone(stop: () => void): void {
  if (process.send === undefined) return;
  if (process.connected) process.once('disconnect', stop);
  else setImmediate(stop);
}

/**
 * An uncaught exception or unhandled rejection leaves the process in an unknown state: log it and
 * exit, so the supervisor (`npm start`) or the orchestrator starts a clean one.
 */
export function exitOnUncaughtError(logger: Logger): void {
  // Without an 'unhandledRejection' listener Node reports rejections here too, with that origin.
  process.on('uncaughtException', (error, origin) => {
    logger.fatal({ err: error, origin }, 'uncaught error; exiting');
    process.exit(1);
  });
}
