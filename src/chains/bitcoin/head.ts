import { notificationsByConnection, type NotificationSubscription } from '../head-subscriptions';
import { PinContextError, type HeadRead, type PinContextRead } from '../types';
import { isRecord } from '../../domain/json-shape';

const BLOCK_HASH = /^[0-9a-f]{64}$/i;

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
 * btcd's WebSocket notifications (its `/ws` endpoint, the same basic auth as its HTTP RPC):
 * `notifyblocks` answers null and from then on the connection gets a `blockconnected`
 * notification per block, `params: [hash, height, time]`. Bitcoin Core has no WebSocket (it
 * publishes blocks over ZMQ): a Core endpoint is watched by polling.
 */
export const btcdHeadSubscription: NotificationSubscription = notificationsByConnection({
  subscribe: { method: 'notifyblocks', params: [] },
  unsubscribe: 'stopnotifyblocks',
  notification: 'blockconnected',
  parse(params) {
    if (!Array.isArray(params)) return null;
    const [hash, height] = params as unknown[];
    if (typeof hash !== 'string' || !BLOCK_HASH.test(hash)) return null;
    if (typeof height !== 'number' || !Number.isSafeInteger(height) || height < 0) return null;
    return { number: BigInt(height), hash: hash.toLowerCase() };
  },
});

/**
 * A pinned block as Bitcoin params write it: a height, a plain JSON number (getblockhash,
 * getblockstats). There is no block tag, so nothing pinned renders as null: a run only goes
 * without a pinned block when its workload names none.
 */
export const renderBitcoinHeight = (pinned: number | null): number | null => pinned;

/** "{{pinned_height}}": the same height, under the name Bitcoin workloads read more naturally. */
export const PINNED_HEIGHT_TEMPLATE = '{{pinned_height}}';

/** "{{pinned_block_hash}}": the hash of the block at the pinned height (getblock, getblockheader). */
export const PINNED_BLOCK_HASH = 'pinned_block_hash';
/** "{{pinned_txid}}": a transaction of that block (getrawtransaction, gettxout). */
export const PINNED_TXID = 'pinned_txid';

/**
 * The pinned block's hash and a txid in it, read once at planning time from the endpoint the run is
 * pinned against (hash and txid cannot be rendered from the height: they are the chain's). The
 * txid is the block's first transaction after the coinbase, or the coinbase in a block with none
 * (a regtest or quiet-chain block): a spend is the more telling read, and both exist in every block.
 */
export const bitcoinPinContext: PinContextRead = {
  names: [PINNED_BLOCK_HASH, PINNED_TXID],
  async read(call, pinned) {
    const answer = await call('getblockhash', [pinned]);
    if (typeof answer !== 'string' || !BLOCK_HASH.test(answer)) throw new PinContextError(`getblockhash ${pinned} answered something that is not a block hash`);
    const hash = answer.toLowerCase();
    const block = await call('getblock', [hash, 1]);
    const tx = isRecord(block) && Array.isArray(block.tx) ? block.tx : [];
    const txid: unknown = tx[1] ?? tx[0];
    if (typeof txid !== 'string' || !BLOCK_HASH.test(txid)) throw new PinContextError(`getblock ${hash} 1 answered without a transaction list`);
    return { [PINNED_BLOCK_HASH]: hash, [PINNED_TXID]: txid.toLowerCase() };
  },
};
