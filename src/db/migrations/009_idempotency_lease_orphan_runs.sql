-- Idempotency-Key reservations are leases (src/http/idempotency.ts): a reservation without a
-- response whose reserved_at is older than the lease belongs to a request that died with its API
-- process, and a retry with the same request takes it over. `reservation` is the holder's token:
-- only the request holding the current lease may store or release its response, so a request that
-- outlived its lease cannot overwrite the response of the retry that took over. created_at still
-- dates the record for its 24 hours of replay.
alter table idempotency_keys add column reserved_at timestamptz not null default now();
alter table idempotency_keys add column reservation uuid not null default gen_random_uuid();
-- What the request created, committed in the same transaction as the resource (a run trigger
-- sets it): a retry that takes the key over continues with that resource instead of creating a
-- second one.
alter table idempotency_keys add column resource_id uuid;

-- A run trigger commits the run row, then starts its workflow; an API process killed between the
-- two leaves a queued run that nothing would ever move on. workflow_started_at records that the
-- workflow exists (set after a successful start, or when the orphan-run reconciler in
-- src/services/run-reconciler.ts finds it); the reconciler looks only at queued runs without it,
-- through this small partial index, and starts or fails them.
alter table runs add column workflow_started_at timestamptz;
-- Left null on older runs: only queued ones are looked at, and the reconciler marks those whose
-- workflow it finds.
create index runs_workflow_unstarted on runs (requested_at) where status = 'queued' and workflow_started_at is null;
