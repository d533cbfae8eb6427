import type { ChainAdapter } from '../types';
import { plainComparison, plainHeightBesideHead, plainReadLevels, plainRpcErrorOutcome } from '../plain';
import { isBitcoinHeadDependent, normalizeBitcoinResult, pinBitcoinParams } from './answers';
import { bitcoinIntegrity } from './integrity';
import { BITCOIN_CHAIN_PRESETS, BITCOIN_WORKLOAD_PRESETS } from './presets';
import { bitcoinHead, bitcoinPinContext, btcdHeadSubscription, PINNED_HEIGHT_TEMPLATE, renderBitcoinHeight } from './head';

/**
 * Bitcoin Core and the nodes that speak its RPC (Litecoin, Dogecoin, btcd). Requests carry
 * `jsonrpc: "1.0"`: Core before 28 ignores the member, Core 28+ answers it in the legacy
 * envelope, and btcd, which answers a request without it with an empty body, echoes it.
 */
export const bitcoinAdapter: ChainAdapter = {
  family: 'bitcoin',
  envelope: 'json-rpc-1.0',
  head: bitcoinHead,
  heightBesideHead: plainHeightBesideHead,
  headSubscription: btcdHeadSubscription,
  // Mainnet's blocks are 10 minutes apart, but regtest mines as fast as it is asked.
  fastestHeadIntervalMs: 100,
  renderPinned: renderBitcoinHeight,
  pinnedTemplates: { [PINNED_HEIGHT_TEMPLATE]: renderBitcoinHeight },
  pinContext: bitcoinPinContext,
  isHeadDependent: isBitcoinHeadDependent,
  pinForRecheck: pinBitcoinParams,
  normalize: normalizeBitcoinResult,
  comparison: plainComparison,
  rpcErrorOutcome: plainRpcErrorOutcome,
  // Core's method table: lower-case names (getblockchaininfo, estimatesmartfee, …).
  methodName: { pattern: /^[a-z][a-z0-9_]*$/, message: 'must be a Bitcoin Core RPC method name (lower case)' },
  defaultMethods: [{ method: 'getblockcount', params: [], weight: 1 }],
  readLevels: plainReadLevels,
  integrity: bitcoinIntegrity,
  presets: { chains: BITCOIN_CHAIN_PRESETS, workloads: BITCOIN_WORKLOAD_PRESETS },
};
