-- Capacity sweeps (issue 25, DESIGN §14): the sweep step a sample was probed in (0 = the lowest
-- rate) and whether it was one of the step's warm-up calls, which no statistic counts. Both follow
-- from the seq and the run's sweep plan; they are stored so per-step statistics are a plain filter.
-- Null on samples of runs without a sweep. Nullable without defaults: adding them rewrites nothing.
alter table run_samples add column sweep_step smallint;
alter table run_samples add column warmup boolean;
