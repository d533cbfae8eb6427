-- Values a chain family reads beside the pinned block when the run is planned (Bitcoin: the
-- pinned block's hash and a txid in it), by name; every target, chunk and retry renders the same
-- "{{name}}" templates from them. Written in the same statement as pinned_block, so a retried
-- plan step finds both or neither. Null for runs planned before it existed and for runs that
-- read none. Nullable without a default: adding it rewrites nothing.
alter table runs add column pinned_context jsonb;
