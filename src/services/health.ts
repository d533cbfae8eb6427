import { pingDatabase } from '../db/health';
import { AppError, type ErrorDetail } from '../errors';
import type { Deps } from './context';

/**
 * How long each dependency may take to answer a readiness check. Orchestrators give a probe a few
 * seconds (Kubernetes: 1 s by default, our manifests 3 s) and a check that hangs is a failed one.
 */
export const READINESS_TIMEOUT_MS = 2_000;

export interface Readiness {
  status: 'ready';
  checks: { postgres: 'ok'; temporal: 'ok' };
}

async function within(what: string, timeoutMs: number, check: () => Promise<unknown>): Promise<ErrorDetail | null> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<string>((resolve) => {
    timer = setTimeout(() => resolve(`did not answer within ${timeoutMs / 1000} s`), timeoutMs);
  });
  try {
    // The message of the failure is not passed on: it can name hosts and users of the connection.
    const failure = await Promise.race([check().then(() => null, () => 'is not reachable'), timedOut]);
    return failure === null ? null : { field: what, message: failure };
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Whether this API process can serve: PostgreSQL answers a query and the Temporal frontend answers
 * an RPC, both checked at once. Not ready is a 503 naming what failed, so an orchestrator takes the
 * replica out of its load balancer instead of sending it requests that would fail.
 */
export async function checkReadiness({ deps, timeoutMs = READINESS_TIMEOUT_MS }: { deps: Pick<Deps, 'sql' | 'temporal'>; timeoutMs?: number }): Promise<Readiness> {
  const failures = (
    await Promise.all([
      within('postgres', timeoutMs, () => pingDatabase(deps.sql)),
      within('temporal', timeoutMs, () =>
        deps.temporal.connection.withDeadline(Date.now() + timeoutMs, () => deps.temporal.workflowService.getSystemInfo({})),
      ),
    ])
  ).filter((detail): detail is ErrorDetail => detail !== null);
  if (failures.length > 0) {
    throw new AppError('service_unavailable', `not ready: ${failures.map((f) => `${f.field} ${f.message}`).join('; ')}`, failures);
  }
  return { status: 'ready', checks: { postgres: 'ok', temporal: 'ok' } };
}

/**
 * How long one readiness answer (ready or not) is given again. /readyz is public and takes no
 * quota, so without this a flood of it became a flood of database and Temporal calls (3,000 of
 * them took the authenticated median from 15 ms to ~1 s). An orchestrator probes every few
 * seconds, so an answer up to a second old tells it nothing staler.
 */
export const READINESS_CACHE_MS = 1_000;

/**
 * checkReadiness, at most once per `ttlMs` and once at a time: calls while a check runs share it,
 * and calls within `ttlMs` of its end get its answer (a 503 too, so an outage is not hammered).
 */
export function cachedReadiness(
  check: () => Promise<Readiness>,
  { ttlMs = READINESS_CACHE_MS, now = () => performance.now() }: { ttlMs?: number; now?: () => number } = {},
): () => Promise<Readiness> {
  let current: Promise<Readiness> | null = null;
  let settledAt = -Infinity;
  let settled = false;
  return () => {
    if (current !== null && (!settled || now() - settledAt < ttlMs)) return current;
    settled = false;
    const running = check();
    current = running;
    const settle = () => {
      if (current !== running) return;
      settled = true;
      settledAt = now();
    };
    running.then(settle, settle);
    return running;
  };
}
