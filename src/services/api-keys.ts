import { z } from 'zod';
import { generateApiKey, hashApiKeySecret } from '../auth/api-key';
import { SCOPES, type Scope } from '../auth/scopes';
import type { Queryable } from '../db/client';
import { findApiKey, insertApiKey, listApiKeys as listApiKeyRows, revokeApiKey as revokeApiKeyRow, type ApiKeyRow } from '../db/api-keys';
import { forbidden, notFound } from '../errors';
import { page, type Page } from './pagination';
import type { Ctx } from './context';
import { loadOwned } from './load-owned';
import { storedMember } from './stored-vocabulary';
import { displayName } from '../domain/display-name';

export const createApiKeyInput = z.strictObject({
  name: displayName,
  scopes: z
    .array(z.enum(SCOPES))
    .min(1, 'must name at least one scope')
    .transform((scopes) => SCOPES.filter((scope) => scopes.includes(scope))),
});

/** The secret and its hash never leave the service; `key` is added once, by createApiKey. */
export interface ApiKeyResponse {
  id: string;
  name: string;
  /** The public start of the key, `rvs_<12 characters>`, so a listed key can be matched to the one in hand. */
  prefix: string;
  scopes: Scope[];
  created_at: Date;
  last_used_at: Date | null;
  revoked_at: Date | null;
}

export function presentApiKey(row: ApiKeyRow): ApiKeyResponse {
  return {
    id: row.id,
    name: row.name,
    prefix: `rvs_${row.prefix}`,
    scopes: row.scopes.map((scope) => storedMember(SCOPES, scope, 'api_keys.scopes')),
    created_at: row.created_at,
    last_used_at: row.last_used_at,
    revoked_at: row.revoked_at,
  };
}

/** A caller can hand out only scopes it holds itself, or keys:admin would be a path to every scope. */
export async function createApiKey({ ctx, input }: { ctx: Ctx; input: z.infer<typeof createApiKeyInput> }) {
  return issueApiKey(ctx, ctx.principal.tenantId, input);
}

/**
 * Issues a key in `tenantId` (the caller's own, or any tenant for a tenant administrator) within
 * the scopes the caller holds. The secret is in the result only: it is never stored or logged.
 */
export async function issueApiKey(
  ctx: { principal: Pick<Ctx['principal'], 'scopes'>; deps: { sql: Queryable } },
  tenantId: string,
  input: z.infer<typeof createApiKeyInput>,
) {
  const missing = input.scopes.filter((scope) => !ctx.principal.scopes.includes(scope));
  if (missing.length > 0) throw forbidden(`you cannot grant scopes you do not hold: ${missing.join(', ')}`);
  const generated = generateApiKey();
  const row = await insertApiKey(ctx.deps.sql, {
    tenantId,
    name: input.name,
    prefix: generated.prefix,
    secretHash: hashApiKeySecret(generated.secret),
    scopes: input.scopes,
  });
  return { ...presentApiKey(row), key: generated.key };
}

export async function getApiKey({ ctx, input }: { ctx: Ctx; input: { keyId: string } }): Promise<ApiKeyResponse> {
  return presentApiKey(await loadOwned(ctx, 'API key', findApiKey, input.keyId));
}

export async function listApiKeys({ ctx, input }: { ctx: Ctx; input: { limit: number; offset: number } }): Promise<Page<ApiKeyResponse>> {
  const { rows, total } = await listApiKeyRows(ctx.deps.sql, ctx.principal.tenantId, input);
  return page(rows.map(presentApiKey), total, input.limit, input.offset);
}

/** Takes effect at once: every request looks the key up, nothing caches it. Revoking again is a no-op. */
export async function revokeApiKey({ ctx, input }: { ctx: Ctx; input: { keyId: string } }): Promise<ApiKeyResponse> {
  await getApiKey({ ctx, input });
  const row = await revokeApiKeyRow(ctx.deps.sql, input.keyId, ctx.principal.tenantId);
  if (!row) throw notFound('API key');
  return presentApiKey(row);
}
