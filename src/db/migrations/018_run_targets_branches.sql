-- Per-run targets: a trigger may probe endpoints given only for that run (a pull request's
-- preview deployment). Such an endpoint is a row like any other — encrypted URL and headers, the
-- redacted URL — so the worker reads it by id and no secret ever enters a workflow payload; it is
-- owned by its run (kept while the run is, removed with it) and is no tenant endpoint: the
-- endpoints API neither lists nor serves it, and no suite or other run may name it.
alter table endpoints add column owner_run_id uuid references runs (id) on delete cascade;
create index endpoints_owner_run on endpoints (owner_run_id) where owner_run_id is not null;
-- The tenant's endpoint list pages only endpoints of its own.
create index endpoints_tenant_listed on endpoints (tenant_id, created_at desc, id desc) where owner_run_id is null;
drop index endpoints_tenant_created;

-- Branch-aware baselines: the branch and commit a CI trigger names, and the suite's baseline
-- branch when the run was requested. Runs stored before have neither and count as the baseline
-- branch (as they did: they formed the only baseline there was).
alter table runs add column branch text, add column commit_sha text, add column baseline_branch text;
