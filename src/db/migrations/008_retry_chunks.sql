-- A failed attempt is identified by its chunk too: Temporal numbers attempts per activity
-- execution, and every probe chunk is one, so attempt 1 of the second chunk is not attempt 1 of
-- the first. chunk_seq is the first seq of the chunk (null for activities that are no chunk).
-- The old key (run, activity, target, attempt) dropped every lost attempt after a target's first.
alter table run_retries add column chunk_seq integer;
drop index run_retries_attempt;
create unique index run_retries_attempt on run_retries
  (run_id, activity, coalesce(target_id, '00000000-0000-0000-0000-000000000000'), coalesce(chunk_seq, -1), attempt);
