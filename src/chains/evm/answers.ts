import { fingerprintWith, normalizeWith, removeIgnoredPaths, type NormalizeOptions } from '../../domain/correctness';
import { isRecord } from '../../domain/json-shape';

/*
 * EVM answers compared by meaning (DESIGN.md §6, §7). Two answers are "the same" when their
 * fingerprints are equal, and the fingerprint is a hash of the canonical JSON (key order
 * ignored) of the normalised result:
 *  - hex QUANTITIES are compared by value: "0x0001", "0x1" and "0X1"-ish case variants of a
 *    quantity all become "0x1". A value is a quantity when the method returns a quantity
 *    (QUANTITY_METHODS) or it sits under a key the Ethereum JSON-RPC spec types as a quantity
 *    (QUANTITY_KEYS). A block object's `nonce` is 8-byte DATA, not a quantity.
 *  - every other hex string is DATA (hashes, addresses, topics, input, logsBloom, …): leading
 *    zeros matter, only the case is folded (EIP-55 checksummed addresses equal lower-case ones).
 *  - log arrays (the result of eth_getLogs-like methods, any `logs` array) are ordered by
 *    (blockNumber, logIndex) by value; logs without them keep their relative order, at the end.
 *  - fields addressed by ignore paths (DEFAULT_IGNORE_PATHS for the method, plus the caller's)
 *    are removed before hashing.
 * Non-hex strings, numbers, booleans and null are left as they are (net_version's decimal
 * string stays a decimal string).
 */

/** Methods whose whole result is a QUANTITY. */
const QUANTITY_METHODS = new Set([
  'eth_blockNumber',
  'eth_chainId',
  'eth_gasPrice',
  'eth_maxPriorityFeePerGas',
  'eth_blobBaseFee',
  'eth_getBalance',
  'eth_getTransactionCount',
  'eth_estimateGas',
  'eth_getBlockTransactionCountByNumber',
  'eth_getBlockTransactionCountByHash',
  'eth_getUncleCountByBlockNumber',
  'eth_getUncleCountByBlockHash',
  'net_peerCount',
]);

/**
 * Object keys the spec types as QUANTITY (uint) wherever they appear: blocks, transactions,
 * receipts, logs, withdrawals, fee history, proofs, sync status, L2 receipt extras. A quantity
 * key holding an array (fee history's baseFeePerGas, reward) has every hex string in it
 * normalised by value.
 */
const QUANTITY_KEYS = new Set([
  // block
  'number', 'difficulty', 'totalDifficulty', 'size', 'gasLimit', 'gasUsed', 'timestamp',
  'baseFeePerGas', 'blobGasUsed', 'excessBlobGas',
  // transaction
  'nonce', 'value', 'gas', 'gasPrice', 'maxFeePerGas', 'maxPriorityFeePerGas', 'maxFeePerBlobGas',
  'chainId', 'type', 'v', 'r', 's', 'yParity', 'transactionIndex', 'blockNumber',
  // receipt and log
  'cumulativeGasUsed', 'effectiveGasPrice', 'blobGasPrice', 'status', 'logIndex',
  'l1Fee', 'l1GasPrice', 'l1GasUsed', 'depositNonce', 'depositReceiptVersion',
  // withdrawal
  'index', 'validatorIndex', 'amount',
  // eth_feeHistory, eth_getProof, eth_syncing
  'oldestBlock', 'reward', 'baseFeePerBlobGas', 'balance',
  'startingBlock', 'currentBlock', 'highestBlock',
]);

/** Methods whose result is an array of logs. */
const LOG_METHODS = new Set(['eth_getLogs', 'eth_getFilterLogs', 'eth_getFilterChanges']);

/**
 * Paths removed from a method's result before comparison, on top of the caller's. Dot paths
 * relative to the result; `*` stands for every element of an array (or every key of an object).
 * Keep this small: every entry hides a real difference, so each needs a reason.
 */
export const DEFAULT_IGNORE_PATHS: Readonly<Record<string, readonly string[]>> = {
  // totalDifficulty left the execution-apis block schema after the Merge (it is frozen there);
  // geth >= 1.14 omits it while Erigon, Nethermind and older clients still return it.
  eth_getBlockByNumber: ['totalDifficulty'],
  eth_getBlockByHash: ['totalDifficulty'],
};

const HEX = /^0x[0-9a-f]*$/i;
/**
 * A quantity compared by value: at most 64 hex digits (a uint256, the widest EVM quantity). A
 * longer one is compared as its text (lower-cased), so a node's 4 MB "quantity" costs no BigInt.
 */
const HEX_QUANTITY = /^0x[0-9a-f]{1,64}$/i;

function normalizeQuantity(value: unknown): unknown {
  if (typeof value === 'string' && HEX_QUANTITY.test(value)) return `0x${BigInt(value).toString(16)}`;
  if (Array.isArray(value)) return value.map(normalizeQuantity);
  return normalizeData(value);
}

/** Value of a hex quantity for sorting; undefined when absent or not a quantity. */
function quantityOf(value: unknown): bigint | undefined {
  return typeof value === 'string' && HEX_QUANTITY.test(value) ? BigInt(value) : undefined;
}

function compareOptional(a: bigint | undefined, b: bigint | undefined): number {
  if (a === undefined || b === undefined) return a === b ? 0 : a === undefined ? 1 : -1;
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Orders logs by (blockNumber, logIndex); stable, logs missing them go last in input order. */
function sortLogs(logs: unknown[]): unknown[] {
  const key = (log: unknown) => {
    const record = isRecord(log) ? log : {};
    return { block: quantityOf(record.blockNumber), index: quantityOf(record.logIndex) };
  };
  return logs
    .map((log) => ({ log, key: key(log) }))
    .sort((a, b) => compareOptional(a.key.block, b.key.block) || compareOptional(a.key.index, b.key.index))
    .map(({ log }) => log);
}

/** A block header (or uncle): its `nonce` is 8-byte DATA, not a transaction-count quantity. */
function isBlock(record: Record<string, unknown>): boolean {
  return 'parentHash' in record;
}

function normalizeData(value: unknown): unknown {
  if (typeof value === 'string') return HEX.test(value) ? value.toLowerCase() : value;
  if (Array.isArray(value)) return value.map(normalizeData);
  if (isRecord(value)) {
    const block = isBlock(value);
    const out: Record<string, unknown> = {};
    for (const [key, field] of Object.entries(value)) {
      let normalized = QUANTITY_KEYS.has(key) && !(block && key === 'nonce') ? normalizeQuantity(field) : normalizeData(field);
      if (key === 'logs' && Array.isArray(normalized)) normalized = sortLogs(normalized);
      out[key] = normalized;
    }
    return out;
  }
  return value;
}

/**
 * The EVM normalisation of a result known to be at most MAX_RESULT_DEPTH deep (the adapter's
 * `normalize`): quantities by value, data case-folded, logs ordered, ignore paths removed.
 */
export function normalizeEvmResult(method: string, result: unknown, options: NormalizeOptions): unknown {
  let value: unknown;
  if (QUANTITY_METHODS.has(method)) value = normalizeQuantity(result);
  else value = normalizeData(result);
  if (LOG_METHODS.has(method) && Array.isArray(value)) value = sortLogs(value);
  return removeIgnoredPaths(value, [...(DEFAULT_IGNORE_PATHS[method] ?? []), ...(options.ignorePaths ?? [])]);
}

/** normalizeWith for EVM: throws ResultTooDeepError for a result nested deeper than MAX_RESULT_DEPTH. */
export function normalizeResult(method: string, result: unknown, options: NormalizeOptions = {}): unknown {
  return normalizeWith(normalizeEvmResult, method, result, options);
}

/** fingerprintWith for EVM: the response hash of an EVM sample (null when too deep or too big). */
export function fingerprint(method: string, result: unknown, options?: NormalizeOptions): string | null {
  return fingerprintWith(normalizeEvmResult, method, result, options);
}
