-- tenants:admin is new. A key of the default (platform) tenant that held every scope before it
-- existed (the bootstrap key an earlier start printed, or RVS_BOOTSTRAP_API_KEY) keeps holding
-- every scope. Keys of other tenants never hold it (authentication ignores it there too).
update api_keys
set scopes = array_append(scopes, 'tenants:admin')
where revoked_at is null
  and tenant_id = (select id from tenants where slug = 'default')
  and scopes @> array['chains:read', 'chains:write', 'endpoints:read', 'endpoints:write', 'suites:read', 'suites:write',
                      'runs:read', 'runs:write', 'catalog:read', 'catalog:write', 'keys:admin']::text[]
  and not scopes @> array['tenants:admin']::text[];
