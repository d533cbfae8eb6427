import type { Logger } from '../logger';

/**
 * One Ctrl-C is delivered twice: by the terminal to the whole foreground process group and by
 * npm, which forwards it to its child. A repeat this close to the first is the same keypress.
 */
export const REPEATED_SIGNAL_WINDOW_MS = 1_000;

/**
 * Runs `stop` once on the first SIGINT/SIGTERM (or when the supervising parent goes away). A repeat
 * within REPEATED_SIGNAL_WINDOW_MS is ignored; a later one (the operator pressing Ctrl-C again)
 * exits at once.
 */
export function onShutdownSignal(stop: () => unknown): void {
  let firstAt: number | undefined;
  const handler = (signal: NodeJS.Signals) => {
    if (firstAt !== undefined) {
      if (performance.now() - firstAt < REPEATED_SIGNAL_WINDOW_MS) return;
      process.stderr.write(`received ${signal} again; exiting now\n`);
      process.exit(130);
    }
    firstAt = performance.now();
    void Promise.resolve(stop());
  };
  process.on('SIGINT', handler);
  process.on('SIGTERM', handler);
  // Started by `npm start` with an IPC channel: it closes when the supervisor is gone (even by
  // SIGKILL), and a child in its own process group would otherwise be left running on its own.
  if (process.channel) process.once('disconnect', () => handler('SIGTERM'));
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
