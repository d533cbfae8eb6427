/** Runs `stop` once on the first SIGINT/SIGTERM; a second signal exits at once. */
export function onShutdownSignal(stop: () => unknown): void {
  let stopping = false;
  const handler = (signal: NodeJS.Signals) => {
    if (stopping) {
      process.stderr.write(`received ${signal} again; exiting now\n`);
      process.exit(130);
    }
    stopping = true;
    void Promise.resolve(stop());
  };
  process.on('SIGINT', handler);
  process.on('SIGTERM', handler);
}
