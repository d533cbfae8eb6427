-- Solana answers carry `context.slot`, the slot the node answered at. Two answers are compared
-- only when both slots are equal; a pair at different slots is re-asked until both answer at one
-- slot (bounded) and, failing that, counted not_comparable (DESIGN.md §11). Null: the answer
-- carries no context slot (every other family, and Solana methods without a context).
alter table run_samples add column context_slot bigint;

-- A re-check of a pair at different context slots that never got both sides to answer at one
-- slot: neither match nor mismatch.
alter table run_rechecks drop constraint run_rechecks_outcome_check;
alter table run_rechecks add constraint run_rechecks_outcome_check check (outcome in ('resolved', 'confirmed', 'failed', 'not_comparable'));

-- Beside a head that is not a block height (Solana's slot: skipped slots have no block), the
-- block height read right after it at the same commitment; null for families whose head is one.
alter table run_heads add column height bigint;
