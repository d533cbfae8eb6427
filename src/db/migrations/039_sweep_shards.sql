-- Issue 31 item 4 (DESIGN §17). A sweep step split into shards (seq ≡ shard mod shards): one row
-- per shard activity attempt, written when it starts and updated when it ends, naming the worker
-- process that ran it, so where a step's load came from (and which attempt a lost worker left
-- unfinished) is on record. The step's send lag is judged per shard from the samples.
create table run_sweep_shards (
  run_id uuid not null references runs (id) on delete cascade,
  target_id uuid not null,
  step integer not null,
  shard integer not null,
  shards integer not null check (shards > 0 and shard >= 0 and shard < shards),
  -- The first seq this attempt was asked to send (its chunk), and the attempt number.
  from_seq bigint not null,
  attempt integer not null,
  -- Where the attempt began sending: from_seq, or past it when a retry found the seqs a lost
  -- attempt had committed (its last heartbeat).
  resumed_seq bigint not null,
  worker text not null,
  worker_pid integer not null,
  -- Where the attempt ended: the next seq to send, null while running (or lost with its worker).
  next_seq bigint,
  send_lag_p99_us bigint,
  started_at timestamptz not null default now(),
  finished_at timestamptz,
  primary key (run_id, target_id, step, shard, from_seq, attempt)
);
