import { describe, expect, it } from 'vitest';
import { bitcoinHead, btcdHeadSubscription } from '../../src/chains/bitcoin/head';
import { evmHead, evmHeadSubscription } from '../../src/chains/evm/head';
import { solanaHead, solanaSlotSubscription } from '../../src/chains/solana/head';
import { CHAINS } from '../../src/chains/registry';
import { classifyResponse } from '../../src/probe/classify-response';

/*
 * Every height a node sends is bounded where it is parsed (issue 30, H4): an EVM quantity of at
 * most 16 hex digits and 2^63 − 1 (a Postgres bigint), Bitcoin and Solana heights safe integers.
 */

const HASH = `0x${'ab'.repeat(32)}`;
const MAX_BIGINT = 2n ** 63n - 1n;

describe('EVM block numbers', () => {
  it.each([
    { value: '0x0', expected: 0n },
    { value: '0x1b4', expected: 0x1b4n },
    { value: '0X7FFFFFFFFFFFFFFF', expected: MAX_BIGINT },
    { value: '0x8000000000000000', expected: null },
    { value: '0xffffffffffffffff', expected: null },
    { value: '0x00000000000000001', expected: null },
    { value: '0x', expected: null },
    { value: '1b4', expected: null },
    { value: 436, expected: null },
    { value: `0x${'f'.repeat(4_000_000)}`, expected: null },
  ])('$value → $expected', ({ value, expected }) => {
    expect(evmHead.parse(value)?.number ?? null).toBe(expected);
    expect(evmHeadSubscription.parse({ number: value, hash: HASH })?.number ?? null).toBe(expected);
  });

  it('a 4 MB quantity in an answer is compared as text, never turned into a BigInt', () => {
    const huge = `0x${'f'.repeat(4_000_000)}`;
    const answer = (value: string) => `{"jsonrpc":"2.0","id":1,"result":{"number":"${value}","gasUsed":"${value}"}}`;
    const a = classifyResponse(CHAINS.evm, 200, answer(huge), 'eth_getBlockByNumber');
    const b = classifyResponse(CHAINS.evm, 200, answer(huge.toUpperCase().replace('0X', '0x')), 'eth_getBlockByNumber');
    expect(a.outcome).toBe('ok');
    expect(a.responseHash).toBe(b.responseHash);
    // Up to 64 hex digits (a uint256) still compare by value: leading zeros do not matter.
    const short = classifyResponse(CHAINS.evm, 200, answer(`0x${'0'.repeat(10)}1`), 'eth_getBlockByNumber');
    expect(short.responseHash).toBe(classifyResponse(CHAINS.evm, 200, answer('0x1'), 'eth_getBlockByNumber').responseHash);
  });
});

describe('Bitcoin and Solana heights', () => {
  it.each([
    { value: 840_000, expected: 840_000n },
    { value: Number.MAX_SAFE_INTEGER, expected: BigInt(Number.MAX_SAFE_INTEGER) },
    { value: 2 ** 63, expected: null },
    { value: 1e300, expected: null },
    { value: -1, expected: null },
    { value: 1.5, expected: null },
  ])('$value → $expected', ({ value, expected }) => {
    expect(bitcoinHead.parse({ blocks: value, bestblockhash: 'ab'.repeat(32) })?.number ?? null).toBe(expected);
    expect(btcdHeadSubscription.parse(['ab'.repeat(32), value, 0])?.number ?? null).toBe(expected);
    expect(solanaHead.parse(value)?.number ?? null).toBe(expected);
    expect(solanaSlotSubscription.parse({ slot: value, parent: 0, root: 0 })?.number ?? null).toBe(expected);
  });
});
