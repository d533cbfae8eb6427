-- Webhooks (DESIGN §10): a tenant's subscriptions to run events, signed per Standard Webhooks.
-- The URL may embed credentials and the secret signs every delivery: both are sealed with
-- RVS_SECRET_KEY like endpoint secrets; only the redacted URL is ever shown.
create table webhooks (
  id uuid primary key,
  tenant_id uuid not null references tenants (id),
  url_redacted text not null,
  url_encrypted text not null,
  secret_encrypted text not null,
  events text[] not null,
  format text not null check (format in ('standard', 'slack')),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index webhooks_tenant_created on webhooks (tenant_id, created_at desc, id desc);

-- One row per (webhook, run, event): the unique key makes a retried enqueue a no-op. The body is
-- fixed when the row is written, so every attempt signs and sends the same bytes.
create table webhook_deliveries (
  id uuid primary key,
  webhook_id uuid not null references webhooks (id) on delete cascade,
  tenant_id uuid not null references tenants (id),
  run_id uuid not null references runs (id) on delete cascade,
  event text not null check (event in ('run.finished', 'run.failed', 'verdict.failed', 'verdict.changed')),
  payload text not null,
  status text not null default 'pending' check (status in ('pending', 'delivered', 'failed')),
  attempts integer not null default 0,
  last_response_code integer,
  last_latency_ms integer,
  last_error_kind text,
  created_at timestamptz not null default now(),
  last_attempt_at timestamptz,
  finished_at timestamptz,
  unique (webhook_id, run_id, event)
);
create index webhook_deliveries_webhook_created on webhook_deliveries (webhook_id, created_at desc, id desc);

-- Every attempt of a delivery: what the deliveries list shows. Never the URL or the secret.
create table webhook_delivery_attempts (
  delivery_id uuid not null references webhook_deliveries (id) on delete cascade,
  attempt integer not null,
  outcome text not null check (outcome in ('delivered', 'failed')),
  response_code integer,
  latency_ms integer not null,
  error_kind text,
  attempted_at timestamptz not null default now(),
  primary key (delivery_id, attempt)
);

-- Acknowledgements: a person saw a failed run. runs.acknowledged_count (001) counts them.
create table run_acknowledgements (
  id uuid primary key,
  tenant_id uuid not null references tenants (id),
  run_id uuid not null references runs (id) on delete cascade,
  principal_kind text not null check (principal_kind in ('api_key', 'user')),
  principal_id text not null,
  principal_name text not null,
  note text not null,
  created_at timestamptz not null default now()
);
create index run_acknowledgements_run_created on run_acknowledgements (run_id, created_at desc, id desc);

-- webhooks:read and webhooks:write are new tenant scopes. A key that held every tenant scope
-- before they existed (the bootstrap key, an admin key) keeps holding every tenant scope.
update api_keys
set scopes = scopes || array['webhooks:read', 'webhooks:write']::text[]
where revoked_at is null
  and scopes @> array['chains:read', 'chains:write', 'endpoints:read', 'endpoints:write', 'suites:read', 'suites:write',
                      'runs:read', 'runs:write', 'catalog:read', 'catalog:write', 'keys:admin']::text[]
  and not scopes @> array['webhooks:read', 'webhooks:write']::text[];
