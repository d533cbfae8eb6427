import type { ChainPreset, WorkloadPreset } from '../../domain/catalog-presets';
import { PINNED_BLOCK_TEMPLATE } from '../../domain/workload';

/*
 * EVM's rows of the built-in catalog: the migrate step writes them (db/catalog.ts
 * syncBuiltinPresets, from the registry). Migration 003_catalog.sql seeded the same rows before the
 * registry did, so databases created then already hold them: test/unit/catalog-presets.test.ts
 * checks the two still agree, test/integration/resources.test.ts compares the served rows with
 * these constants field by field.
 */

// Fixed ids so that a preset keeps its id in every installation (the sync matches rows by id).
export const EVM_CHAIN_PRESETS: readonly ChainPreset[] = [
  { id: '0c0a1a00-0000-4000-8000-000000000001', slug: 'ethereum', name: 'Ethereum Mainnet', family: 'evm', chain_id: 1, explorer_url: 'https://etherscan.io' },
  { id: '0c0a1a00-0000-4000-8000-000000000002', slug: 'sepolia', name: 'Sepolia', family: 'evm', chain_id: 11155111, explorer_url: 'https://sepolia.etherscan.io' },
  { id: '0c0a1a00-0000-4000-8000-000000000003', slug: 'polygon', name: 'Polygon PoS', family: 'evm', chain_id: 137, explorer_url: 'https://polygonscan.com' },
  { id: '0c0a1a00-0000-4000-8000-000000000004', slug: 'arbitrum-one', name: 'Arbitrum One', family: 'evm', chain_id: 42161, explorer_url: 'https://arbiscan.io' },
  { id: '0c0a1a00-0000-4000-8000-000000000005', slug: 'op-mainnet', name: 'OP Mainnet', family: 'evm', chain_id: 10, explorer_url: 'https://optimistic.etherscan.io' },
  { id: '0c0a1a00-0000-4000-8000-000000000006', slug: 'base', name: 'Base', family: 'evm', chain_id: 8453, explorer_url: 'https://basescan.org' },
  { id: '0c0a1a00-0000-4000-8000-000000000007', slug: 'bsc', name: 'BNB Smart Chain', family: 'evm', chain_id: 56, explorer_url: 'https://bscscan.com' },
];

const ZERO_ADDRESS = '0x0000000000000000000000000000000000000000';
const ZERO_HASH = `0x${'00'.repeat(32)}`;
/**
 * Multicall3 sits at this address on every chain above (and hundreds more), so one eth_call
 * works everywhere: getEthBalance(address) (selector 0x4d2301cc) of the zero address runs real
 * EVM code that reads state at the pinned block. On a chain without Multicall3 (a local dev
 * node) the call still succeeds and returns "0x".
 */
const MULTICALL3 = '0xcA11bde05977b3631167028862bE2a173976CA11';
const GET_ETH_BALANCE_OF_ZERO = `0x4d2301cc${'00'.repeat(32)}`;
/** keccak256("Transfer(address,address,uint256)"): ERC-20/721 transfers exist on every EVM chain. */
const TRANSFER_TOPIC = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';

export const EVM_WORKLOAD_PRESETS: readonly WorkloadPreset[] = [
  {
    id: '0c0a1a00-0000-4000-8000-000000000101',
    slug: 'evm-standard',
    name: 'EVM standard read mix',
    family: 'evm',
    description:
      'A read-only mix of the calls wallets, indexers and dapps make most, pinned to one recent block so that ' +
      'candidate and reference answers are comparable. Works on any EVM chain. eth_call reads Multicall3 ' +
      'getEthBalance(0x0) (deployed on every built-in chain; "0x" where it is absent). ' +
      'eth_getTransactionReceipt asks for the zero hash: it measures the receipt lookup path, which ' +
      'answers null on every chain; make your own preset with a real transaction hash to measure hits.',
    workload: {
      methods: [
        { method: 'eth_blockNumber', params: [], weight: 20 },
        { method: 'eth_chainId', params: [], weight: 5 },
        { method: 'eth_getBlockByNumber', params: [PINNED_BLOCK_TEMPLATE, false], weight: 20 },
        { method: 'eth_getBalance', params: [ZERO_ADDRESS, PINNED_BLOCK_TEMPLATE], weight: 15 },
        { method: 'eth_call', params: [{ to: MULTICALL3, data: GET_ETH_BALANCE_OF_ZERO }, PINNED_BLOCK_TEMPLATE], weight: 20 },
        {
          method: 'eth_getLogs',
          params: [{ fromBlock: PINNED_BLOCK_TEMPLATE, toBlock: PINNED_BLOCK_TEMPLATE, topics: [TRANSFER_TOPIC] }],
          weight: 10,
        },
        { method: 'eth_getTransactionReceipt', params: [ZERO_HASH], weight: 10 },
      ],
    },
  },
];
