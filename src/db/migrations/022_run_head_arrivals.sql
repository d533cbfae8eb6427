-- A run's head watch (suite config.freshness): every head each target and the reference announced,
-- with when, in ms from the watch's start. Unique per (target, height, hash): a retried or resumed
-- watch writes the heads it sees again and keeps the first arrival, so nothing is counted twice.
create table run_head_arrivals (
  run_id uuid not null references runs (id) on delete cascade,
  target_id uuid not null references run_targets (id) on delete cascade,
  number bigint not null,
  -- Null when the head read names no hash (EVM's eth_blockNumber, when polling).
  hash text,
  arrival_ms double precision not null,
  via text not null check (via in ('subscribe', 'poll')),
  -- The observer segment (activity attempt) that saw it: arrival times of one segment share one
  -- monotonic clock; between segments the observer itself was gone.
  segment int not null
);
create unique index run_head_arrivals_once on run_head_arrivals (run_id, target_id, number, coalesce(hash, ''));
create index run_head_arrivals_page on run_head_arrivals (run_id, arrival_ms, target_id);

-- One row per observer segment and target: when the observer watched (started_ms to last_seen_ms,
-- its last write) and the endpoint's connection counts meanwhile. A gap between two segments is the
-- observer's (a worker lost), never the endpoint's.
create table run_head_watch_segments (
  run_id uuid not null references runs (id) on delete cascade,
  target_id uuid not null references run_targets (id) on delete cascade,
  segment int not null,
  watch_started_at timestamptz not null,
  started_ms double precision not null,
  last_seen_ms double precision not null,
  -- When the endpoint's watch first came up in this segment (subscribed, or its first poll answered);
  -- null: it never did. A head the reference announced before then is the observer's start-up, not
  -- a head the endpoint missed.
  live_from_ms double precision,
  reconnects int not null default 0,
  disconnects int not null default 0,
  duplicates int not null default 0,
  dropped int not null default 0,
  primary key (run_id, target_id, segment)
);
