/*
 * Which CometBFT calls follow the head, and how to pin them at a height for the re-check. Positional
 * params (CometBFT checks their count: every argument given, null for a default).
 */

/** Calls about the node's latest state or its own view, whatever their params. */
const TIP_METHODS: ReadonlySet<string> = new Set([
  'status',
  'abci_info',
  'net_info',
  'health',
  'consensus_state',
  'dump_consensus_state',
  'num_unconfirmed_txs',
  'unconfirmed_txs',
  // Searches over every indexed block: a new block can add results.
  'tx_search',
  'block_search',
  'blockchain',
]);

/** Methods taking a height, and its position: null (or 0 for abci_query) is the latest block. */
export const HEIGHT_PARAM: Readonly<Record<string, number>> = {
  block: 0,
  header: 0,
  commit: 0,
  block_results: 0,
  validators: 0,
  consensus_params: 0,
  abci_query: 2,
};

const isLatest = (value: unknown): boolean => value === undefined || value === null || value === '0' || value === 0;

/** True when two honest nodes asked at about the same time may answer differently because the head moved. */
export function isCometHeadDependent(method: string, params: unknown): boolean {
  if (TIP_METHODS.has(method)) return true;
  const at = HEIGHT_PARAM[method];
  if (at === undefined) return false;
  const list = Array.isArray(params) ? params : [];
  return isLatest(list[at]);
}

/** The params of a call at the latest height asked at `block` instead; null for a tip call, which takes no height. */
export function pinCometParams(method: string, params: unknown, block: bigint | number): unknown[] | null {
  const at = Object.hasOwn(HEIGHT_PARAM, method) ? HEIGHT_PARAM[method] : undefined;
  if (at === undefined || BigInt(block) < 1n) return null;
  const list = params === undefined || params === null ? [] : Array.isArray(params) ? [...params] : null;
  if (list === null || list.length <= at) return null;
  list[at] = String(block);
  return list;
}
