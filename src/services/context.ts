import type { Client } from '@temporalio/client';
import type { BaseLogger } from 'pino';
import type { JwtVerifier } from '../auth/jwt';
import type { Scope } from '../auth/scopes';
import type { Config } from '../config';
import type { SecretBox } from '../crypto/secret-box';
import type { Sql } from '../db/client';
import { forbidden } from '../errors';

/** Long-lived dependencies of the service verbs. */
export interface Deps {
  config: Config;
  sql: Sql;
  box: SecretBox;
  temporal: Client;
  /** Null when no identity provider is configured: JWTs are then refused. */
  jwt: JwtVerifier | null;
}

interface Actor {
  id: string;
  name: string;
  tenantId: string;
  scopes: readonly Scope[];
}

/** Who authenticated a request: an API key, or a user with a JWT. GET /v1/users/me describes one. */
export interface Caller extends Actor {
  kind: 'api_key' | 'user';
  email: string | null;
}

/**
 * The service acting for a tenant on its own: a schedule firing (id: the suite) or a dashboard
 * link being viewed (id: the run). Never authenticated by a header, never a caller of
 * /v1/users/me, never an API key: its kind is what audit fields and per-actor keys record.
 */
export interface SystemActor extends Actor {
  kind: 'schedule' | 'dashboard_link';
  email: null;
}

/** Whoever a verb acts for. */
export type Principal = Caller | SystemActor;

/** A schedule firing for its suite: it may start runs of the suite's tenant, nothing else. */
export function scheduleActor(suite: { id: string; tenant_id: string }): SystemActor {
  return { kind: 'schedule', id: suite.id, name: 'schedule', email: null, tenantId: suite.tenant_id, scopes: ['runs:write'] };
}

/**
 * A dashboard link: read-only (runs:read), in the run's tenant. It exists only for the duration
 * of one request and only after the link's token was verified for this run.
 */
export function dashboardLinkActor(runId: string, tenantId: string): SystemActor {
  return { kind: 'dashboard_link', id: runId, name: 'dashboard link', email: null, tenantId, scopes: ['runs:read'] };
}

/**
 * The caller of a verb only a request's caller can use (describing itself, acknowledging a run).
 * A system actor never reaches those verbs; if a change ever routed one there, it is refused
 * rather than recorded as something it is not.
 */
export function callerOf(ctx: Pick<Ctx, 'principal'>): Caller {
  const { principal } = ctx;
  if (principal.kind === 'api_key' || principal.kind === 'user') return principal;
  throw forbidden(`a ${principal.kind} cannot do this`);
}

/**
 * One string per principal, for what is kept per caller (rate-limit buckets, Idempotency-Key
 * records). The tenant is part of it: a JWT subject is only unique within its identity provider's
 * tenant claim, so two tenants' users may share a `sub`. The kind keeps a system actor's keys
 * apart from any API key's.
 */
export function principalKey(principal: Pick<Principal, 'kind' | 'id' | 'tenantId'>): string {
  return `${principal.kind}:${principal.tenantId}:${principal.id}`;
}

/** What every verb receives: who is calling, and the dependencies to act with. */
export interface Ctx {
  principal: Principal;
  deps: Deps;
  /** The request's logger (its lines carry the request id), when the verb runs for a request. */
  log?: Pick<BaseLogger, 'error' | 'warn' | 'info'>;
}

/**
 * For a verb that needs a second scope beyond its route's (the route's own is checked by the auth
 * hook): same refusal, same message.
 */
export function assertScope(ctx: Pick<Ctx, 'principal'>, scope: Scope): void {
  if (!ctx.principal.scopes.includes(scope)) throw forbidden(`this operation needs the scope ${scope}`);
}
