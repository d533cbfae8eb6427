-- A scalar answer's value (a string, number, boolean or null result, as shown: at most 64
-- characters, URLs redacted), so a listed mismatch of scalar answers (eth_blockNumber,
-- net_version) shows both values although re-asking the nodes later gets other answers.
-- Null for an object or array answer and for a failed call. Nullable: adding it rewrites nothing.
alter table run_samples add column scalar_answer text;
