-- Idempotency-Key reservations are leases (src/http/idempotency.ts): a reservation without a
-- response whose reserved_at is older than the lease belongs to a request that died with its API
-- process, and a retry with the same request takes it over. `reservation` is the holder's token:
-- only the request holding the current lease may store or release its response, so a request that
-- outlived its lease cannot overwrite the response of the retry that took over. created_at still
-- dates the record for its 24 hours of replay.
alter table idempotency_keys add column reserved_at timestamptz not null default now();
alter table idempotency_keys add column reservation uuid not null default gen_random_uuid();

-- The orphan-run reconciler (src/services/run-reconciler.ts) looks for runs still queued a while
-- after they were requested; few runs are queued at any time, so a partial index keeps its sweep
-- off the whole runs table.
create index runs_queued_requested on runs (requested_at) where status = 'queued';
