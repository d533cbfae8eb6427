import { notificationsBySubscriptionId, type NotificationSubscription } from '../head-subscriptions';
import type { HeadRead } from '../types';

/** The largest height a head may have: a Postgres bigint, as heads are stored. */
export const MAX_HEAD_NUMBER = 2n ** 63n - 1n;

/**
 * A block number a node sends, or null: at most 16 hex digits and at most MAX_HEAD_NUMBER, checked
 * on the text's length first. Unbounded, `"0x"` + 4,000,000 × `f` became a BigInt whose decimal
 * text took ~10 s of one worker's event loop to write (issue 30, H4).
 */
export function evmBlockNumber(value: unknown): bigint | null {
  if (typeof value !== 'string' || value.length > 18 || !/^0x[0-9a-f]{1,16}$/i.test(value)) return null;
  const number = BigInt(value);
  return number <= MAX_HEAD_NUMBER ? number : null;
}

/**
 * The head of an EVM node: eth_blockNumber, a hex quantity. Its answer names no hash (a hash
 * would take eth_getBlockByNumber("latest"), a far bigger answer read on every chunk).
 */
export const evmHead: HeadRead = {
  method: 'eth_blockNumber',
  params: [],
  parse: (result) => {
    const number = evmBlockNumber(result);
    return number === null ? null : { number, hash: null };
  },
};

const BLOCK_HASH = /^0x[0-9a-f]{64}$/i;

/**
 * `eth_subscribe ["newHeads"]` (geth, anvil, Erigon, Nethermind, Besu, Reth and the providers'
 * WebSocket endpoints): every notification's result is a block header naming its number and
 * hash, so each pushed head carries both.
 */
export const evmHeadSubscription: NotificationSubscription = notificationsBySubscriptionId({
  subscribe: { method: 'eth_subscribe', params: ['newHeads'] },
  unsubscribe: 'eth_unsubscribe',
  notification: 'eth_subscription',
  parse: (result) => {
    if (result === null || typeof result !== 'object' || Array.isArray(result)) return null;
    const { number, hash } = result as { number?: unknown; hash?: unknown };
    const height = evmBlockNumber(number);
    if (height === null || typeof hash !== 'string' || !BLOCK_HASH.test(hash)) return null;
    return { number: height, hash: hash.toLowerCase() };
  },
});

/** A pinned block as EVM params write it: a hex quantity; with nothing pinned, the `latest` tag. */
export const renderEvmBlock = (pinned: number | null): string => (pinned === null ? 'latest' : `0x${pinned.toString(16)}`);
