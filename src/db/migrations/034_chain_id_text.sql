-- A chain's id as its family names it: EVM chains a number (EIP-155), CometBFT chains a string
-- (cosmoshub-4). Every stored number becomes its decimal text, which the API still shows as a
-- number (src/domain/chain-id.ts). Rewrites the two small tables of chains and chain presets.
alter table chains alter column chain_id type text using chain_id::text;
alter table catalog_chain_presets alter column chain_id type text using chain_id::text;
