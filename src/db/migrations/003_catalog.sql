-- Catalog: read-mostly reference data. tenant_id null = built-in (seeded here, read-only through
-- the API); otherwise the entry belongs to that tenant. Chains and suites created from a preset
-- copy its values, so nothing references these rows and deleting one never breaks anything.

create table catalog_chain_presets (
  id uuid primary key,
  tenant_id uuid references tenants (id) on delete cascade,
  slug text not null,
  name text not null,
  family text not null,
  chain_id bigint,
  explorer_url text,
  created_at timestamptz not null default now()
);
-- A slug names one preset per tenant, and one among the built-ins.
create unique index catalog_chain_presets_slug
  on catalog_chain_presets (coalesce(tenant_id, '00000000-0000-0000-0000-000000000000'), slug);
create index catalog_chain_presets_tenant_created on catalog_chain_presets (tenant_id, created_at desc, id desc);

create table catalog_workload_presets (
  id uuid primary key,
  tenant_id uuid references tenants (id) on delete cascade,
  slug text not null,
  name text not null,
  family text not null,
  description text not null default '',
  -- A workload as a suite gives it (defaults not applied), so a suite's overrides merge cleanly.
  workload jsonb not null,
  created_at timestamptz not null default now()
);
create unique index catalog_workload_presets_slug
  on catalog_workload_presets (coalesce(tenant_id, '00000000-0000-0000-0000-000000000000'), slug);
create index catalog_workload_presets_tenant_created on catalog_workload_presets (tenant_id, created_at desc, id desc);

-- Built-in presets. These values must agree with src/domain/catalog-presets.ts (the service's
-- and the tests' copy); the integration tests compare the seeded rows with it.
insert into catalog_chain_presets (id, tenant_id, slug, name, family, chain_id, explorer_url) values
  ('0c0a1a00-0000-4000-8000-000000000001', null, 'ethereum',     'Ethereum Mainnet', 'evm', 1,        'https://etherscan.io'),
  ('0c0a1a00-0000-4000-8000-000000000002', null, 'sepolia',      'Sepolia',          'evm', 11155111, 'https://sepolia.etherscan.io'),
  ('0c0a1a00-0000-4000-8000-000000000003', null, 'polygon',      'Polygon PoS',      'evm', 137,      'https://polygonscan.com'),
  ('0c0a1a00-0000-4000-8000-000000000004', null, 'arbitrum-one', 'Arbitrum One',     'evm', 42161,    'https://arbiscan.io'),
  ('0c0a1a00-0000-4000-8000-000000000005', null, 'op-mainnet',   'OP Mainnet',       'evm', 10,       'https://optimistic.etherscan.io'),
  ('0c0a1a00-0000-4000-8000-000000000006', null, 'base',         'Base',             'evm', 8453,     'https://basescan.org'),
  ('0c0a1a00-0000-4000-8000-000000000007', null, 'bsc',          'BNB Smart Chain',  'evm', 56,       'https://bscscan.com');

-- evm-standard: eth_call reads Multicall3 (0xcA11…CA11, the same address on every chain above)
-- getEthBalance(0x0); eth_getTransactionReceipt asks for the zero hash, which is null everywhere.
insert into catalog_workload_presets (id, tenant_id, slug, name, family, description, workload) values
  ('0c0a1a00-0000-4000-8000-000000000101', null, 'evm-standard', 'EVM standard read mix', 'evm',
   'A read-only mix of the calls wallets, indexers and dapps make most, pinned to one recent block so that '
   'candidate and reference answers are comparable. Works on any EVM chain. eth_call reads Multicall3 '
   'getEthBalance(0x0) (deployed on every built-in chain; "0x" where it is absent). '
   'eth_getTransactionReceipt asks for the zero hash: it measures the receipt lookup path, which '
   'answers null on every chain; make your own preset with a real transaction hash to measure hits.',
   '{"methods": [
      {"method": "eth_blockNumber", "params": [], "weight": 20},
      {"method": "eth_chainId", "params": [], "weight": 5},
      {"method": "eth_getBlockByNumber", "params": ["{{pinned_block}}", false], "weight": 20},
      {"method": "eth_getBalance", "params": ["0x0000000000000000000000000000000000000000", "{{pinned_block}}"], "weight": 15},
      {"method": "eth_call", "params": [{"to": "0xcA11bde05977b3631167028862bE2a173976CA11", "data": "0x4d2301cc0000000000000000000000000000000000000000000000000000000000000000"}, "{{pinned_block}}"], "weight": 20},
      {"method": "eth_getLogs", "params": [{"fromBlock": "{{pinned_block}}", "toBlock": "{{pinned_block}}", "topics": ["0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef"]}], "weight": 10},
      {"method": "eth_getTransactionReceipt", "params": ["0x0000000000000000000000000000000000000000000000000000000000000000"], "weight": 10}
   ]}');
