-- Schedules (DESIGN §10): a suite's schedule is kept here, the truth the Temporal Schedule
-- `suite-<suiteId>` is reconciled to. Exactly one of cron (with its IANA timezone) or interval_s.
create table suite_schedules (
  suite_id uuid primary key references suites (id) on delete cascade,
  tenant_id uuid not null references tenants (id),
  cron text,
  timezone text,
  interval_s integer check (interval_s >= 1),
  paused boolean not null default false,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  check ((cron is null) <> (interval_s is null)),
  check ((cron is null) = (timezone is null))
);

-- Runs carry their origin: 'api' or 'schedule' (the fires that found the previous scheduled run
-- still going are skipped by this index's lookup).
create index runs_suite_scheduled_active on runs (test_suite_id)
  where triggered_by = 'schedule' and status in ('queued', 'claimed', 'running');
