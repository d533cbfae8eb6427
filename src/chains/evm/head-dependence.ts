import { isRecord } from '../../domain/json-shape';

/*
 * Which EVM calls follow the head, and how to ask one at a fixed block for the re-check
 * (ChainAdapter.isHeadDependent and .pinForRecheck).
 */

/** Block tags whose meaning moves with the chain head ("earliest" does not). */
const HEAD_TAGS = new Set(['latest', 'pending', 'safe', 'finalized']);

/** Methods whose answer follows the head (or the mempool) whatever their parameters. */
const HEAD_METHODS = new Set([
  'eth_blockNumber',
  'eth_gasPrice',
  'eth_maxPriorityFeePerGas',
  'eth_blobBaseFee',
  'eth_syncing',
  'eth_getFilterChanges',
  'eth_pendingTransactions',
  'net_peerCount',
  'txpool_status',
  'txpool_content',
]);

/** Position of an optional block parameter that defaults to `latest` when omitted. */
const BLOCK_PARAM_INDEX: Readonly<Record<string, number>> = {
  eth_getBalance: 1,
  eth_getTransactionCount: 1,
  eth_getCode: 1,
  eth_getStorageAt: 2,
  eth_call: 1,
  eth_estimateGas: 1,
  eth_createAccessList: 1,
  eth_getProof: 2,
};

function containsHeadTag(value: unknown): boolean {
  if (typeof value === 'string') return HEAD_TAGS.has(value.toLowerCase());
  if (Array.isArray(value)) return value.some(containsHeadTag);
  if (isRecord(value)) return Object.values(value).some(containsHeadTag);
  return false;
}

/**
 * True when the answer may legitimately differ between two endpoints asked at about the same
 * time because the head moved: a `latest`/`pending`/`safe`/`finalized` tag anywhere in the
 * params, an omitted block parameter that defaults to `latest`, an eth_getLogs filter without
 * blockHash and without both bounds, or a method that follows the head by nature.
 */
export function isHeadDependent(method: string, params: unknown): boolean {
  if (HEAD_METHODS.has(method)) return true;
  if (containsHeadTag(params)) return true;
  const list = Array.isArray(params) ? params : params === undefined || params === null ? [] : [params];
  const blockIndex = BLOCK_PARAM_INDEX[method];
  if (blockIndex !== undefined && list[blockIndex] === undefined) return true;
  if (method === 'eth_getLogs') {
    const filter = list[0];
    if (!isRecord(filter)) return true;
    if (filter.blockHash !== undefined) return false;
    return filter.fromBlock === undefined || filter.toBlock === undefined;
  }
  return false;
}

function replaceHeadTags(value: unknown, block: string): unknown {
  if (typeof value === 'string') return HEAD_TAGS.has(value.toLowerCase()) ? block : value;
  if (Array.isArray(value)) return value.map((item) => replaceHeadTags(item, block));
  if (isRecord(value)) return Object.fromEntries(Object.entries(value).map(([key, field]) => [key, replaceHeadTags(field, block)]));
  return value;
}

/**
 * The params of a head-dependent call with the head pinned to `block` (a mismatch on such a call
 * is re-sent once with a fixed block in place of the tag): every
 * `latest`/`pending`/`safe`/`finalized` tag becomes the block as a hex quantity, an omitted block
 * parameter that defaults to `latest` is filled in, and an eth_getLogs filter without blockHash
 * gets the block as each missing bound (a blockHash filter is left as it is). Null when the call
 * cannot be asked at a block: a method that follows the head by nature (eth_blockNumber,
 * eth_gasPrice, …), params that are not an array, a block parameter whose earlier parameters are
 * missing, or anything still head-dependent after pinning. Does not modify its input.
 */
export function pinHeadDependentParams(method: string, params: unknown, block: bigint | number): unknown[] | null {
  if (HEAD_METHODS.has(method)) return null;
  const list = params === undefined || params === null ? [] : Array.isArray(params) ? params : null;
  if (list === null || BigInt(block) < 0n) return null;
  const tag = `0x${BigInt(block).toString(16)}`;
  const pinned = list.map((param) => replaceHeadTags(param, tag));
  const blockIndex = BLOCK_PARAM_INDEX[method];
  if (blockIndex !== undefined && pinned[blockIndex] === undefined) {
    if (pinned.length < blockIndex) return null;
    pinned[blockIndex] = tag;
  }
  if (method === 'eth_getLogs') {
    const filter = pinned[0];
    if (!isRecord(filter)) return null;
    if (filter.blockHash === undefined) pinned[0] = { ...filter, fromBlock: filter.fromBlock ?? tag, toBlock: filter.toBlock ?? tag };
  }
  return isHeadDependent(method, pinned) ? null : pinned;
}
