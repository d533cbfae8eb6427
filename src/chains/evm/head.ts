import type { HeadRead } from '../types';

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

/** A pinned block as EVM params write it: a hex quantity; with nothing pinned, the `latest` tag. */
export const renderEvmBlock = (pinned: number | null): string => (pinned === null ? 'latest' : `0x${pinned.toString(16)}`);
