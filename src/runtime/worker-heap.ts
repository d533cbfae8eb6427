/**
 * The worker's default heap cap (docs/performance.md: a 1M-call run peaks well under it). It goes
 * first in NODE_OPTIONS, where a later --max-old-space-size wins, never on node's command line,
 * which would override the operator's NODE_OPTIONS. package.json's "worker" script does the same.
 */
export const WORKER_DEFAULT_NODE_OPTIONS = '--max-old-space-size=160';

/** NODE_OPTIONS for a worker process: the default cap, then whatever the operator set. */
export function workerNodeOptions(operatorNodeOptions: string | undefined): string {
  return [WORKER_DEFAULT_NODE_OPTIONS, operatorNodeOptions?.trim()].filter(Boolean).join(' ');
}
