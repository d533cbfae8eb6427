-- Issue 34 (DESIGN §15). What the integrity step proved of each candidate's answers: its own run
-- step after probing re-asks the candidate the run's provable calls and the proofs behind them
-- (eth_getProof, headers, receipts …), within a budget of extra requests, never stored as samples.
-- One row per candidate target; finalize judges the `integrity` check from it.
create table run_integrity (
  run_id uuid not null references runs (id) on delete cascade,
  target_id uuid not null references run_targets (id) on delete cascade,
  proven integer not null check (proven >= 0),
  wrong integer not null check (wrong >= 0),
  not_provable integer not null check (not_provable >= 0),
  -- Requests the step sent this endpoint beyond the probes (the calls re-asked and their proofs).
  extra_requests integer not null check (extra_requests >= 0),
  -- The block the proofs were linked to; all null: self-consistency only (no trusted block, no reference).
  anchor_number bigint,
  anchor_hash text,
  anchor_source text check (anchor_source in ('trusted_block', 'reference')),
  -- Each call's finding (bounded by the step: at most a few dozen, messages cut short; no secrets).
  findings jsonb not null,
  verified_at timestamptz not null default now(),
  primary key (run_id, target_id),
  check ((anchor_number is null) = (anchor_hash is null) and (anchor_hash is null) = (anchor_source is null))
);
