import { SHAPE_METHODS } from './answers';
import { isRecord } from '../../domain/json-shape';

/*
 * Which Solana calls follow the head, and how to re-ask one for the re-check
 * (ChainAdapter.isHeadDependent and .pinForRecheck). Solana has no "state at slot N" read: an
 * account read answers the node's state at its own slot (the answer's `context.slot`), and
 * `minContextSlot` only refuses to answer below a slot (-32016). So a re-check re-asks both sides
 * with `minContextSlot` = the block both had reached: neither may answer from older state, and a
 * value that still differs while both are at or past that slot is confirmed.
 */

/** Methods answering the tip itself (a slot, a height, an epoch position): re-asking cannot make two nodes at different slots agree. */
const TIP_METHODS: ReadonlySet<string> = new Set([
  'getSlot',
  'getBlockHeight',
  'getEpochInfo',
  'getTransactionCount',
  'getSlotLeader',
  'getSlotLeaders',
  'getMaxRetransmitSlot',
  'getMaxShredInsertSlot',
  'getFirstAvailableBlock',
  'minimumLedgerSlot',
  'getHighestSnapshotSlot',
  'getBlocks',
  'getBlocksWithLimit',
]);

/**
 * State reads at the node's slot (most answer an RpcResponse with `context.slot`), and the
 * position of the config object where `minContextSlot` goes.
 */
const STATE_CONFIG_INDEX: Readonly<Record<string, number>> = {
  getBalance: 1,
  getAccountInfo: 1,
  getMultipleAccounts: 1,
  getProgramAccounts: 1,
  getTokenAccountsByOwner: 2,
  getTokenAccountsByDelegate: 2,
  getTokenAccountBalance: 1,
  getTokenSupply: 1,
  getTokenLargestAccounts: 1,
  getSupply: 0,
  getLargestAccounts: 0,
  getStakeMinimumDelegation: 0,
  getInflationReward: 1,
  getSignaturesForAddress: 1,
  getFeeForMessage: 1,
  isBlockhashValid: 1,
  getLatestBlockhash: 0,
};

/** getSignatureStatuses: a status's confirmations and confirmationStatus follow the tip; it takes no minContextSlot. */
const TIP_STATE_METHODS: ReadonlySet<string> = new Set(['getSignatureStatuses']);

/**
 * True when two honest nodes asked at about the same time may answer differently because their
 * slots differ: tip reads, state reads at the node's slot (everything with a `context.slot`,
 * getProgramAccounts, getSignaturesForAddress, signature statuses), and the node's own view
 * (SHAPE_METHODS: compared by shape, but a newest blockhash still follows the head). Reads of a
 * finalized block or transaction (getBlock, getTransaction) are not: they are compared exactly.
 */
export function isSolanaHeadDependent(method: string, _params: unknown): boolean {
  return TIP_METHODS.has(method) || method in STATE_CONFIG_INDEX || TIP_STATE_METHODS.has(method) || SHAPE_METHODS.has(method);
}

/**
 * The params of a state read with `minContextSlot` = `block` in its config object (added, or an
 * existing one raised), for the re-check. Null when the call cannot be re-asked that way: tip
 * reads (a slot answer differs as long as the slots do), getSignatureStatuses (no
 * minContextSlot), params that are not an array, a config position holding something else, or
 * earlier params missing. Does not modify its input.
 */
export function pinSolanaParams(method: string, params: unknown, block: bigint | number): unknown[] | null {
  const index = Object.hasOwn(STATE_CONFIG_INDEX, method) ? STATE_CONFIG_INDEX[method] : undefined;
  if (index === undefined) return null;
  const list = params === undefined || params === null ? [] : Array.isArray(params) ? params : null;
  if (list === null || list.length < index) return null;
  const slot = BigInt(block);
  if (slot < 0n || slot > BigInt(Number.MAX_SAFE_INTEGER)) return null;
  const config: unknown = list[index];
  if (config !== undefined && config !== null && !isRecord(config)) return null;
  const pinned = [...list];
  pinned[index] = { ...(config ?? {}), minContextSlot: Number(slot) };
  return pinned;
}
