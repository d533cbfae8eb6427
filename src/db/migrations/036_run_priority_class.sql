-- The run's priority class (src/domain/run-priority.ts: interactive, scheduled, campaign, sweep),
-- decided when the run is requested and returned on the Run resource, so a CI job sees why its run
-- waits behind others. The workflow is started with the stored class. Null for runs requested
-- before it was stored (their workflow derived it from the trigger and the config snapshot).
-- Nullable without a default: adding it rewrites nothing.
alter table runs add column priority_class text;
