import type { ChainPreset, WorkloadPreset } from '../../domain/catalog-presets';
import { contextTemplate } from '../../domain/workload';
import { PINNED_BLOCK_HASH, PINNED_HEIGHT_TEMPLATE, PINNED_TXID } from './head';

const BLOCK_HASH = contextTemplate(PINNED_BLOCK_HASH);
const TXID = contextTemplate(PINNED_TXID);

/*
 * The Bitcoin family's built-in catalog rows: Bitcoin and the chains that speak Bitcoin Core's
 * RPC (Litecoin and Dogecoin are Core forks). They carry no chain id (there is no EIP-155
 * equivalent; a node names its chain in getblockchaininfo's `chain`).
 */

// Fixed ids (a block of their own) so that a preset keeps its id in every installation.
export const BITCOIN_CHAIN_PRESETS: readonly ChainPreset[] = [
  { id: '0c0a1a00-0000-4000-8000-0000000b0001', slug: 'bitcoin', name: 'Bitcoin', family: 'bitcoin', chain_id: null, explorer_url: 'https://mempool.space' },
  { id: '0c0a1a00-0000-4000-8000-0000000b0002', slug: 'bitcoin-testnet4', name: 'Bitcoin Testnet4', family: 'bitcoin', chain_id: null, explorer_url: 'https://mempool.space/testnet4' },
  { id: '0c0a1a00-0000-4000-8000-0000000b0003', slug: 'bitcoin-signet', name: 'Bitcoin Signet', family: 'bitcoin', chain_id: null, explorer_url: 'https://mempool.space/signet' },
  { id: '0c0a1a00-0000-4000-8000-0000000b0004', slug: 'litecoin', name: 'Litecoin', family: 'bitcoin', chain_id: null, explorer_url: 'https://litecoinspace.org' },
  { id: '0c0a1a00-0000-4000-8000-0000000b0005', slug: 'dogecoin', name: 'Dogecoin', family: 'bitcoin', chain_id: null, explorer_url: 'https://dogechain.info' },
];

export const BITCOIN_WORKLOAD_PRESETS: readonly WorkloadPreset[] = [
  {
    id: '0c0a1a00-0000-4000-8000-0000000b0101',
    slug: 'bitcoin-standard',
    name: 'Bitcoin standard read mix',
    family: 'bitcoin',
    description:
      'The chain-state reads wallets, explorers and indexers make most, on any chain that speaks Bitcoin Core\'s ' +
      'RPC (Bitcoin, Litecoin, Dogecoin). Block and transaction reads (getblockhash, getblockheader, getblock at ' +
      'verbosity 1 and 2, getrawtransaction verbose, gettxout) are pinned to one recent height, its block hash and ' +
      'a transaction in it, so that candidate and reference answers are compared exactly; tip reads (getblockchaininfo, getblockcount, getbestblockhash) ' +
      'are compared with the head-moved excuse; getmempoolinfo and estimatesmartfee describe each node\'s own ' +
      'mempool and fee estimator and are compared by shape only. getrawtransaction names the block hash, so nodes ' +
      'without -txindex answer it too. btcd has no estimatesmartfee and takes no block hash in getrawtransaction ' +
      '(rpc_errors there).',
    workload: {
      methods: [
        { method: 'getblockchaininfo', params: [], weight: 10 },
        { method: 'getblockcount', params: [], weight: 10 },
        { method: 'getbestblockhash', params: [], weight: 10 },
        { method: 'getblockhash', params: [PINNED_HEIGHT_TEMPLATE], weight: 15 },
        { method: 'getblockheader', params: [BLOCK_HASH, true], weight: 10 },
        { method: 'getblock', params: [BLOCK_HASH, 1], weight: 10 },
        { method: 'getblock', params: [BLOCK_HASH, 2], weight: 5 },
        { method: 'getrawtransaction', params: [TXID, true, BLOCK_HASH], weight: 10 },
        { method: 'gettxout', params: [TXID, 0], weight: 5 },
        { method: 'getmempoolinfo', params: [], weight: 10 },
        { method: 'estimatesmartfee', params: [6], weight: 5 },
      ],
    },
  },
];
