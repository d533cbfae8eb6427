-- Samples partitioned by the week their run was requested (issue 36 item 2, DESIGN §18), so
-- expiry drops a week's table instead of deleting its rows one batch at a time. By the run, not
-- by each sample's time: all of a run's samples share one partition, whose primary key
-- (run_id, target_id, seq, region) keeps exactly the uniqueness a retried chunk relies on. The
-- key is per partition, not on the parent: a parent key would have to include run_week, and the
-- existing table's key (without it) could not serve it, so attaching it would build a new index
-- over every row under a lock.
--
-- Online: this transaction only changes the catalog (no scan, no rewrite). The existing table
-- becomes the parent's DEFAULT partition, which with no sibling has no partition constraint to
-- check. Its check constraint is added NOT VALID here and validated later, outside any
-- transaction and while writes go on (SHARE UPDATE EXCLUSIVE), by the sample-expiry
-- maintenance (src/db/sample-partitions.ts); once valid, that maintenance re-attaches it as the
-- range partition of '1970-01-01' (no scan: the valid constraint proves the bound) and creates
-- the weekly partitions. A default partition is left behind because DETACH … CONCURRENTLY is not
-- allowed while one exists, and every new partition would lock and scan it.
alter table run_samples rename to run_samples_legacy;
alter index run_samples_pkey rename to run_samples_legacy_pkey;
-- A constant default is stored in the catalog (PostgreSQL 11+): no rewrite.
alter table run_samples_legacy add column run_week date not null default '1970-01-01';
alter table run_samples_legacy add constraint run_samples_legacy_week check (run_week = '1970-01-01') not valid;

-- Rows written without run_week (older code paths, tests, benches) go to the legacy partition.
create table run_samples (like run_samples_legacy including defaults) partition by range (run_week);
alter table run_samples attach partition run_samples_legacy default;

-- The Monday (UTC) of the week the run was requested, when that week's partition exists; else
-- null, and its samples go to the legacy partition. Added without a default (no rewrite of runs),
-- then given one that new rows get.
alter table runs add column samples_week date;
create function rvs_samples_week_now() returns date language sql stable as $$
  select week from (select date_trunc('week', now() at time zone 'utc')::date as week) w
  where to_regclass('run_samples_w' || to_char(week, 'YYYYMMDD')) is not null
$$;
alter table runs alter column samples_week set default rvs_samples_week_now();

-- A fresh (or empty) database finishes at once: nothing to validate.
do $$
begin
  if not exists (select 1 from run_samples_legacy) then
    alter table run_samples_legacy validate constraint run_samples_legacy_week;
    alter table run_samples detach partition run_samples_legacy;
    alter table run_samples attach partition run_samples_legacy for values from ('1970-01-01') to ('1970-01-02');
  end if;
end $$;
