import { generateApiKey, hashApiKeySecret, parseApiKey } from '../auth/api-key';
import { SCOPES } from '../auth/scopes';
import type { Sql } from '../db/client';
import { countApiKeys, insertApiKeyIfAbsent } from '../db/api-keys';
import { DEFAULT_TENANT_SLUG, ensureTenant } from '../db/tenants';

/**
 * Makes sure the default tenant exists and can be reached: the configured bootstrap key is
 * created if absent; without one, a fresh admin key is generated the first time only.
 * Returns the key to print, or null when there is nothing new to show.
 */
export async function bootstrapDefaultTenant(sql: Sql, configuredKey: string | undefined): Promise<string | null> {
  const tenant = await ensureTenant(sql, DEFAULT_TENANT_SLUG, 'Default tenant');
  if (configuredKey) {
    const parsed = parseApiKey(configuredKey)!;
    await insertApiKeyIfAbsent(sql, {
      tenantId: tenant.id,
      name: 'bootstrap (RVS_BOOTSTRAP_API_KEY)',
      prefix: parsed.prefix,
      secretHash: hashApiKeySecret(parsed.secret),
      scopes: SCOPES,
    });
    return null;
  }
  return sql.begin(async (tx) => {
    // Serialise first starts so two processes cannot both decide the tenant has no key yet.
    await tx`select pg_advisory_xact_lock(hashtext('rvs:bootstrap-key'))`;
    if ((await countApiKeys(tx, tenant.id)) > 0) return null;
    const key = generateApiKey();
    await insertApiKeyIfAbsent(tx, {
      tenantId: tenant.id,
      name: 'bootstrap admin',
      prefix: key.prefix,
      secretHash: hashApiKeySecret(key.secret),
      scopes: SCOPES,
    });
    return key.key;
  });
}
