import { z } from 'zod';
import { isPlatformScope } from '../auth/scopes';
import type { Queryable } from '../db/client';
import { findUnfinishedRunsOfTenant } from '../db/runs';
import { PG_UNIQUE_VIOLATION, pgErrorCode } from '../db/pg-errors';
import {
  DEFAULT_TENANT_SLUG,
  findTenant,
  findTenantBySlug,
  insertTenant,
  listTenants as listTenantRows,
  updateTenant as updateTenantRow,
  type TenantRow,
} from '../db/tenants';
import { AppError, conflict, forbidden, notFound, unauthorized, validationError } from '../errors';
import { page, type Page } from './pagination';
import { createApiKeyInput, issueApiKey } from './api-keys';
import type { Ctx, Deps } from './context';
import { requestRunCancel } from './runs/cancel';
import { displayName } from '../domain/display-name';

/**
 * Tenant administration (scope tenants:admin, held only by the platform tenant's credentials).
 * The verbs need only the database, so the server-side `npm run admin` calls them too, with the
 * operator as a platform principal.
 */
export interface TenantAdminCtx {
  principal: Pick<Ctx['principal'], 'scopes'>;
  /** The pool, or a transaction (the CLI creates a tenant and its first key in one). */
  deps: { sql: Queryable };
}

const UUID_SHAPE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** A slug names the tenant in JWT tenant claims, where a UUID-shaped value is read as an id. */
export const tenantSlug = z
  .string()
  .min(1)
  .max(63)
  .regex(/^[a-z0-9][a-z0-9-]*$/, 'must be lower-case letters, digits and dashes, starting with a letter or digit')
  .refine((slug) => !UUID_SHAPE.test(slug), 'must not look like a UUID (JWT tenant claims read those as tenant ids)');

const tenantName = displayName;

export const createTenantInput = z.strictObject({
  name: tenantName,
  slug: tenantSlug.refine((slug) => slug !== DEFAULT_TENANT_SLUG, `"${DEFAULT_TENANT_SLUG}" is the platform tenant's slug`),
});

export const patchTenantInput = z
  .strictObject({ name: tenantName.optional(), disabled: z.boolean().optional() })
  .refine((patch) => patch.name !== undefined || patch.disabled !== undefined, 'give at least one field to change');

export interface TenantResponse {
  id: string;
  name: string;
  slug: string;
  /** The platform tenant (slug `default`): its credentials alone may hold tenants:admin; it cannot be disabled. */
  platform: boolean;
  disabled: boolean;
  disabled_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

export function presentTenant(row: TenantRow): TenantResponse {
  return {
    id: row.id,
    name: row.name,
    slug: row.slug,
    platform: row.slug === DEFAULT_TENANT_SLUG,
    disabled: row.disabled_at !== null,
    disabled_at: row.disabled_at,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

/** Routes check the scope too; the verbs check it again so no other caller skips it. */
function assertTenantAdmin(ctx: TenantAdminCtx): void {
  if (!ctx.principal.scopes.includes('tenants:admin')) throw forbidden('this operation needs the scope tenants:admin');
}

const slugTaken = (slug: string) => conflict(`a tenant with slug "${slug}" already exists`);

export async function createTenant({ ctx, input }: { ctx: TenantAdminCtx; input: z.infer<typeof createTenantInput> }): Promise<TenantResponse> {
  assertTenantAdmin(ctx);
  try {
    return presentTenant(await insertTenant(ctx.deps.sql, input));
  } catch (error) {
    if (pgErrorCode(error) === PG_UNIQUE_VIOLATION) throw slugTaken(input.slug);
    throw error;
  }
}

export async function listTenants({ ctx, input }: { ctx: TenantAdminCtx; input: { limit: number; offset: number } }): Promise<Page<TenantResponse>> {
  assertTenantAdmin(ctx);
  const { rows, total } = await listTenantRows(ctx.deps.sql, input);
  return page(rows.map(presentTenant), total, input.limit, input.offset);
}

export async function getTenant({ ctx, input }: { ctx: TenantAdminCtx; input: { tenantId: string } }): Promise<TenantResponse> {
  assertTenantAdmin(ctx);
  const row = await findTenant(ctx.deps.sql, input.tenantId);
  if (!row) throw notFound('tenant');
  return presentTenant(row);
}

export async function getTenantBySlug({ ctx, input }: { ctx: TenantAdminCtx; input: { slug: string } }): Promise<TenantResponse> {
  assertTenantAdmin(ctx);
  const row = await findTenantBySlug(ctx.deps.sql, input.slug);
  if (!row) throw notFound(`tenant "${input.slug}"`);
  return presentTenant(row);
}

/**
 * Renames, disables or re-enables a tenant. Disabling takes effect on the next request: every
 * credential of the tenant (API keys, identity-provider tokens naming it, dashboard links of its
 * runs) is a 401 until it is enabled again; its data stays as it was. The platform tenant cannot
 * be disabled: that would lock every tenant administrator out.
 */
export async function updateTenant({
  ctx,
  input,
}: {
  ctx: TenantAdminCtx;
  input: { tenantId: string; patch: z.infer<typeof patchTenantInput> };
}): Promise<TenantResponse> {
  const current = await getTenant({ ctx, input });
  if (input.patch.disabled === true && current.platform) throw conflict('the platform tenant (slug "default") cannot be disabled');
  const row = await updateTenantRow(ctx.deps.sql, input.tenantId, input.patch);
  if (!row) throw notFound('tenant');
  return presentTenant(row);
}

/**
 * PATCH /v1/tenants/:tenantId: updateTenant, and when the patch disables the tenant, every run of
 * it still queued or running is cancelled through the cancel path of POST /v1/runs/:id/cancel
 * (its workflow is cancelled in Temporal and the run ends `cancelled`): once its credentials are
 * refused nobody could stop them. Disabling an already disabled tenant cancels again whatever is
 * left (a run triggered while the first disable landed). Its schedules fire no runs while it is
 * disabled (fireSchedule skips them).
 */
export async function patchTenant({
  ctx,
  input,
}: {
  ctx: { principal: TenantAdminCtx['principal']; deps: Pick<Deps, 'sql' | 'temporal'> };
  input: { tenantId: string; patch: z.infer<typeof patchTenantInput> };
}): Promise<TenantResponse & { cancelled_runs: number }> {
  const tenant = await updateTenant({ ctx, input });
  if (input.patch.disabled !== true) return { ...tenant, cancelled_runs: 0 };
  const runs = await findUnfinishedRunsOfTenant(ctx.deps.sql, tenant.id);
  let cancelled = 0;
  for (const run of runs) {
    try {
      await requestRunCancel(ctx.deps, run);
      cancelled++;
    } catch {
      throw new AppError(
        'service_unavailable',
        `the tenant is disabled, but the workflow service is unavailable: ${runs.length - cancelled} of its ${runs.length} unfinished runs were not cancelled; disable it again to cancel them`,
      );
    }
  }
  return { ...tenant, cancelled_runs: cancelled };
}

/**
 * Issues a key in the tenant, typically its first admin key (every tenant scope). Platform scopes
 * belong to the platform tenant only: asking for tenants:admin in another tenant is a 400 on
 * `scopes`, since no key of that tenant could use it. Otherwise the caller grants only scopes it
 * holds, as for its own keys. The secret is in this response only.
 */
export async function createTenantApiKey({
  ctx,
  input,
}: {
  ctx: TenantAdminCtx;
  input: { tenantId: string; key: z.infer<typeof createApiKeyInput> };
}) {
  const tenant = await getTenant({ ctx, input });
  if (!tenant.platform) {
    const platformOnly = input.key.scopes.filter(isPlatformScope);
    if (platformOnly.length > 0) {
      throw validationError([
        { field: 'scopes', message: `${platformOnly.join(', ')} is held only by keys of the platform tenant (slug "default")` },
      ]);
    }
  }
  return issueApiKey(ctx, tenant.id, input.key);
}

/**
 * For credentials that are not looked up by authentication (a dashboard link is a signed token
 * for one run): a disabled tenant's link is a 401 like its keys. Missing tenant counts as disabled.
 */
export async function assertTenantEnabled(deps: { sql: Queryable }, tenantId: string): Promise<void> {
  if (!(await tenantEnabled(deps, tenantId))) throw unauthorized('this tenant is disabled');
}

export async function tenantEnabled(deps: { sql: Queryable }, tenantId: string): Promise<boolean> {
  const tenant = await findTenant(deps.sql, tenantId);
  return tenant !== undefined && tenant.disabled_at === null;
}
