-- Paired open-loop probing (issue 11 item 4): how late each call was actually sent after the
-- instant the shared schedule intended for its seq (anchor + seq / rate), in microseconds
-- (negative when sent up to a timer tick early). Candidate and reference share the intended
-- instant, so the difference of their send_lag_us for one seq is the pairing skew. Null for
-- closed-loop calls and for runs probed without a shared anchor (unpaired).
-- Nullable without a default: adding it rewrites nothing, and COPY of a NULL is cheap.
alter table run_samples add column send_lag_us integer;
