import { describe, expect, it } from 'vitest';
import { DEFAULT_IGNORE_PATHS, fingerprint, normalizeResult } from '../../../../src/chains/evm/answers';
import { MAX_RESULT_DEPTH } from '../../../../src/domain/canonical-json';
import { ResultTooDeepError } from '../../../../src/domain/correctness';

const HASH = /^[0-9a-f]{32}$/;
const H32 = `0x${'00'.repeat(31)}ab`;
const ADDR = '0x00000000000000000000000000000000000000aa';

interface Case {
  name: string;
  method: string;
  a: unknown;
  b: unknown;
  ignorePaths?: string[];
}

describe('fingerprint: semantically equal answers are equal', () => {
  it.each<Case>([
    { name: 'key order', method: 'eth_getBlockByNumber', a: { number: '0x1', hash: H32 }, b: { hash: H32, number: '0x1' } },
    { name: 'nested key order', method: 'eth_getTransactionReceipt', a: { logs: [{ address: ADDR, data: '0x' }], status: '0x1' }, b: { status: '0x1', logs: [{ data: '0x', address: ADDR }] } },
    { name: 'quantity method: leading zeros', method: 'eth_getBalance', a: '0x0001', b: '0x1' },
    { name: 'quantity method: case', method: 'eth_getBalance', a: '0xAbC', b: '0xabc' },
    { name: 'quantity method: upper-case prefix', method: 'eth_blockNumber', a: '0X0A', b: '0xa' },
    { name: 'quantity method: zero', method: 'eth_getTransactionCount', a: '0x00', b: '0x0' },
    { name: 'quantity method: eth_chainId', method: 'eth_chainId', a: '0x0539', b: '0x539' },
    { name: 'quantity key in a block', method: 'eth_getBlockByNumber', a: { number: '0x000a', gasUsed: '0x5208' }, b: { number: '0xa', gasUsed: '0x05208' } },
    { name: 'quantity keys in a full transaction', method: 'eth_getBlockByNumber', a: { transactions: [{ nonce: '0x01', value: '0x0DE0B6B3A7640000', v: '0x0a96', r: `0x0${'1'.repeat(63)}` }] }, b: { transactions: [{ nonce: '0x1', value: '0xde0b6b3a7640000', v: '0xa96', r: `0x${'1'.repeat(63)}` }] } },
    { name: 'quantity keys in a receipt', method: 'eth_getTransactionReceipt', a: { status: '0x01', cumulativeGasUsed: '0x0100', effectiveGasPrice: '0x3B9ACA00', type: '0x02' }, b: { status: '0x1', cumulativeGasUsed: '0x100', effectiveGasPrice: '0x3b9aca00', type: '0x2' } },
    { name: 'quantity array (fee history)', method: 'eth_feeHistory', a: { oldestBlock: '0x010', baseFeePerGas: ['0x01', '0x0002'], reward: [['0x00A']], gasUsedRatio: [0.5] }, b: { oldestBlock: '0x10', baseFeePerGas: ['0x1', '0x2'], reward: [['0xa']], gasUsedRatio: [0.5] } },
    { name: 'hex data: case only (checksummed address)', method: 'eth_getTransactionByHash', a: { from: '0xAbCd000000000000000000000000000000000001', hash: H32.toUpperCase().replace('0X', '0x') }, b: { from: '0xabcd000000000000000000000000000000000001', hash: H32 } },
    { name: 'eth_call data: case', method: 'eth_call', a: '0x00AB', b: '0x00ab' },
    { name: 'eth_getLogs order by logIndex', method: 'eth_getLogs', a: [{ blockNumber: '0x1', logIndex: '0x1', data: '0x02' }, { blockNumber: '0x1', logIndex: '0x0', data: '0x01' }], b: [{ blockNumber: '0x1', logIndex: '0x0', data: '0x01' }, { blockNumber: '0x1', logIndex: '0x1', data: '0x02' }] },
    { name: 'eth_getLogs order by block then logIndex (by value, not text)', method: 'eth_getLogs', a: [{ blockNumber: '0xa', logIndex: '0x0' }, { blockNumber: '0x9', logIndex: '0x10' }, { blockNumber: '0x9', logIndex: '0x2' }], b: [{ blockNumber: '0x9', logIndex: '0x2' }, { blockNumber: '0x9', logIndex: '0x10' }, { blockNumber: '0xa', logIndex: '0x0' }] },
    { name: 'receipt logs order by logIndex', method: 'eth_getTransactionReceipt', a: { logs: [{ logIndex: '0x3' }, { logIndex: '0x2' }] }, b: { logs: [{ logIndex: '0x2' }, { logIndex: '0x3' }] } },
    { name: 'block receipts: logs of each receipt ordered', method: 'eth_getBlockReceipts', a: [{ logs: [{ logIndex: '0x1' }, { logIndex: '0x0' }] }], b: [{ logs: [{ logIndex: '0x0' }, { logIndex: '0x1' }] }] },
    { name: 'default ignore path: totalDifficulty (present vs absent)', method: 'eth_getBlockByNumber', a: { number: '0x1', totalDifficulty: '0x100' }, b: { number: '0x1' } },
    { name: 'default ignore path applies to eth_getBlockByHash', method: 'eth_getBlockByHash', a: { number: '0x1', totalDifficulty: '0x100' }, b: { number: '0x1', totalDifficulty: '0x200' } },
    { name: 'caller ignore path with * over array elements', method: 'eth_getBlockByNumber', a: { transactions: [{ hash: H32, r: '0x1' }, { hash: H32, r: '0x2' }] }, b: { transactions: [{ hash: H32, r: '0x9' }, { hash: H32 }] }, ignorePaths: ['transactions.*.r'] },
    { name: 'caller ignore path with an index', method: 'eth_getLogs', a: [{ data: '0x1' }, { data: '0x2' }], b: [{ data: '0x9' }, { data: '0x2' }], ignorePaths: ['0.data'] },
    { name: 'caller ignore path on a top-level key', method: 'eth_getTransactionReceipt', a: { status: '0x1', l1Fee: '0x5' }, b: { status: '0x1' }, ignorePaths: ['l1Fee'] },
    { name: 'null results', method: 'eth_getTransactionReceipt', a: null, b: null },
  ])('$name', ({ method, a, b, ignorePaths }) => {
    const fa = fingerprint(method, a, { ignorePaths });
    expect(fa).toMatch(HASH);
    expect(fa).toBe(fingerprint(method, b, { ignorePaths }));
  });
});

describe('fingerprint: different answers differ', () => {
  it.each<Case>([
    { name: 'different quantity', method: 'eth_getBalance', a: '0x1', b: '0x2' },
    { name: 'hex data keeps leading zeros (eth_call)', method: 'eth_call', a: '0x0001', b: '0x01' },
    { name: 'hex data keeps leading zeros (eth_getStorageAt)', method: 'eth_getStorageAt', a: H32, b: '0xab' },
    { name: 'hash field is data, not a quantity', method: 'eth_getBlockByNumber', a: { hash: H32 }, b: { hash: '0xab' } },
    { name: 'address field is data', method: 'eth_getTransactionByHash', a: { to: ADDR }, b: { to: '0xaa' } },
    { name: 'log topics and data are data', method: 'eth_getLogs', a: [{ topics: [H32], data: '0x00' }], b: [{ topics: ['0xab'], data: '0x0' }] },
    { name: "a block's nonce is 8-byte data", method: 'eth_getBlockByNumber', a: { parentHash: H32, nonce: '0x0000000000000000' }, b: { parentHash: H32, nonce: '0x0' } },
    { name: 'net_version stays a decimal string', method: 'net_version', a: '1', b: '01' },
    { name: 'hex string vs number', method: 'eth_blockNumber', a: '0xa', b: 10 },
    { name: 'missing field', method: 'eth_getTransactionReceipt', a: { status: '0x1', logs: [] }, b: { status: '0x1' } },
    { name: 'different log count', method: 'eth_getLogs', a: [{ logIndex: '0x0' }], b: [{ logIndex: '0x0' }, { logIndex: '0x1' }] },
    { name: 'non-log arrays keep their order', method: 'eth_getBlockByNumber', a: { transactions: [H32, ADDR] }, b: { transactions: [ADDR, H32] } },
    { name: 'totalDifficulty is ignored only for block methods', method: 'eth_getTransactionReceipt', a: { totalDifficulty: '0x1' }, b: {} },
    { name: 'non-hex strings are compared exactly', method: 'web3_clientVersion', a: 'Geth/v1', b: 'geth/v1' },
  ])('$name', ({ method, a, b }) => {
    expect(fingerprint(method, a)).not.toBe(fingerprint(method, b));
  });

  it('the method matters for quantity results: eth_call keeps a padded word', () => {
    expect(normalizeResult('eth_call', H32)).toBe(H32);
    expect(normalizeResult('eth_getBalance', H32)).toBe('0xab');
  });
});

describe('normalizeResult', () => {
  it('does not modify its input', () => {
    const input = { logs: [{ logIndex: '0x1' }, { logIndex: '0x0' }], totalDifficulty: '0x01', number: '0x01' };
    const copy = structuredClone(input);
    normalizeResult('eth_getBlockByNumber', input, { ignorePaths: ['logs.*.logIndex'] });
    expect(input).toEqual(copy);
  });

  it('produces the canonical value form', () => {
    expect(
      normalizeResult('eth_getTransactionReceipt', {
        status: '0x01',
        blockHash: H32.replace('ab', 'AB'),
        logs: [
          { logIndex: '0x02', topics: ['0xAA'] },
          { logIndex: '0x01', topics: [] },
          { topics: [] },
        ],
      }),
    ).toEqual({
      status: '0x1',
      blockHash: H32,
      logs: [{ logIndex: '0x1', topics: [] }, { logIndex: '0x2', topics: ['0xaa'] }, { topics: [] }],
    });
  });

  it('ignore paths that do not exist are harmless', () => {
    expect(normalizeResult('eth_getBalance', '0x01', { ignorePaths: ['a.b', '*', ''] })).toBe('0x1');
    expect(normalizeResult('eth_getLogs', [{ a: 1 }], { ignorePaths: ['x.y', '5', 'nope'] })).toEqual([{ a: 1 }]);
  });

  it('keeps the default ignore list small and documented', () => {
    expect(Object.keys(DEFAULT_IGNORE_PATHS).sort()).toEqual(['eth_getBlockByHash', 'eth_getBlockByNumber']);
  });
});


describe('results too deep to compare', () => {
  const nestedArray = (depth: number): unknown => {
    let value: unknown = '0x1';
    for (let i = 0; i < depth; i++) value = [value];
    return value;
  };
  const nestedObject = (depth: number): unknown => {
    let value: unknown = '0x1';
    for (let i = 0; i < depth; i++) value = { logs: value, number: '0x01' };
    return value;
  };

  it.each([
    { name: '4,000-deep arrays', value: nestedArray(4_000), method: 'eth_getTransactionByHash' },
    { name: '4,000-deep arrays, quantity method', value: nestedArray(4_000), method: 'eth_getBalance' },
    { name: '4,000-deep objects with logs and quantity keys', value: nestedObject(4_000), method: 'eth_getBlockByNumber' },
    { name: 'MAX_RESULT_DEPTH + 1 arrays', value: nestedArray(MAX_RESULT_DEPTH + 1), method: 'eth_getLogs' },
  ])('$name: fingerprint is null, normalizeResult throws ResultTooDeepError (never a stack overflow)', ({ value, method }) => {
    expect(fingerprint(method, value, { ignorePaths: ['logs.*.x'] })).toBeNull();
    expect(() => normalizeResult(method, value)).toThrow(ResultTooDeepError);
  });

  it.each([
    { name: 'arrays', value: nestedArray(MAX_RESULT_DEPTH) },
    { name: 'objects', value: nestedObject(MAX_RESULT_DEPTH) },
  ])('MAX_RESULT_DEPTH-deep $name are still fingerprinted', ({ value }) => {
    expect(fingerprint('eth_getBlockByNumber', value)).toMatch(/^[0-9a-f]{32}$/);
  });
});
