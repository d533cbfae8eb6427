-- A scheduled run remembers the fire that started it (the fire workflow's id, unique per fire
-- time): a fire activity retried after its worker died finds the run its first attempt started
-- instead of starting a second one. Unique per suite, so two runs can never share a fire.
alter table runs add column schedule_fire_id text;
create unique index runs_schedule_fire on runs (test_suite_id, schedule_fire_id) where schedule_fire_id is not null;
