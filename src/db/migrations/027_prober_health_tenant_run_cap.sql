-- Issue 31 (DESIGN §17). The prober's own health per probe activity attempt: event-loop delay of
-- the worker process while it probed, the send lag of its paired sends, its CPU use. Finalize
-- reads the worst of a run's rows into the verdict's prober section; a run whose prober was
-- overloaded gets its latency judged inconclusive and never joins a baseline history.
create table run_prober_health (
  run_id uuid not null references runs (id) on delete cascade,
  target_id uuid not null,
  activity text not null,
  from_seq bigint not null,
  attempt integer not null,
  worker text not null,
  loop_delay_p99_us bigint not null,
  loop_delay_max_us bigint not null,
  -- Null when the activity measured no send lag (closed loop, unpaired open loop).
  send_lag_p99_us bigint,
  cpu_pct real not null,
  duration_ms integer not null,
  recorded_at timestamptz not null default now(),
  primary key (run_id, target_id, activity, from_seq, attempt)
);

-- A tenant's cap on runs claimed or running at once (null: the service's default,
-- RVS_TENANT_MAX_RUNNING_RUNS). A run over the cap waits queued until one of the tenant's ends.
alter table tenants add column max_running_runs integer check (max_running_runs > 0);
create index runs_tenant_active on runs (tenant_id) where status in ('claimed', 'running');
