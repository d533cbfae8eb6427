import { EVM_CHAIN_PRESETS, EVM_WORKLOAD_PRESETS } from './presets';
import type { ChainAdapter } from '../types';
import { plainComparison, plainHeightBesideHead, plainPinContext, plainReadLevels, plainRpcErrorOutcome } from '../plain';
import { normalizeEvmResult } from './answers';
import { evmIntegrity } from './integrity';
import { evmHead, evmHeadSubscription, renderEvmBlock } from './head';
import { isHeadDependent, pinHeadDependentParams } from './head-dependence';
import { evmProfile } from './profile';

/** Ethereum and every chain that speaks its JSON-RPC (execution-apis) over JSON-RPC 2.0. */
export const evmAdapter: ChainAdapter = {
  family: 'evm',
  envelope: 'json-rpc-2.0',
  head: evmHead,
  heightBesideHead: plainHeightBesideHead,
  headSubscription: evmHeadSubscription,
  // Fast L2s announce every 100–250 ms; anvil and geth --dev mine on demand.
  fastestHeadIntervalMs: 50,
  renderPinned: renderEvmBlock,
  pinnedTemplates: {},
  pinContext: plainPinContext,
  isHeadDependent,
  pinForRecheck: pinHeadDependentParams,
  normalize: normalizeEvmResult,
  comparison: plainComparison,
  rpcErrorOutcome: plainRpcErrorOutcome,
  // eth_*, net_*, web3_*, debug_*, txpool_*, L2 namespaces (optimism_*, zks_*, …): names only.
  methodName: { pattern: /^[A-Za-z0-9_]+$/, message: 'must be a JSON-RPC method name' },
  defaultMethods: [{ method: 'eth_blockNumber', params: [], weight: 1 }],
  readLevels: plainReadLevels,
  integrity: evmIntegrity,
  profile: evmProfile,
  presets: {
    chains: EVM_CHAIN_PRESETS,
    workloads: EVM_WORKLOAD_PRESETS,
  },
};
