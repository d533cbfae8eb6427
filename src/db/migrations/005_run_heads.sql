-- Chain heads of a run's targets (eth_blockNumber), read at the start of every probe chunk when
-- the run has a reference: the verdict's reference_comparison.head_lag_blocks is computed from
-- them. A few rows per target (one per chunk), so foreign keys cost nothing here.
create table run_heads (
  run_id uuid not null references runs (id) on delete cascade,
  target_id uuid not null references run_targets (id) on delete cascade,
  observed_at timestamptz not null,
  head bigint not null
);
create index run_heads_target_observed on run_heads (run_id, target_id, observed_at);
