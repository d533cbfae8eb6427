-- The block that templated parameters are pinned to, read from the reference (or first candidate) head.
alter table runs add column pinned_block bigint;
-- Duration-bound campaigns without a rate do not know their call count in advance.
alter table run_targets alter column calls_planned drop not null;
