import type { HeadRead } from '../types';

const BLOCK_HASH = /^[0-9a-f]{64}$/i;

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/**
 * The head of a Bitcoin-family node: one getblockchaininfo names both the height (`blocks`) and
 * the best block hash (getblockcount + getbestblockhash would be two reads that can straddle a
 * block). Bitcoin Core, its forks (Litecoin, Dogecoin) and btcd all answer it the same way.
 */
export const bitcoinHead: HeadRead = {
  method: 'getblockchaininfo',
  params: [],
  parse(result) {
    if (!isRecord(result)) return null;
    const { blocks, bestblockhash } = result;
    if (typeof blocks !== 'number' || !Number.isSafeInteger(blocks) || blocks < 0) return null;
    if (typeof bestblockhash !== 'string' || !BLOCK_HASH.test(bestblockhash)) return null;
    return { number: BigInt(blocks), hash: bestblockhash.toLowerCase() };
  },
};

/**
 * A pinned block as Bitcoin params write it: a height, a plain JSON number (getblockhash,
 * getblockstats). There is no block tag, so nothing pinned renders as null: a run only goes
 * without a pinned block when its workload names none.
 */
export const renderBitcoinHeight = (pinned: number | null): number | null => pinned;

/** "{{pinned_height}}": the same height, under the name Bitcoin workloads read more naturally. */
export const PINNED_HEIGHT_TEMPLATE = '{{pinned_height}}';
