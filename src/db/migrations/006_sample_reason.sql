-- Why a sample is invalid_response (e.g. 'result nested deeper than 64 levels'): a short fixed
-- text chosen by the probe, never bytes of the endpoint's answer. Null for every other outcome.
-- Nullable without a default, so adding it rewrites nothing and COPY of the usual NULL is cheap.
alter table run_samples add column reason text;
