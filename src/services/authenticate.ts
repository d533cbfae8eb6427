import { parseApiKey, secretMatches } from '../auth/api-key';
import { SCOPES, type Scope } from '../auth/scopes';
import type { Sql } from '../db/client';
import { findApiKeyByPrefix, touchApiKey } from '../db/api-keys';
import { unauthorized } from '../errors';
import type { Principal } from './context';

/** Resolves an Authorization header to a principal, or throws 401. Never says why a key failed. */
export async function authenticate(sql: Sql, authorization: string | undefined): Promise<Principal> {
  const match = /^Bearer ([^\s]+)$/i.exec(authorization?.trim() ?? '');
  if (!match) throw unauthorized('missing or malformed Authorization header; expected "Bearer <token>"');
  const parsed = parseApiKey(match[1]!);
  if (!parsed) throw unauthorized();
  const key = await findApiKeyByPrefix(sql, parsed.prefix);
  if (!key || key.revoked_at !== null || !secretMatches(parsed.secret, key.secret_hash)) throw unauthorized();
  await touchApiKey(sql, key.id);
  return {
    kind: 'api_key',
    id: key.id,
    name: key.name,
    email: null,
    tenantId: key.tenant_id,
    scopes: key.scopes.filter((s): s is Scope => (SCOPES as readonly string[]).includes(s)),
  };
}
