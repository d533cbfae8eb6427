-- Idempotency-Key: the first response to a (tenant, key) is kept for 24 hours and replayed.
create table idempotency_keys (
  tenant_id uuid not null references tenants (id),
  key text not null,
  request_hash text not null,
  -- null while the first request is still being handled
  status_code integer,
  response_body text,
  response_location text,
  created_at timestamptz not null default now(),
  primary key (tenant_id, key)
);
create index idempotency_keys_created on idempotency_keys (created_at);

-- Fixed one-minute windows shared by every API process.
create unlogged table rate_limit_windows (
  bucket text not null,
  window_start timestamptz not null,
  count integer not null,
  primary key (bucket, window_start)
);
