import { z } from 'zod';
import { SCOPES } from '../../../auth/scopes';
import { component, int, pageOf, timestamp, uuid, uuidParam } from '../shared/schemas';

export const tenantParams = uuidParam('tenantId');

/** A tenant as services/tenants.ts presentTenant returns it. */
export const Tenant = component(
  'Tenant',
  z.object({
    id: uuid,
    name: z.string(),
    slug: z.string().describe('unique; a JWT tenant claim may name the tenant by it'),
    platform: z.boolean().describe('the platform tenant (slug `default`): only its credentials may hold tenants:admin, and it cannot be disabled'),
    disabled: z.boolean().describe('while true, every credential of the tenant (API keys, JWTs, dashboard links) is a 401'),
    disabled_at: timestamp.nullable(),
    created_at: timestamp,
    updated_at: timestamp,
  }),
);

export const TenantPage = pageOf('TenantPage', Tenant);

/** PATCH /v1/tenants/:tenantId: the tenant, and what disabling it did to its runs. */
export const TenantUpdated = component(
  'TenantUpdated',
  Tenant.extend({
    cancelled_runs: int.describe(
      'runs of the tenant (queued or running) this request asked to cancel, as POST /v1/runs/{runId}/cancel does; 0 unless the patch disables the tenant',
    ),
  }),
);

/** A key issued in a tenant by a tenant administrator (services/api-keys.ts presentApiKey, plus the secret). */
export const TenantApiKey = component(
  'TenantApiKey',
  z.object({
    id: uuid,
    name: z.string(),
    prefix: z.string().describe('`rvs_` + 12 characters: the public start of the key'),
    scopes: z.array(z.string()).describe(`in the canonical order of the scope list (${SCOPES.join(', ')})`),
    created_at: timestamp,
    last_used_at: timestamp.nullable(),
    revoked_at: timestamp.nullable(),
    key: z
      .string()
      .describe('the whole key; shown in this response only and never again (an Idempotency-Key replay omits it)'),
  }),
);
