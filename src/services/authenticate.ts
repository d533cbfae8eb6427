import { parseApiKey, secretMatches } from '../auth/api-key';
import { bearerToken } from '../auth/bearer-token';
import { looksLikeJwt, type JwtRequest } from '../auth/jwt';
import { isPlatformScope, SCOPES, type Scope } from '../auth/scopes';
import type { Sql } from '../db/client';
import { findApiKeyByPrefix, touchApiKey } from '../db/api-keys';
import { DEFAULT_TENANT_SLUG, findTenantByIdOrSlug } from '../db/tenants';
import { unauthorized } from '../errors';
import type { Caller, Deps } from './context';

/**
 * Resolves an Authorization header to a principal, or throws 401. A token of three dot-separated
 * base64url parts is a JWT from the identity provider, verified by @fastify/jwt through the
 * request; anything else is an API key. Never says why a key failed.
 */
export async function authenticate(deps: Pick<Deps, 'sql' | 'jwt'>, authorization: string | undefined, request: JwtRequest): Promise<Caller> {
  const token = bearerToken(authorization);
  if (!token) throw unauthorized('missing or malformed Authorization header; expected "Bearer <token>"');
  return looksLikeJwt(token) ? authenticateJwt(deps, request) : authenticateApiKey(deps.sql, token);
}

async function authenticateApiKey(sql: Sql, token: string): Promise<Caller> {
  const parsed = parseApiKey(token);
  if (!parsed) throw unauthorized();
  const key = await findApiKeyByPrefix(sql, parsed.prefix);
  if (!key || key.revoked_at !== null || !secretMatches(parsed.secret, key.secret_hash)) throw unauthorized();
  // A disabled tenant's keys are refused like revoked ones, from the next request on: nothing caches this.
  if (key.tenant_disabled_at !== null) throw unauthorized();
  await touchApiKey(sql, key.id);
  return {
    kind: 'api_key',
    id: key.id,
    name: key.name,
    email: null,
    tenantId: key.tenant_id,
    scopes: effectiveScopes(
      key.scopes.filter((s): s is Scope => (SCOPES as readonly string[]).includes(s)),
      key.tenant_slug,
    ),
  };
}

/**
 * Platform scopes (tenants:admin) count only for the platform tenant's credentials. Creating keys
 * refuses them elsewhere already; this also covers rows written by other means and tokens from an
 * identity provider, which may carry any scope for any tenant.
 */
function effectiveScopes(scopes: readonly Scope[], tenantSlug: string): Scope[] {
  return tenantSlug === DEFAULT_TENANT_SLUG ? [...scopes] : scopes.filter((scope) => !isPlatformScope(scope));
}

async function authenticateJwt({ sql, jwt }: Pick<Deps, 'sql' | 'jwt'>, request: JwtRequest): Promise<Caller> {
  if (!jwt) throw unauthorized('this server does not accept JWTs; use an API key');
  const identity = await jwt.verify(request);
  // The tenant must already exist: a token cannot create one.
  const tenant = await findTenantByIdOrSlug(sql, identity.tenant);
  if (!tenant || tenant.disabled_at !== null) throw unauthorized();
  return {
    kind: 'user',
    id: identity.subject,
    name: identity.name,
    email: identity.email,
    tenantId: tenant.id,
    scopes: effectiveScopes(identity.scopes, tenant.slug),
  };
}
