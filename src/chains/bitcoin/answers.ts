import { removeIgnoredPaths, type NormalizeOptions } from '../../domain/correctness';
import { shapeOf } from '../../domain/json-shape';

/*
 * Bitcoin-family answers compared by meaning. Bitcoin Core (and its forks) and btcd answer plain
 * JSON: hashes in lower-case hex, amounts as JSON numbers, heights as integers, so the values
 * themselves need no re-encoding. What honest nodes disagree on is removed per method (IGNORE_PATHS;
 * every entry documented in docs/chains.md), and answers that describe the node's own mempool,
 * peers or fee estimator are compared by shape only (SHAPE_METHODS).
 */

/** Fields of a block or header that depend on what the node has seen after that block, not on the block. */
const BLOCK_LINKS = ['confirmations', 'nextblockhash'] as const;

/**
 * Paths removed from a method's result before comparison, on top of the caller's. Dot paths
 * relative to the result, `*` every element.
 */
export const BITCOIN_IGNORE_PATHS: Readonly<Record<string, readonly string[]>> = {
  // Confirmations count the node's own tip; nextblockhash is absent at the tip and appears with the next block.
  getblock: [...BLOCK_LINKS, 'tx.*.confirmations'],
  getblockheader: [...BLOCK_LINKS],
  // Confirmations again; a mempool transaction has no block fields on one node while the other has mined it.
  getrawtransaction: ['confirmations'],
  // The tip the answer was read at, and how deep the output is below it.
  gettxout: ['bestblock', 'confirmations'],
  // Node-local: sync progress is an estimate by wall clock, disk use and pruning are configuration,
  // warnings are the node's own (version, clock), initialblockdownload depends on the local clock.
  getblockchaininfo: [
    'verificationprogress',
    'size_on_disk',
    'warnings',
    'initialblockdownload',
    'pruned',
    'pruneheight',
    'automatic_pruning',
    'prune_target_size',
  ],
};

/**
 * Methods whose answer is the node's own view (its mempool, its fee estimator, its peers): two
 * honest nodes answer different values, so only the shape (member names and JSON types) is compared.
 */
export const SHAPE_METHODS: ReadonlySet<string> = new Set([
  'getmempoolinfo',
  'getrawmempool',
  'estimatesmartfee',
  'estimatefee',
  'getnetworkinfo',
  'getpeerinfo',
  'getconnectioncount',
  'getnettotals',
  'getmininginfo',
  'uptime',
]);

/** The Bitcoin normalisation of a result known to be at most MAX_RESULT_DEPTH deep (the adapter's `normalize`). */
export function normalizeBitcoinResult(method: string, result: unknown, options: NormalizeOptions): unknown {
  const value = removeIgnoredPaths(result, [...(BITCOIN_IGNORE_PATHS[method] ?? []), ...(options.ignorePaths ?? [])]);
  return SHAPE_METHODS.has(method) ? shapeOf(value) : value;
}

/**
 * Methods whose answer follows the chain tip (or the mempool) whatever their params: two honest
 * nodes asked at the same moment differ while one of them has not seen the newest block yet.
 */
const HEAD_METHODS = new Set([
  'getblockcount',
  'getbestblockhash',
  'getblockchaininfo',
  'getchaintips',
  'getdifficulty',
  'gettxoutsetinfo',
  // The UTXO set at the tip: an output spent by the newest block is null on the node that has it.
  'gettxout',
  ...SHAPE_METHODS,
]);

/** getnetworkhashps [nblocks, height]: height -1 (the default) is the tip. */
function isTipHashrate(list: readonly unknown[]): boolean {
  return list[1] === undefined || list[1] === -1;
}

/** getchaintxstats [nblocks, blockhash]: without a block hash it describes the tip. */
function isTipTxStats(list: readonly unknown[]): boolean {
  return list[1] === undefined || list[1] === null;
}

/**
 * True when the answer may differ between two nodes because the head moved: a call about the tip
 * (no height or hash in its params). Calls naming a height or hash (getblockhash, getblock,
 * getblockheader, getrawtransaction, getblockstats) describe a block below the head, fixed once
 * both nodes have it.
 */
export function isBitcoinHeadDependent(method: string, params: unknown): boolean {
  if (HEAD_METHODS.has(method)) return true;
  const list = Array.isArray(params) ? params : [];
  if (method === 'getnetworkhashps') return isTipHashrate(list);
  if (method === 'getchaintxstats') return isTipTxStats(list);
  return false;
}

/**
 * The params of a head-dependent call asked at height `block` for a re-check. Only
 * getnetworkhashps takes a height; every other tip call (getblockcount, getbestblockhash,
 * getblockchaininfo, mempool and fee reads, gettxout) has no way to be asked about a past block,
 * so it cannot be re-checked (null).
 */
export function pinBitcoinParams(method: string, params: unknown, block: bigint | number): unknown[] | null {
  const list = params === undefined || params === null ? [] : Array.isArray(params) ? params : null;
  if (list === null || BigInt(block) < 0n || BigInt(block) > BigInt(Number.MAX_SAFE_INTEGER)) return null;
  if (method === 'getnetworkhashps' && isTipHashrate(list)) return [list[0] ?? 120, Number(block)];
  return null;
}
