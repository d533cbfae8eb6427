-- Re-checks of head-dependent mismatches (DESIGN.md §7): a candidate answer that differed from the
-- reference's while a head moved is re-sent once to both with the tag replaced by a fixed block.
-- The outcome is stored so that a retried finalize reuses it instead of asking the nodes again
-- (they may answer differently the second time). At most a few hundred rows per run.
create table run_rechecks (
  run_id uuid not null references runs (id) on delete cascade,
  target_id uuid not null references run_targets (id) on delete cascade,
  seq integer not null,
  method text not null,
  block bigint not null,
  -- resolved: the answers matched at the fixed block; confirmed: they still differed;
  -- failed: a side's re-sent call failed (the pair stays inconclusive).
  outcome text not null check (outcome in ('resolved', 'confirmed', 'failed')),
  candidate_hash text,
  reference_hash text,
  checked_at timestamptz not null default now(),
  primary key (run_id, target_id, seq)
);
