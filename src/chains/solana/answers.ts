import { canonicalJson } from '../../domain/canonical-json';
import { removeIgnoredPaths, type NormalizeOptions } from '../../domain/correctness';
import { isRecord, shapeOf } from '../../domain/json-shape';
import type { AnswerComparison, RpcErrorAnswer, RpcErrorOutcome } from '../types';

/*
 * Solana answers compared by meaning. Values need no re-encoding (numbers are JSON numbers,
 * pubkeys, hashes and signatures base-58 strings of one spelling). What honest nodes disagree on:
 *  - `context` (`{ slot, apiVersion }`) of every RpcResponse: the slot each node answered at and
 *    its software version. The value is what has to agree; whether a value difference is explained
 *    by the slots is the head-dependence rule's business (head-dependence.ts);
 *  - the order of getProgramAccounts and getTokenAccountsBy* lists, which is undefined: sorted by
 *    pubkey;
 *  - the node's own view (its newest blockhash, software, health, performance samples, fee
 *    estimates, peers): compared by shape only (SHAPE_METHODS);
 *  - counters from the node's own tip (IGNORE_PATHS).
 * Every entry is documented per method in docs/chains.md.
 */

/** Methods whose answer is the node's own view: only the shape (member names and JSON types) is compared. */
export const SHAPE_METHODS: ReadonlySet<string> = new Set([
  'getLatestBlockhash',
  'getVersion',
  'getHealth',
  'getRecentPerformanceSamples',
  'getRecentPrioritizationFees',
  'getClusterNodes',
  'getIdentity',
]);

/** Methods answering a list of `{ pubkey, account }` in no defined order. */
const KEYED_LIST_METHODS: ReadonlySet<string> = new Set(['getProgramAccounts', 'getTokenAccountsByOwner', 'getTokenAccountsByDelegate']);

/**
 * Errors of a node whose ledger does not reach back to what was asked (agave
 * rpc-client-api/src/custom_error.rs): -32001 "Block {slot} cleaned up, does not exist on node.
 * First available block: {first}", -32007 "Slot {slot} was skipped, or missing due to ledger jump
 * to recent snapshot", -32009 "Slot {slot} was skipped, or missing in long-term storage", -32011
 * "Transaction history is not available from this node". When the other node answers a value for
 * the same call, the slot was not skipped: this node's history is shorter. Not -32004 "Block not
 * available for slot" (a block not confirmed yet: too new, not too old) nor -32019 (long-term
 * storage unreachable: a failure).
 */
export const SOLANA_HISTORY_ERROR_CODES: readonly number[] = [-32001, -32007, -32009, -32011];

/** "Minimum context slot has not been reached": the node's slot is below the call's minContextSlot (agave -32016). */
export const SOLANA_BEHIND_ERROR_CODE = -32016;

/**
 * The adapter's rpcErrorOutcome: -32016 is the node behind (a freshness matter), the history codes
 * data beyond its ledger (history depth), any other code a failed call.
 */
export const solanaRpcErrorOutcome = ({ code }: RpcErrorAnswer): RpcErrorOutcome =>
  code === SOLANA_BEHIND_ERROR_CODE ? 'behind' : code !== null && SOLANA_HISTORY_ERROR_CODES.includes(code) ? 'history_depth' : 'rpc_error';

/** Lists a node with less history answers shorter: signatures newest first, down to the node's first available block. */
export const HISTORY_LIST_METHODS: readonly string[] = ['getSignaturesForAddress'];

/**
 * True when one of two answers of a history list, normalised, is a strict prefix of the other:
 * the shorter node's history ends sooner, and the two agree on everything both hold. A difference
 * in the common part, two lists of one length, or anything but two lists: false (compared as
 * usual). Called on answers the caller has bounded (fingerprinted) first.
 */
export function isShorterSolanaHistory(method: string, candidate: unknown, reference: unknown): boolean {
  if (!HISTORY_LIST_METHODS.includes(method)) return false;
  const [a, b] = [normalizeSolanaResult(method, candidate, {}), normalizeSolanaResult(method, reference, {})];
  if (!Array.isArray(a) || !Array.isArray(b) || a.length === b.length) return false;
  const [shorter, longer] = a.length < b.length ? [a, b] : [b, a];
  return shorter.every((entry, i) => canonicalJson(entry) === canonicalJson(longer[i]));
}

/** Paths removed from a method's result (after `context` is), on top of the caller's. */
export const SOLANA_IGNORE_PATHS: Readonly<Record<string, readonly string[]>> = {
  // Blocks since the transaction's slot, counted from each node's own tip (null once rooted).
  getSignatureStatuses: ['value.*.confirmations'],
};

/**
 * The slot an RpcResponse (`{ context: { slot }, value }`) was answered at; null for answers
 * without a context (getSlot, getBlock, getTransaction, a getProgramAccounts list, …).
 */
export function solanaContextSlot(result: unknown): number | null {
  if (!isRecord(result) || !isRecord(result.context) || !('value' in result)) return null;
  const slot = result.context.slot;
  return typeof slot === 'number' && Number.isSafeInteger(slot) && slot >= 0 ? slot : null;
}

/** An RpcResponse (`{ context, value }`) without its context; anything else as it is. */
function withoutContext(result: unknown): unknown {
  if (!isRecord(result) || !isRecord(result.context) || !('value' in result)) return result;
  return Object.fromEntries(Object.entries(result).filter(([key]) => key !== 'context'));
}

const pubkeyOf = (entry: unknown): string => (isRecord(entry) && typeof entry.pubkey === 'string' ? entry.pubkey : '');

function sortByPubkey(list: unknown[]): unknown[] {
  return [...list].sort((a, b) => {
    const [x, y] = [pubkeyOf(a), pubkeyOf(b)];
    return x < y ? -1 : x > y ? 1 : 0;
  });
}

/** The Solana normalisation of a result known to be at most MAX_RESULT_DEPTH deep (the adapter's `normalize`). */
export function normalizeSolanaResult(method: string, result: unknown, options: NormalizeOptions): unknown {
  let value = withoutContext(result);
  if (KEYED_LIST_METHODS.has(method)) {
    if (Array.isArray(value)) value = sortByPubkey(value);
    else if (isRecord(value) && Array.isArray(value.value)) value = { ...value, value: sortByPubkey(value.value) };
  }
  value = removeIgnoredPaths(value, [...(SOLANA_IGNORE_PATHS[method] ?? []), ...(options.ignorePaths ?? [])]);
  return SHAPE_METHODS.has(method) ? shapeOf(value) : value;
}

/**
 * The adapter's comparison: answers compared only at one context slot, ledger-depth errors and
 * shorter signature lists not comparable (history depth). Every method may answer an RpcResponse
 * with a context.
 */
export const solanaComparison: AnswerComparison = {
  answerContext: solanaContextSlot,
  mayNameContext: () => true,
  isHistoryList: (method) => HISTORY_LIST_METHODS.includes(method),
  isShorterHistory: isShorterSolanaHistory,
};
