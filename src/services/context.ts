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

export interface Principal {
  kind: 'api_key' | 'user';
  id: string;
  name: string;
  email: string | null;
  tenantId: string;
  scopes: readonly Scope[];
}

/**
 * One string per principal, for what is kept per caller (rate-limit buckets, Idempotency-Key
 * records). The tenant is part of it: a JWT subject is only unique within its identity provider's
 * tenant claim, so two tenants' users may share a `sub`.
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

/** Another tenant's resource is a 403, as the spec says; callers 404 on a missing row first. */
export function assertSameTenant(ctx: Ctx, row: { tenant_id: string }): void {
  if (row.tenant_id !== ctx.principal.tenantId) throw forbidden();
}

/**
 * For a verb that needs a second scope beyond its route's (the route's own is checked by the auth
 * hook): same refusal, same message.
 */
export function assertScope(ctx: Pick<Ctx, 'principal'>, scope: Scope): void {
  if (!ctx.principal.scopes.includes(scope)) throw forbidden(`this operation needs the scope ${scope}`);
}
