-- Schema of record. Every tenant-owned row carries tenant_id; services filter by it.

create table tenants (
  id uuid primary key,
  name text not null,
  slug text not null unique,
  created_at timestamptz not null default now()
);

create table api_keys (
  id uuid primary key,
  tenant_id uuid not null references tenants (id),
  name text not null,
  -- The prefix is public (it identifies the key); only a hash of the secret part is kept.
  prefix text not null unique,
  secret_hash bytea not null,
  scopes text[] not null,
  created_at timestamptz not null default now(),
  last_used_at timestamptz,
  revoked_at timestamptz
);

create table chains (
  id uuid primary key,
  tenant_id uuid not null references tenants (id),
  name text not null,
  slug text not null,
  family text not null,
  chain_id bigint,
  explorer_url text,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  unique (tenant_id, slug)
);
create index chains_tenant_created on chains (tenant_id, created_at desc, id desc);

create table endpoints (
  id uuid primary key,
  tenant_id uuid not null references tenants (id),
  chain_id uuid not null references chains (id),
  name text not null,
  protocol text not null,
  -- The URL and header values may embed credentials: stored encrypted (AES-256-GCM),
  -- shown only in redacted form.
  url_redacted text not null,
  url_encrypted text not null,
  header_names text[] not null default '{}',
  headers_encrypted text,
  timeout_ms integer not null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index endpoints_tenant_created on endpoints (tenant_id, created_at desc, id desc);

create table suites (
  id uuid primary key,
  tenant_id uuid not null references tenants (id),
  chain_id uuid not null references chains (id),
  name text not null,
  description text not null default '',
  config jsonb not null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index suites_tenant_created on suites (tenant_id, created_at desc, id desc);

-- Suite targets are denormalised for foreign keys, so an endpoint in use cannot be deleted.
create table suite_endpoints (
  suite_id uuid not null references suites (id) on delete cascade,
  endpoint_id uuid not null references endpoints (id),
  primary key (suite_id, endpoint_id)
);

create table runs (
  id uuid primary key,
  tenant_id uuid not null references tenants (id),
  test_suite_id uuid not null references suites (id),
  triggered_by text not null,
  status text not null check (status in ('queued', 'claimed', 'running', 'success', 'failed', 'cancelled')),
  requested_at timestamptz not null default now(),
  claimed_at timestamptz,
  started_at timestamptz,
  finished_at timestamptz,
  failure_reason text,
  baseline_run_id uuid references runs (id),
  acknowledged_count integer not null default 0,
  metadata jsonb not null default '{}',
  config_snapshot jsonb not null,
  stats jsonb,
  verdict jsonb,
  seed bigint not null,
  workflow_id text not null,
  created_at timestamptz not null default now()
);
create index runs_tenant_created on runs (tenant_id, created_at desc, id desc);
create index runs_suite_created on runs (test_suite_id, created_at desc);

create table run_targets (
  id uuid primary key,
  run_id uuid not null references runs (id) on delete cascade,
  endpoint_id uuid not null references endpoints (id),
  endpoint_name text not null,
  role text not null check (role in ('primary', 'reference')),
  order_index integer not null,
  status text not null check (status in ('pending', 'running', 'success', 'failed', 'cancelled')),
  metadata jsonb not null default '{}',
  calls_planned integer not null,
  started_at timestamptz,
  finished_at timestamptz,
  unique (run_id, order_index)
);

create table run_retries (
  id bigserial primary key,
  run_id uuid not null references runs (id) on delete cascade,
  target_id uuid references run_targets (id) on delete cascade,
  endpoint_id uuid,
  activity text not null,
  attempt integer not null,
  error_type text not null,
  message text not null,
  failed_at timestamptz not null,
  next_attempt_at timestamptz
);
-- One row per failed attempt, however often the recording itself is retried.
create unique index run_retries_attempt on run_retries
  (run_id, activity, coalesce(target_id, '00000000-0000-0000-0000-000000000000'), attempt);

-- Samples: the hot write path. No foreign keys (checked per row, they halve ingest speed);
-- (run_id, target_id, seq) makes a retried chunk idempotent.
create table run_samples (
  run_id uuid not null,
  target_id uuid not null,
  seq integer not null,
  role text not null,
  method text not null,
  started_at timestamptz not null,
  latency_us integer not null,
  ok boolean not null,
  outcome text not null,
  http_status smallint,
  rpc_error_code integer,
  response_hash text,
  matches_reference boolean,
  primary key (run_id, target_id, seq)
);
