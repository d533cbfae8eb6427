import type { HeadRead } from '../../src/chains/types';

/**
 * The head read of the throwaway families the seam's tests register (a Bitcoin-like dialect: one
 * getblockchaininfo answers the height and its hash), so those tests differ only in the rules they test.
 */
export const toyHeadRead: HeadRead = {
  method: 'getblockchaininfo',
  params: [],
  parse: (result) => {
    const info = result as { blocks?: unknown; bestblockhash?: unknown } | null;
    return typeof info?.blocks === 'number' && typeof info.bestblockhash === 'string' ? { number: BigInt(info.blocks), hash: info.bestblockhash } : null;
  },
};
