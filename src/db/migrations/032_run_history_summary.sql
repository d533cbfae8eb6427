-- History that stays fast (issue 36 item 4, DESIGN §18). The suite trend, the suite page and
-- every finalize's baseline lookup read a suite's finished runs newest first. They used to sort
-- every finished run of the suite and read each verdict (often TOASTed: a correctness check lists
-- its mismatches) to pull three numbers out of it. Now finishRun stores the few values they need
-- in small columns, and one partial index walks a suite's finished runs in trend order.
--
-- Large tables: the three columns are nullable without defaults (adding them rewrites nothing).
-- Rows finished before this migration are summarised by backfillRunSummaries (src/db/runs.ts),
-- which migrate() runs after this transaction commits, in bounded batches each in its own
-- transaction; until a row is summarised the readers fall back to its verdict and snapshot, so
-- they are correct at every point of the backfill, only not yet fast.

-- The verdict's value ('pass' | 'fail' | 'error'), its candidates' p95 in µs (the latency_p95
-- check's p95_us) and the few verdict parts a trend point shows. Null: not summarised yet.
alter table runs add column verdict_value text;
alter table runs add column trend_point jsonb;
-- The run's candidate endpoints (the suite's, when per-run targets replaced them), sorted: the
-- baseline history compares runs on these.
alter table runs add column candidate_endpoints text[];

-- One definition of each summary, used by finishRun and by the backfill alike.
create function run_trend_point(verdict jsonb) returns jsonb language sql immutable as $$
  select jsonb_build_object(
    'p95_us', (select c->'details'->'p95_us' from jsonb_array_elements(verdict->'checks') c
               where c->>'name' = 'latency_p95' and jsonb_typeof(c->'details'->'p95_us') = 'number' limit 1),
    'intervals_ms', (select c->'details'->'intervals_ms' from jsonb_array_elements(verdict->'checks') c
                     where c->>'name' = 'latency_p95' limit 1),
    'match_rate_pct', (select c->'details'->'match_rate_pct' from jsonb_array_elements(verdict->'checks') c
                       where c->>'name' = 'correctness' and jsonb_typeof(c->'details'->'match_rate_pct') = 'number' limit 1),
    'baseline_model', verdict->'baseline_comparison'->'model',
    'baseline_limits', verdict->'baseline_comparison'->'limits')
$$;

create function run_candidate_endpoints(config_snapshot jsonb) returns text[] language sql immutable as $$
  select coalesce(array_agg(t->>'endpoint_id' order by t->>'endpoint_id' collate "C"), '{}')
  from jsonb_array_elements(coalesce(config_snapshot->'suite'->'suite_targets', config_snapshot->'suite'->'config'->'targets')) t
$$;

-- A suite's finished runs in trend order. The included columns let the trend's count (and its
-- branch filter) run as an index-only scan; the baseline lookup filters on status through it.
create index runs_suite_finished_history on runs (test_suite_id, requested_at desc, id desc)
  include (tenant_id, status, branch, baseline_branch) where finished_at is not null;

-- Finished runs not summarised yet: what backfillRunSummaries walks. finishRun writes finished_at
-- and trend_point together, so once the backfill is done this index stays empty.
create index runs_unsummarised on runs (id) where finished_at is not null and trend_point is null;

-- The trend's total (its pagination) without counting a suite's history at every request: finished
-- runs per suite and branch, kept by a trigger so that every writer of runs (this release's, a
-- previous release's still draining during a rolling deploy, a bulk load) keeps it. `branch` is
-- the branch the trend files the run under: its own, or when it named none the baseline branch it
-- was requested under ('main', DEFAULT_BASELINE_BRANCH in src/domain/branch.ts, for runs stored
-- before branches). Runs are never deleted, nor unfinished.
create table suite_finished_runs (
  test_suite_id uuid not null references suites (id) on delete cascade,
  branch text not null,
  runs bigint not null,
  primary key (test_suite_id, branch)
);

create function count_finished_run() returns trigger language plpgsql as $$
begin
  insert into suite_finished_runs (test_suite_id, branch, runs)
  values (new.test_suite_id, coalesce(new.branch, new.baseline_branch, 'main'), 1)
  on conflict (test_suite_id, branch) do update set runs = suite_finished_runs.runs + 1;
  return null;
end
$$;

-- Creating the triggers takes a lock that waits for transactions updating runs and holds new ones
-- off until this migration commits, so the count below misses no run and counts none twice. It is
-- one aggregate over the index above: seconds on millions of runs.
create trigger runs_count_finished_on_update after update of finished_at on runs
  for each row when (old.finished_at is null and new.finished_at is not null) execute function count_finished_run();
create trigger runs_count_finished_on_insert after insert on runs
  for each row when (new.finished_at is not null) execute function count_finished_run();

insert into suite_finished_runs (test_suite_id, branch, runs)
select test_suite_id, coalesce(branch, baseline_branch, 'main'), count(*) from runs where finished_at is not null group by 1, 2;

-- Sample retention (issue 36 item 1, DESIGN §18): a finished run's raw samples are deleted once
-- its retention has passed (the suite's override, else its tenant's, else the platform default
-- RVS_SAMPLE_RETENTION_DAYS); the run keeps its verdict, stats and summaries. samples_expired_at
-- says when they went (the samples API answers 410 samples_expired from then on).
alter table runs add column samples_expired_at timestamptz;
alter table tenants add column sample_retention_days integer check (sample_retention_days > 0);
alter table suites add column sample_retention_days integer check (sample_retention_days > 0);
-- Expiry candidates, oldest first; a run leaves the index when its samples are gone.
create index runs_samples_kept on runs (finished_at) where finished_at is not null and samples_expired_at is null;
