import type { ChainAdapter } from '../types';
import { normalizeSolanaResult } from './answers';
import { isSolanaHeadDependent, pinSolanaParams } from './head-dependence';
import { PINNED_SLOT_TEMPLATE, renderSolanaSlot, solanaHead, solanaPinContext } from './head';
import { SOLANA_CHAIN_PRESETS, SOLANA_WORKLOAD_PRESETS } from './presets';

/** Solana clusters (Agave, Firedancer and the providers' RPC) over JSON-RPC 2.0. */
export const solanaAdapter: ChainAdapter = {
  family: 'solana',
  envelope: 'json-rpc-2.0',
  head: solanaHead,
  renderPinned: renderSolanaSlot,
  pinnedTemplates: { [PINNED_SLOT_TEMPLATE]: renderSolanaSlot },
  pinContext: solanaPinContext,
  isHeadDependent: isSolanaHeadDependent,
  pinForRecheck: pinSolanaParams,
  normalize: normalizeSolanaResult,
  // Solana's method table: camelCase names (getAccountInfo, isBlockhashValid, …).
  methodName: { pattern: /^[a-z][A-Za-z0-9]*$/, message: 'must be a Solana RPC method name (camelCase)' },
  defaultMethods: [{ method: 'getSlot', params: [{ commitment: 'finalized' }], weight: 1 }],
  presets: { chains: SOLANA_CHAIN_PRESETS, workloads: SOLANA_WORKLOAD_PRESETS },
};
