import type { CommitmentLevel } from '../../domain/suite-config';
import type { ChainAdapter } from '../types';
import { normalizeSolanaResult, solanaComparison, solanaRpcErrorOutcome } from './answers';
import { isSolanaHeadDependent, pinSolanaParams } from './head-dependence';
import {
  COMMITMENT_TEMPLATE,
  DEFAULT_COMMITMENT,
  PINNED_SLOT_TEMPLATE,
  renderSolanaSlot,
  solanaHeadAt,
  solanaHeightAt,
  solanaPinContext,
  solanaRootSubscription,
  solanaSlotSubscription,
  WATCH_COMMITMENT,
} from './head';
import { SOLANA_CHAIN_PRESETS, SOLANA_WORKLOAD_PRESETS } from './presets';

const COMMITMENT_LEVELS: readonly CommitmentLevel[] = ['processed', 'confirmed', 'finalized'];

/**
 * The adapter at a commitment level. The registry's own entry (no level applied) renders no
 * "{{commitment}}": every run reads through one of these (runPlanOf), and keeping the template
 * out of the registry's entry keeps it from counting as a pinned-block template.
 */
function solanaAdapterAt(level: CommitmentLevel | null): ChainAdapter {
  const pinnedTemplates = { [PINNED_SLOT_TEMPLATE]: renderSolanaSlot };
  return {
    family: 'solana',
    envelope: 'json-rpc-2.0',
    head: solanaHeadAt(level ?? DEFAULT_COMMITMENT),
    heightBesideHead: solanaHeightAt(level ?? DEFAULT_COMMITMENT),
    // Pushed heads: roots for a finalized watch, processed slots otherwise (neither takes a commitment).
    headSubscription: level === 'finalized' ? solanaRootSubscription : solanaSlotSubscription,
    // Slots are 400 ms; local validators and replays tick faster.
    fastestHeadIntervalMs: 50,
    renderPinned: renderSolanaSlot,
    pinnedTemplates: level === null ? pinnedTemplates : { ...pinnedTemplates, [COMMITMENT_TEMPLATE]: () => level },
    pinContext: solanaPinContext,
    isHeadDependent: isSolanaHeadDependent,
    pinForRecheck: pinSolanaParams,
    normalize: normalizeSolanaResult,
    comparison: solanaComparison,
    // Solana's method table: camelCase names (getAccountInfo, isBlockhashValid, …).
    methodName: { pattern: /^[a-z][A-Za-z0-9]*$/, message: 'must be a Solana RPC method name (camelCase)' },
    defaultMethods: [{ method: 'getSlot', params: [{ commitment: 'finalized' }], weight: 1 }],
    presets: { chains: SOLANA_CHAIN_PRESETS, workloads: SOLANA_WORKLOAD_PRESETS },
    rpcErrorOutcome: solanaRpcErrorOutcome,
    commitments: { levels: COMMITMENT_LEVELS, default: DEFAULT_COMMITMENT, watchDefault: WATCH_COMMITMENT, at: solanaAdapterAt },
  };
}

/** Solana clusters (Agave, Firedancer and the providers' RPC) over JSON-RPC 2.0. */
export const solanaAdapter: ChainAdapter = solanaAdapterAt(null);
