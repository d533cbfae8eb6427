-- What differs in a listed correctness mismatch: both sides are asked the call once more, by its
-- own run step between probing and finalize (samples keep fingerprints, not answers). Stored so
-- that finalize reads it without talking to the endpoints, and a retried step or finalize reuses
-- it. Only explanations that came back are stored ('shown' or 'changed'); a call that failed is
-- not, and finalize says 'unavailable'. At most a few dozen rows per run.
create table run_mismatch_explanations (
  run_id uuid not null references runs (id) on delete cascade,
  target_id uuid not null references run_targets (id) on delete cascade,
  seq integer not null,
  -- The fingerprints the explanation was made for: finalize uses it only for the same pair.
  candidate_hash text not null,
  reference_hash text not null,
  differences_status text not null check (differences_status in ('shown', 'changed')),
  differences jsonb not null,
  more_differences boolean not null,
  explained_at timestamptz not null default now(),
  primary key (run_id, target_id, seq)
);
