import type { ChainAdapter, ReadLevels } from '../types';
import { normalizeSolanaResult, solanaComparison, solanaRpcErrorOutcome } from './answers';
import { isSolanaHeadDependent, pinSolanaParams } from './head-dependence';
import {
  COMMITMENT_LEVELS,
  COMMITMENT_TEMPLATE,
  type CommitmentLevel,
  DEFAULT_COMMITMENT,
  isCommitmentLevel,
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

/**
 * The suite's commitment level (config.commitment), else finalized for reads and confirmed for the
 * head watch (head.ts DEFAULT_COMMITMENT, WATCH_COMMITMENT). A name that is not a level is refused
 * when the suite is saved (ReadLevels.names), so it never reaches here.
 */
const solanaReadLevels: ReadLevels = {
  names: COMMITMENT_LEVELS,
  at(_adapter, level, use) {
    if (level !== undefined && !isCommitmentLevel(level)) throw new Error(`"${level}" is not a Solana commitment level`);
    return solanaAdapterAt(level ?? (use === 'watch' ? WATCH_COMMITMENT : DEFAULT_COMMITMENT));
  },
};

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
    readLevels: solanaReadLevels,
  };
}

/** Solana clusters (Agave, Firedancer and the providers' RPC) over JSON-RPC 2.0. */
export const solanaAdapter: ChainAdapter = solanaAdapterAt(null);
