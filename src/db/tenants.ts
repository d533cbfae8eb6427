import { randomUUID } from 'node:crypto';
import type { Queryable } from './client';

export const DEFAULT_TENANT_SLUG = 'default';

export interface TenantRow {
  id: string;
  name: string;
  slug: string;
}

export async function findTenant(sql: Queryable, id: string): Promise<TenantRow | undefined> {
  const [row] = await sql<TenantRow[]>`select id, name, slug from tenants where id = ${id}`;
  return row;
}

/** Returns the tenant with this slug, creating it if needed; safe when called concurrently. */
export async function ensureTenant(sql: Queryable, slug: string, name: string): Promise<TenantRow> {
  await sql`insert into tenants (id, name, slug) values (${randomUUID()}, ${name}, ${slug}) on conflict (slug) do nothing`;
  const [row] = await sql<TenantRow[]>`select id, name, slug from tenants where slug = ${slug}`;
  return row!;
}

const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The tenant a credential names, by id (UUID) or by slug; the tenant of an identity-provider token is only known this way. */
export async function findTenantByIdOrSlug(sql: Queryable, reference: string): Promise<{ id: string; name: string } | undefined> {
  const [row] = UUID_PATTERN.test(reference)
    ? await sql<{ id: string; name: string }[]>`select id, name from tenants where id = ${reference}`
    : await sql<{ id: string; name: string }[]>`select id, name from tenants where slug = ${reference}`;
  return row;
}
