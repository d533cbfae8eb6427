import type { ChainPreset, WorkloadPreset } from '../../domain/catalog-presets';
import { PINNED_HEIGHT_TEMPLATE } from './head';

/*
 * The CometBFT family's built-in catalog rows. Chain ids are the chains' own strings (genesis
 * `chain_id`, what `status` answers as node_info.network).
 */

// Fixed ids (a block of their own) so that a preset keeps its id in every installation.
export const COMET_CHAIN_PRESETS: readonly ChainPreset[] = [
  { id: '0c0a1a00-0000-4000-8000-0000000d0001', slug: 'cosmos-hub', name: 'Cosmos Hub', family: 'cometbft', chain_id: 'cosmoshub-4', explorer_url: 'https://www.mintscan.io/cosmos' },
];

/** The kvstore app's key `name`, hex as abci_query's `data` takes it. */
const KVSTORE_KEY = '6e616d65';

export const COMET_WORKLOAD_PRESETS: readonly WorkloadPreset[] = [
  {
    id: '0c0a1a00-0000-4000-8000-0000000d0101',
    slug: 'cometbft-standard',
    name: 'CometBFT standard read mix',
    family: 'cometbft',
    description:
      'The reads light clients, explorers and relayers make of a CometBFT node. Block reads (block, header, ' +
      'block_results, commit, validators) are pinned to one recent height and compared exactly (commit without ' +
      'its signatures, which the next block carries); status, abci_info, abci_query (the kvstore app\'s key ' +
      '"name" at the latest height) and tx_search (every indexed transaction) follow the head and are compared ' +
      'with the head-moved excuse. abci_query reads a key of the kvstore test app: point it at your app\'s ' +
      'store path and key in your own copy.',
    workload: {
      methods: [
        { method: 'status', params: [], weight: 10 },
        { method: 'block', params: [PINNED_HEIGHT_TEMPLATE], weight: 15 },
        { method: 'header', params: [PINNED_HEIGHT_TEMPLATE], weight: 10 },
        { method: 'block_results', params: [PINNED_HEIGHT_TEMPLATE], weight: 10 },
        { method: 'commit', params: [PINNED_HEIGHT_TEMPLATE], weight: 10 },
        { method: 'validators', params: [PINNED_HEIGHT_TEMPLATE, null, null], weight: 10 },
        { method: 'abci_info', params: [], weight: 10 },
        { method: 'abci_query', params: ['', KVSTORE_KEY, '0', false], weight: 10 },
        { method: 'tx_search', params: ['tx.height>0', false, null, null, 'asc'], weight: 5 },
      ],
    },
  },
];
