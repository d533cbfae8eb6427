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

-- Per-tenant caps on what a tenant runs at once (null: the service's defaults). A run over the
-- cap waits queued; a probe activity over it waits before it probes.
alter table tenants add column max_running_runs integer check (max_running_runs > 0);
alter table tenants add column max_probe_activities integer check (max_probe_activities > 0);
