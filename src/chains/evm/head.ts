import type { HeadRead, HeadSubscription } from '../types';

const HEX_QUANTITY = /^0x[0-9a-f]+$/i;

/**
 * The head of an EVM node: eth_blockNumber, a hex quantity. Its answer names no hash (a hash
 * would take eth_getBlockByNumber("latest"), a far bigger answer read on every chunk).
 */
export const evmHead: HeadRead = {
  method: 'eth_blockNumber',
  params: [],
  parse: (result) => (typeof result === 'string' && HEX_QUANTITY.test(result) ? { number: BigInt(result), hash: null } : null),
};

const BLOCK_HASH = /^0x[0-9a-f]{64}$/i;

/**
 * `eth_subscribe ["newHeads"]` (geth, anvil, Erigon, Nethermind, Besu, Reth and the providers'
 * WebSocket endpoints): every notification's result is a block header naming its number and
 * hash, so each pushed head carries both.
 */
export const evmHeadSubscription: HeadSubscription = {
  subscribe: { method: 'eth_subscribe', params: ['newHeads'] },
  unsubscribe: 'eth_unsubscribe',
  notification: 'eth_subscription',
  parse: (result) => {
    if (result === null || typeof result !== 'object' || Array.isArray(result)) return null;
    const { number, hash } = result as { number?: unknown; hash?: unknown };
    if (typeof number !== 'string' || !HEX_QUANTITY.test(number) || typeof hash !== 'string' || !BLOCK_HASH.test(hash)) return null;
    return { number: BigInt(number), hash: hash.toLowerCase() };
  },
};

/** A pinned block as EVM params write it: a hex quantity; with nothing pinned, the `latest` tag. */
export const renderEvmBlock = (pinned: number | null): string => (pinned === null ? 'latest' : `0x${pinned.toString(16)}`);
