import { plainComparison, plainHeightBesideHead, plainReadLevels } from '../plain';
import type { ChainAdapter } from '../types';
import { normalizeCometResult } from './answers';
import { cometHead, cometHeadSubscription, cometPinContext, cometRpcErrorOutcome, PINNED_HEIGHT_TEMPLATE, renderCometHeight } from './head';
import { isCometHeadDependent, pinCometParams } from './head-dependence';
import { COMET_CHAIN_PRESETS, COMET_WORKLOAD_PRESETS } from './presets';

/** CometBFT nodes (Cosmos SDK chains and every app on CometBFT) over their JSON-RPC 2.0 (HTTP POST and WebSocket). */
export const cometbftAdapter: ChainAdapter = {
  family: 'cometbft',
  envelope: 'json-rpc-2.0',
  head: cometHead,
  // The head is the block height.
  heightBesideHead: plainHeightBesideHead,
  headSubscription: cometHeadSubscription,
  // Block times are seconds on live chains; local networks with a short timeout_commit go faster.
  fastestHeadIntervalMs: 50,
  renderPinned: renderCometHeight,
  pinnedTemplates: { [PINNED_HEIGHT_TEMPLATE]: renderCometHeight },
  pinContext: cometPinContext,
  isHeadDependent: isCometHeadDependent,
  pinForRecheck: pinCometParams,
  normalize: normalizeCometResult,
  rpcErrorOutcome: cometRpcErrorOutcome,
  // Answers name no context; the node's history-depth error is read by rpcErrorOutcome (docs/chains.md).
  comparison: plainComparison,
  // rpc/core/routes.go: snake_case names (status, block_results, abci_query, tx_search, …).
  methodName: { pattern: /^[a-z][a-z0-9_]*$/, message: 'must be a CometBFT RPC method name (snake_case)' },
  defaultMethods: [{ method: 'status', params: [], weight: 1 }],
  readLevels: plainReadLevels,
  presets: { chains: COMET_CHAIN_PRESETS, workloads: COMET_WORKLOAD_PRESETS },
};
