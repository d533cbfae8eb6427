import { randomUUID } from 'node:crypto';
import type { Queryable } from './client';

/** The platform tenant: `npm start` creates it, its bootstrap key holds tenants:admin. */
export const DEFAULT_TENANT_SLUG = 'default';

export interface TenantRow {
  id: string;
  name: string;
  slug: string;
  created_at: Date;
  updated_at: Date;
  /** Set while the tenant is disabled: every credential of it is then refused. */
  disabled_at: Date | null;
}

export async function findTenant(sql: Queryable, id: string): Promise<TenantRow | undefined> {
  const [row] = await sql<TenantRow[]>`select * from tenants where id = ${id}`;
  return row;
}

export async function findTenantBySlug(sql: Queryable, slug: string): Promise<TenantRow | undefined> {
  const [row] = await sql<TenantRow[]>`select * from tenants where slug = ${slug}`;
  return row;
}

/** Returns the tenant with this slug, creating it if needed; safe when called concurrently. */
export async function ensureTenant(sql: Queryable, slug: string, name: string): Promise<TenantRow> {
  await sql`insert into tenants (id, name, slug) values (${randomUUID()}, ${name}, ${slug}) on conflict (slug) do nothing`;
  return (await findTenantBySlug(sql, slug))!;
}

/** Creates a tenant; a taken slug is the unique violation of `tenants.slug`, for the caller to map. */
export async function insertTenant(sql: Queryable, tenant: { name: string; slug: string }): Promise<TenantRow> {
  const [row] = await sql<TenantRow[]>`
    insert into tenants (id, name, slug) values (${randomUUID()}, ${tenant.name}, ${tenant.slug})
    returning *`;
  return row!;
}

export async function listTenants(sql: Queryable, page: { limit: number; offset: number }): Promise<{ rows: TenantRow[]; total: number }> {
  const rows = await sql<TenantRow[]>`
    select * from tenants order by created_at desc, id desc limit ${page.limit} offset ${page.offset}`;
  const [count] = await sql<{ n: number }[]>`select count(*)::int as n from tenants`;
  return { rows, total: count!.n };
}

/**
 * Renames and/or disables or re-enables a tenant. Disabling twice keeps the first time; a patch
 * that changes nothing leaves `updated_at` alone.
 */
export async function updateTenant(
  sql: Queryable,
  id: string,
  patch: { name?: string | undefined; disabled?: boolean | undefined },
): Promise<TenantRow | undefined> {
  const name = patch.name ?? null;
  const disabled = patch.disabled ?? null;
  const [row] = await sql<TenantRow[]>`
    update tenants set
      name = coalesce(${name}::text, name),
      disabled_at = case
        when ${disabled}::boolean is null then disabled_at
        when ${disabled}::boolean then coalesce(disabled_at, now())
        else null
      end,
      updated_at = case
        when (${name}::text is not null and ${name}::text <> name)
          or (${disabled}::boolean is not null and ${disabled}::boolean <> (disabled_at is not null))
        then now()
        else updated_at
      end
    where id = ${id}
    returning *`;
  return row;
}

const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The tenant a credential names, by id (UUID) or by slug; the tenant of an identity-provider token is only known this way. */
export async function findTenantByIdOrSlug(sql: Queryable, reference: string): Promise<TenantRow | undefined> {
  return UUID_PATTERN.test(reference) ? findTenant(sql, reference) : findTenantBySlug(sql, reference);
}
