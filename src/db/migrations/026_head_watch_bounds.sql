-- Bounds on what a head watch stores (issue 30): per observer segment and target, the distinct
-- heads not stored because the endpoint announced more than its family's block rate allows over
-- the watch (it is flooding), and the heads announced with a number outside bigint (a finding on
-- that endpoint, never a failed write of every target's heads). Defaults rewrite nothing.
alter table run_head_watch_segments add column not_stored int not null default 0;
alter table run_head_watch_segments add column out_of_range int not null default 0;
