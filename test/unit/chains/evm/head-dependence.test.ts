import { describe, expect, it } from 'vitest';
import { isHeadDependent, pinHeadDependentParams } from '../../../../src/chains/evm/head-dependence';

const H32 = `0x${'00'.repeat(31)}ab`;
const ADDR = '0x00000000000000000000000000000000000000aa';

describe('isHeadDependent', () => {
  it.each([
    { method: 'eth_blockNumber', params: [], expected: true },
    { method: 'eth_gasPrice', params: [], expected: true },
    { method: 'eth_maxPriorityFeePerGas', params: undefined, expected: true },
    { method: 'eth_getBlockByNumber', params: ['latest', false], expected: true },
    { method: 'eth_getBlockByNumber', params: ['pending', false], expected: true },
    { method: 'eth_getBlockByNumber', params: ['SAFE', false], expected: true },
    { method: 'eth_getBlockByNumber', params: ['finalized', true], expected: true },
    { method: 'eth_getBlockByNumber', params: ['earliest', false], expected: false },
    { method: 'eth_getBlockByNumber', params: ['0x10', true], expected: false },
    { method: 'eth_getBalance', params: [ADDR, 'latest'], expected: true },
    { method: 'eth_getBalance', params: [ADDR, '0x10'], expected: false },
    { method: 'eth_getBalance', params: [ADDR], expected: true },
    { method: 'eth_call', params: [{ to: ADDR, data: '0x' }], expected: true },
    { method: 'eth_call', params: [{ to: ADDR, data: '0x' }, { blockNumber: '0x10' }], expected: false },
    { method: 'eth_call', params: [{ to: ADDR, data: '0x' }, { blockNumber: 'latest' }], expected: true },
    { method: 'eth_getStorageAt', params: [ADDR, '0x0', '0x10'], expected: false },
    { method: 'eth_getLogs', params: [{ fromBlock: '0x1', toBlock: '0x10' }], expected: false },
    { method: 'eth_getLogs', params: [{ fromBlock: '0x1', toBlock: 'latest' }], expected: true },
    { method: 'eth_getLogs', params: [{ fromBlock: '0x1' }], expected: true },
    { method: 'eth_getLogs', params: [{ blockHash: H32 }], expected: false },
    { method: 'eth_getLogs', params: [], expected: true },
    { method: 'eth_getTransactionReceipt', params: [H32], expected: false },
    { method: 'eth_chainId', params: [], expected: false },
    { method: 'net_version', params: [], expected: false },
  ])('$method $params → $expected', ({ method, params, expected }) => {
    expect(isHeadDependent(method, params)).toBe(expected);
  });
});

describe('pinHeadDependentParams: the head tag replaced by a fixed block', () => {
  const FILTER = { address: ADDR, topics: [H32] };
  it.each([
    { name: 'eth_getBalance latest', method: 'eth_getBalance', params: [ADDR, 'latest'], expected: [ADDR, '0x36'] },
    { name: 'eth_getBalance omitted block', method: 'eth_getBalance', params: [ADDR], expected: [ADDR, '0x36'] },
    { name: 'eth_getBalance pending (case folded)', method: 'eth_getBalance', params: [ADDR, 'PENDING'], expected: [ADDR, '0x36'] },
    { name: 'eth_getTransactionCount safe', method: 'eth_getTransactionCount', params: [ADDR, 'safe'], expected: [ADDR, '0x36'] },
    { name: 'eth_getStorageAt finalized', method: 'eth_getStorageAt', params: [ADDR, '0x0', 'finalized'], expected: [ADDR, '0x0', '0x36'] },
    { name: 'eth_getStorageAt missing slot: cannot be pinned', method: 'eth_getStorageAt', params: [ADDR], expected: null },
    { name: 'eth_call latest', method: 'eth_call', params: [{ to: ADDR, data: '0x' }, 'latest'], expected: [{ to: ADDR, data: '0x' }, '0x36'] },
    { name: 'eth_call omitted block', method: 'eth_call', params: [{ to: ADDR, data: '0x' }], expected: [{ to: ADDR, data: '0x' }, '0x36'] },
    { name: 'eth_call EIP-1898 blockNumber latest', method: 'eth_call', params: [{ to: ADDR, data: '0x' }, { blockNumber: 'latest' }], expected: [{ to: ADDR, data: '0x' }, { blockNumber: '0x36' }] },
    { name: 'eth_call with a state override keeps it', method: 'eth_call', params: [{ to: ADDR }, 'latest', { [ADDR]: { balance: '0x1' } }], expected: [{ to: ADDR }, '0x36', { [ADDR]: { balance: '0x1' } }] },
    { name: 'eth_getBlockByNumber latest', method: 'eth_getBlockByNumber', params: ['latest', false], expected: ['0x36', false] },
    { name: 'eth_getBlockByNumber finalized with txs', method: 'eth_getBlockByNumber', params: ['finalized', true], expected: ['0x36', true] },
    { name: 'eth_getBlockByNumber earliest is not a head tag', method: 'eth_getBlockByNumber', params: ['earliest', false], expected: ['earliest', false] },
    { name: 'eth_getLogs fromBlock and toBlock latest', method: 'eth_getLogs', params: [{ ...FILTER, fromBlock: 'latest', toBlock: 'latest' }], expected: [{ ...FILTER, fromBlock: '0x36', toBlock: '0x36' }] },
    { name: 'eth_getLogs fixed fromBlock, toBlock latest', method: 'eth_getLogs', params: [{ ...FILTER, fromBlock: '0x30', toBlock: 'latest' }], expected: [{ ...FILTER, fromBlock: '0x30', toBlock: '0x36' }] },
    { name: 'eth_getLogs without bounds gets both', method: 'eth_getLogs', params: [FILTER], expected: [{ ...FILTER, fromBlock: '0x36', toBlock: '0x36' }] },
    { name: 'eth_getLogs fromBlock only gets toBlock', method: 'eth_getLogs', params: [{ ...FILTER, fromBlock: '0x30' }], expected: [{ ...FILTER, fromBlock: '0x30', toBlock: '0x36' }] },
    { name: 'eth_getLogs blockHash untouched', method: 'eth_getLogs', params: [{ ...FILTER, blockHash: H32 }], expected: [{ ...FILTER, blockHash: H32 }] },
    { name: 'eth_getLogs without a filter object', method: 'eth_getLogs', params: [], expected: null },
    { name: 'eth_feeHistory newest block latest', method: 'eth_feeHistory', params: ['0x4', 'latest', [25, 75]], expected: ['0x4', '0x36', [25, 75]] },
    { name: 'eth_blockNumber follows the head: nothing to pin', method: 'eth_blockNumber', params: [], expected: null },
    { name: 'eth_gasPrice follows the head: nothing to pin', method: 'eth_gasPrice', params: [], expected: null },
    { name: 'params that are not an array', method: 'eth_getBalance', params: { address: ADDR }, expected: null },
    { name: 'a fixed block stays as it is', method: 'eth_getBalance', params: [ADDR, '0x10'], expected: [ADDR, '0x10'] },
  ])('$name', ({ method, params, expected }) => {
    const before = JSON.stringify(params);
    const pinned = pinHeadDependentParams(method, params, 0x36n);
    expect(pinned).toEqual(expected);
    expect(JSON.stringify(params)).toBe(before);
    if (pinned !== null) expect(isHeadDependent(method, pinned)).toBe(false);
  });

  it('takes the block as a number too, and refuses a negative one', () => {
    expect(pinHeadDependentParams('eth_getBalance', [ADDR, 'latest'], 255)).toEqual([ADDR, '0xff']);
    expect(pinHeadDependentParams('eth_getBalance', [ADDR, 'latest'], -1)).toBeNull();
  });
});
