import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { hitRateLimit, purgeOldRateLimitWindows } from '../db/rate-limits';
import type { RateLimits } from '../config';
import { AppError } from '../errors';
import { principalKey, type Deps, type Principal } from '../services/context';


/**
 * Many viewers may share one address (an office, a NAT) and each open dashboard polls every 2 s
 * (30 a minute), so an address gets several links' worth.
 */
export const DASHBOARD_ADDRESS_FACTOR = 5;

interface Quota {
  bucket: string;
  limit: number;
  /** For the 429 message: "rate limit exceeded for <what>". */
  what: string;
}

function setHeaders(reply: FastifyReply, limit: number, count: number, windowStart: Date): number {
  const resetSeconds = Math.max(1, Math.ceil((windowStart.getTime() + 60_000 - Date.now()) / 1000));
  reply.header('ratelimit-limit', String(limit));
  reply.header('ratelimit-remaining', String(Math.max(0, limit - count)));
  reply.header('ratelimit-reset', String(resetSeconds));
  return resetSeconds;
}

function limited(resetSeconds: number, what: string): AppError {
  return new AppError('rate_limited', `rate limit exceeded for ${what}; retry after ${resetSeconds} s`, [], {
    'retry-after': String(resetSeconds),
  });
}

/**
 * Counts one hit against each quota in order and stops at the first one exceeded (429), so a
 * request refused by a narrow quota (one key) does not also use up a wide one (its tenant):
 * a runaway key cannot starve the rest of its tenant. The RateLimit headers describe the quota
 * closest to running out.
 */
async function enforce(deps: Deps, reply: FastifyReply, quotas: readonly Quota[]): Promise<void> {
  let tightest: { quota: Quota; count: number; windowStart: Date } | undefined;
  for (const quota of quotas) {
    const { count, windowStart } = await hitRateLimit(deps.sql, quota.bucket);
    if (count > quota.limit) throw limited(setHeaders(reply, quota.limit, count, windowStart), quota.what);
    if (!tightest || quota.limit - count < tightest.quota.limit - tightest.count) tightest = { quota, count, windowStart };
  }
  if (tightest) setHeaders(reply, tightest.quota.limit, tightest.count, tightest.windowStart);
}

/** Counts a failed authentication against the client's address; past the quota it is a 429. */
export async function limitAuthFailure(
  deps: Deps,
  request: FastifyRequest,
  reply: FastifyReply,
  limits: RateLimits,
  failure: AppError,
): Promise<AppError> {
  const { count, windowStart } = await hitRateLimit(deps.sql, `auth-failures:${request.ip}`);
  if (count <= limits.authFailuresPerMinute) return failure;
  return limited(setHeaders(reply, limits.authFailuresPerMinute, count, windowStart), 'failed authentication from this address');
}

/**
 * Dashboard routes are public (the link's token is the credential), so they are limited per
 * client address over all links first, then per run — only for a token that verified, so forged
 * tokens cannot fill the table with buckets. Per run, not per token: every verdict fetch signs a
 * new link for the same run, and fetching links must not multiply the quota. The run id is in
 * the link's path anyway; the token never reaches the table.
 */
export async function limitDashboardRequest(
  deps: Deps,
  request: FastifyRequest,
  reply: FastifyReply,
  limits: RateLimits,
  verifiedRunId: string | null,
): Promise<void> {
  const quotas: Quota[] = [
    { bucket: `dashboard-address:${request.ip}`, limit: limits.dashboardPerMinute * DASHBOARD_ADDRESS_FACTOR, what: 'dashboards from this address' },
  ];
  if (verifiedRunId !== null) {
    quotas.push({ bucket: `dashboard-run:${verifiedRunId}`, limit: limits.dashboardPerMinute, what: 'this run\'s dashboard' });
  }
  await enforce(deps, reply, quotas);
}

/** Routes that start a run: a manual schedule fire is the caller's trigger too. */
const RUN_TRIGGER_ROUTES = new Set(['/v1/suites/:suiteId/runs', '/v1/suites/:suiteId/schedule/trigger']);

const isRunTrigger = (request: FastifyRequest) =>
  request.method === 'POST' && RUN_TRIGGER_ROUTES.has(request.routeOptions.url ?? '');

/**
 * Quotas in fixed one-minute windows kept in Postgres, so every API replica shares them: per
 * principal, and per tenant so that minting more keys does not multiply a tenant's quota. Run
 * triggers have their own, stricter pair; failed authentication is limited per client address.
 * Called by the auth hook as soon as the principal is known, before its scopes are checked: a
 * request refused with 403 costs queries too and must not be free.
 */
export async function limitRequest(deps: Deps, request: FastifyRequest, reply: FastifyReply, limits: RateLimits, principal: Principal): Promise<void> {
  const identity = principalKey(principal);
  const tenant = `tenant:${principal.tenantId}`;
  const quotas: Quota[] = [
    { bucket: `requests:${identity}`, limit: limits.perMinute, what: 'this credential' },
    { bucket: `requests:${tenant}`, limit: limits.tenantPerMinute, what: 'this tenant' },
  ];
  if (isRunTrigger(request)) {
    quotas.push(
      { bucket: `triggers:${identity}`, limit: limits.triggersPerMinute, what: 'run triggers of this credential' },
      { bucket: `triggers:${tenant}`, limit: limits.tenantTriggersPerMinute, what: 'run triggers of this tenant' },
    );
  }
  await enforce(deps, reply, quotas);
}

/** Old windows are purged once a minute (the quotas themselves are counted by limitRequest). */
export function registerRateLimits(app: FastifyInstance, deps: Deps): void {
  const purge = setInterval(() => void purgeOldRateLimitWindows(deps.sql).catch(() => undefined), 60_000);
  purge.unref();
  app.addHook('onClose', async () => clearInterval(purge));
}
