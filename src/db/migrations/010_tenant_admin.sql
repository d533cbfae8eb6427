-- Tenant administration: a tenant can be disabled (every credential of it is then refused) and
-- renamed; disabling keeps every row so re-enabling restores the tenant as it was.
alter table tenants add column disabled_at timestamptz;
alter table tenants add column updated_at timestamptz not null default now();
create index tenants_created on tenants (created_at desc, id desc);
