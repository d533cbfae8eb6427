-- Vantage points (issue 25): every sample carries the region whose worker sent it, and a run
-- records each region that could not probe (no worker picked its tasks up in time).
-- Rows written before regions existed were all sent from the one place a worker ran: 'local'.
-- A constant default is stored in the catalogue (PostgreSQL 11+), so adding it rewrites nothing.
alter table run_samples add column region text not null default 'local';
-- The same seq of one target is probed once per region. The key keeps (target, seq) first, so
-- samples stay in seq order per target and the candidate/reference joins on seq (paired-samples.ts)
-- remain merge joins of two index scans; a region's rows of one seq sit next to each other.
alter table run_samples drop constraint run_samples_pkey;
alter table run_samples add primary key (run_id, target_id, seq, region);

-- A region whose probe tasks nobody started within the schedule-to-start timeout: its own
-- outcome ('vantage_unavailable'), never a failure of the endpoint. One row per run, region and target.
create table run_vantage_outcomes (
  run_id uuid not null references runs (id) on delete cascade,
  region text not null,
  target_id uuid not null references run_targets (id) on delete cascade,
  outcome text not null check (outcome in ('vantage_unavailable')),
  recorded_at timestamptz not null default now(),
  primary key (run_id, region, target_id)
);
