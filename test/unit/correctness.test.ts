import { describe, expect, it } from 'vitest';
import { MAX_RESULT_DEPTH } from '../../src/domain/canonical-json';
import { DEFAULT_IGNORE_PATHS, fingerprint, normalizeResult } from '../../src/chains/evm/answers';
import {
  emptyTally,
  isHeadDependent,
  judgeCorrectness,
  pinHeadDependentParams,
  ResultTooDeepError,
  spreadMismatches,
  tallyFromCounts,
  type CorrectnessTally,
} from '../../src/domain/correctness';
import { judgePairs, tallyOfPairs, type Pair } from '../helpers/correctness-pairs';

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

const pair = (over: Partial<Pair> = {}): Pair => ({
  method: 'eth_getBalance',
  params: [ADDR, '0x10'],
  candidateHash: 'a'.repeat(32),
  referenceHash: 'a'.repeat(32),
  headDependent: false,
  ...over,
});
const match = () => pair();
const mismatch = (i = 0) => pair({ candidateHash: `${i}`.padStart(32, 'b'), params: [ADDR, `0x${i.toString(16)}`] });

describe('judgeCorrectness of pairs counted as the SQL counts them', () => {
  it.each([
    { name: 'all matched', pairs: [match(), match()], min: 100, status: 'pass', counts: { compared: 2, matched: 2, mismatched: 0, inconclusive: 0, skipped: 0 }, rate: 100 },
    { name: 'exactly at min_pct passes', pairs: [...Array(19).fill(0).map(match), mismatch()], min: 95, status: 'pass', counts: { compared: 20, matched: 19, mismatched: 1, inconclusive: 0, skipped: 0 }, rate: 95 },
    { name: 'just below min_pct fails', pairs: [...Array(18).fill(0).map(match), mismatch(1), mismatch(2)], min: 95, status: 'fail', counts: { compared: 20, matched: 18, mismatched: 2, inconclusive: 0, skipped: 0 }, rate: 90 },
    { name: 'exactly at a fractional min_pct passes', pairs: [...Array(999).fill(0).map(match), mismatch()], min: 99.9, status: 'pass', counts: { compared: 1000, matched: 999, mismatched: 1, inconclusive: 0, skipped: 0 }, rate: 99.9 },
    { name: 'rate is truncated to one decimal (2/3 → 66.6)', pairs: [match(), match(), mismatch()], min: 50, status: 'pass', counts: { compared: 3, matched: 2, mismatched: 1, inconclusive: 0, skipped: 0 }, rate: 66.6 },
    { name: 'never shows 100.0 with a mismatch (1999/2000 → 99.9, fails min 100)', pairs: [...Array(1999).fill(0).map(match), mismatch()], min: 100, status: 'fail', counts: { compared: 2000, matched: 1999, mismatched: 1, inconclusive: 0, skipped: 0 }, rate: 99.9 },
    { name: 'head-dependent mismatch → inconclusive, excluded from the rate', pairs: [match(), pair({ candidateHash: 'c'.repeat(32), headDependent: true })], min: 100, status: 'pass', counts: { compared: 1, matched: 1, mismatched: 0, inconclusive: 1, skipped: 0 }, rate: 100 },
    { name: 'head-dependent match still counts as matched', pairs: [pair({ headDependent: true })], min: 100, status: 'pass', counts: { compared: 1, matched: 1, mismatched: 0, inconclusive: 0, skipped: 0 }, rate: 100 },
    { name: 'null hash on either side → skipped', pairs: [match(), pair({ candidateHash: null }), pair({ referenceHash: null }), pair({ candidateHash: null, referenceHash: null })], min: 100, status: 'pass', counts: { compared: 1, matched: 1, mismatched: 0, inconclusive: 0, skipped: 3 }, rate: 100 },
  ])('$name', ({ pairs, min, status, counts, rate }) => {
    const summary = judgePairs(pairs, min);
    expect(summary.name).toBe('correctness');
    expect(summary.status).toBe(status);
    expect(summary.details).toMatchObject({ ...counts, match_rate_pct: rate, min_pct: min });
    expect(summary.details.compared + summary.details.inconclusive + summary.details.skipped).toBe(pairs.length);
    expect(summary.details.mismatches).toHaveLength(counts.mismatched);
  });

  it.each([
    { name: 'no pairs', pairs: [] },
    { name: 'every pair skipped', pairs: [pair({ candidateHash: null }), pair({ referenceHash: null })] },
    { name: 'every pair inconclusive', pairs: [pair({ candidateHash: 'c'.repeat(32), headDependent: true })] },
  ])('nothing compared ($name) → fail, rate null', ({ pairs }) => {
    const summary = judgePairs(pairs, 0);
    expect(summary.status).toBe('fail');
    expect(summary.details.compared).toBe(0);
    expect(summary.details.match_rate_pct).toBeNull();
    expect(summary.message).toMatch(/nothing to judge/);
  });

  it('lists at most 10 mismatches, the first ones, with method, params and both hashes', () => {
    const pairs = Array.from({ length: 15 }, (_, i) => mismatch(i));
    const summary = judgePairs(pairs, 0);
    expect(summary.details.mismatched).toBe(15);
    expect(summary.details.mismatches).toHaveLength(10);
    expect(summary.details.mismatches[0]).toEqual({
      method: 'eth_getBalance',
      params: [ADDR, '0x0'],
      candidate_hash: '0'.padStart(32, 'b'),
      reference_hash: 'a'.repeat(32),
    });
    expect(summary.details.mismatches.map((m) => (m.params as string[])[1])).toEqual(
      Array.from({ length: 10 }, (_, i) => `0x${i.toString(16)}`),
    );
    // min 0 passes even with every compared pair mismatching: the threshold is the caller's choice.
    expect(summary.status).toBe('pass');
    expect(summary.details.match_rate_pct).toBe(0);
  });

  it('the message says what was judged', () => {
    const summary = judgePairs([match(), mismatch(), pair({ candidateHash: null }), pair({ candidateHash: 'c'.repeat(32), headDependent: true })], 90);
    expect(summary.message).toBe(
      '1 of 2 compared responses matched the reference (50%, below min 90%); 1 inconclusive (head moved), 1 skipped (a side failed)',
    );
  });
});

describe('tallyFromCounts of pairs counted as the SQL counts them', () => {
  it('counts each kind of pair and keeps the first mismatches in input order', () => {
    const pairs = [match(), mismatch(1), pair({ candidateHash: null }), pair({ candidateHash: 'c'.repeat(32), headDependent: true }), mismatch(2), match()];
    expect(tallyOfPairs(pairs)).toEqual({
      matched: 2,
      mismatched: 2,
      inconclusive: 1,
      skipped: 1,
      mismatches: [
        { method: 'eth_getBalance', params: [ADDR, '0x1'], candidate_hash: '1'.padStart(32, 'b'), reference_hash: 'a'.repeat(32) },
        { method: 'eth_getBalance', params: [ADDR, '0x2'], candidate_hash: '2'.padStart(32, 'b'), reference_hash: 'a'.repeat(32) },
      ],
      mismatchesByMethod: [{ method: 'eth_getBalance', mismatched: 2, compared: 4 }],
      recheck: { resolved: 0, confirmed: 0, failed: 0 },
    });
  });

  it('a head-moved difference counts by its re-check: confirmed → mismatch listed as re-sent, resolved or failed → inconclusive', () => {
    const moved = (outcome: 'resolved' | 'confirmed' | 'failed' | undefined, i: number) =>
      pair({
        params: [ADDR, 'latest'],
        candidateHash: `${i}`.padStart(32, 'c'),
        headDependent: true,
        recheck: outcome && {
          outcome,
          params: [ADDR, '0x36'],
          candidateHash: outcome === 'failed' ? null : `${i}`.padStart(32, 'e'),
          referenceHash: outcome === 'confirmed' ? 'f'.repeat(32) : outcome === 'resolved' ? `${i}`.padStart(32, 'e') : null,
        },
      });
    const tally = tallyOfPairs([match(), moved('confirmed', 1), moved('resolved', 2), moved('failed', 3), moved(undefined, 4)]);
    expect(tally).toMatchObject({ matched: 1, mismatched: 1, inconclusive: 3, skipped: 0, recheck: { resolved: 1, confirmed: 1, failed: 1 } });
    expect(tally.mismatches).toEqual([{ method: 'eth_getBalance', params: [ADDR, '0x36'], candidate_hash: '1'.padStart(32, 'e'), reference_hash: 'f'.repeat(32) }]);
    expect(tally.mismatchesByMethod).toEqual([{ method: 'eth_getBalance', mismatched: 1, compared: 2 }]);
    const summary = judgeCorrectness(tally, 100);
    expect(summary.details).toMatchObject({ compared: 2, mismatched: 1, inconclusive: 3, rechecked: 3, recheck_resolved: 1, recheck_confirmed: 1, recheck_failed: 1, recheck_limit: 200 });
    expect(summary.message).toBe(
      '1 of 2 compared responses matched the reference (50%, below min 100%); 3 inconclusive (head moved); 3 head-moved differences re-checked at a fixed block: 1 resolved, 1 confirmed, 1 failed',
    );
  });

  it('a re-check on a pair that no head excuses changes nothing: it is a mismatch with its own params', () => {
    const tally = tallyOfPairs([pair({ candidateHash: 'c'.repeat(32), recheck: { outcome: 'resolved', params: [], candidateHash: 'e'.repeat(32), referenceHash: 'e'.repeat(32) } })]);
    expect(tally).toMatchObject({ mismatched: 1, inconclusive: 0, recheck: { resolved: 0, confirmed: 0, failed: 0 } });
    expect(tally.mismatches[0]!.params).toEqual([ADDR, '0x10']);
  });

  it('spreads the listed mismatches over methods and counts each method (compared = matched + mismatched)', () => {
    const receipts = (i: number) => pair({ method: 'eth_getBlockReceipts', params: [`0x${i.toString(16)}`], candidateHash: `${i}`.padStart(32, 'd') });
    const pairs = [
      ...Array.from({ length: 30 }, (_, i) => receipts(i)),
      ...Array.from({ length: 11 }, (_, i) => mismatch(i)),
      ...Array.from({ length: 5 }, () => match()),
      pair({ method: 'eth_getBlockReceipts', params: ['0x99'] }),
    ];
    const summary = judgePairs(pairs, 0);
    expect(summary.details.mismatches.map((m) => m.method)).toEqual([
      'eth_getBalance', 'eth_getBlockReceipts', 'eth_getBalance', 'eth_getBlockReceipts', 'eth_getBalance',
      'eth_getBlockReceipts', 'eth_getBalance', 'eth_getBlockReceipts', 'eth_getBalance', 'eth_getBlockReceipts',
    ]);
    expect(summary.details.mismatches.filter((m) => m.method === 'eth_getBalance').map((m) => (m.params as string[])[1])).toEqual(['0x0', '0x1', '0x2', '0x3', '0x4']);
    expect(summary.details.mismatches_by_method).toEqual([
      { method: 'eth_getBlockReceipts', mismatched: 30, compared: 31 },
      { method: 'eth_getBalance', mismatched: 11, compared: 16 },
    ]);
  });
});

describe('spreadMismatches', () => {
  const of = (counts: Record<string, number>) =>
    Object.entries(counts).flatMap(([method, n]) => Array.from({ length: n }, (_, i) => ({ method, i })));
  const perMethod = (picked: { method: string }[]) =>
    picked.reduce<Record<string, number>>((acc, m) => ({ ...acc, [m.method]: (acc[m.method] ?? 0) + 1 }), {});
  it.each([
    { name: 'none', counts: {}, expected: {} },
    { name: 'one method fills all 10', counts: { a: 25 }, expected: { a: 10 } },
    { name: 'two methods: 5 each', counts: { a: 30, b: 11 }, expected: { a: 5, b: 5 } },
    { name: 'three methods: ceil(10 / 3) = 4 at most, round-robin by name', counts: { a: 9, b: 9, c: 9 }, expected: { a: 4, b: 3, c: 3 } },
    { name: 'a method with fewer leaves its share to the others', counts: { a: 1, b: 20 }, expected: { a: 1, b: 9 } },
    { name: 'fewer than 10 in all: every one', counts: { a: 2, b: 3 }, expected: { a: 2, b: 3 } },
    { name: 'more than 10 methods: the first 10 by name, one each', counts: Object.fromEntries('abcdefghijkl'.split('').map((m) => [m, 2])), expected: Object.fromEntries('abcdefghij'.split('').map((m) => [m, 1])) },
  ])('$name', ({ counts, expected }) => {
    const picked = spreadMismatches(of(counts));
    expect(perMethod(picked)).toEqual(expected);
    // Within a method, input order is kept.
    for (const method of Object.keys(expected)) {
      expect(picked.filter((m) => m.method === method).map((m) => m.i)).toEqual(Array.from({ length: expected[method]! }, (_, i) => i));
    }
  });

  it('keeps at most 10 mismatches but counts them all', () => {
    const tally = tallyOfPairs(Array.from({ length: 25 }, (_, i) => mismatch(i)));
    expect(tally.mismatched).toBe(25);
    expect(tally.mismatches).toHaveLength(10);
  });

  it('of no pairs is the empty tally', () => {
    expect(tallyOfPairs([])).toEqual(emptyTally());
  });
});

describe('tallyFromCounts (the counts finalize reads from Postgres)', () => {
  const example = { method: 'eth_call', params: [], candidate_hash: 'b', reference_hash: 'a' };
  it('adds matched and skipped over methods; differing pairs count as classified', () => {
    const tally = tallyFromCounts(
      [
        { method: 'eth_call', matched: 90, skipped: 3, differing: 7 },
        { method: 'eth_getBalance', matched: 50, skipped: 0, differing: 5 },
        { method: 'eth_chainId', matched: 10, skipped: 1, differing: 0 },
      ],
      [
        { method: 'eth_call', mismatched: 7, head_moved: 0, confirmed: 0, resolved: 0, recheck_failed: 0 },
        { method: 'eth_getBalance', mismatched: 1, head_moved: 4, confirmed: 1, resolved: 3, recheck_failed: 1 },
      ],
      [example],
    );
    expect(tally).toEqual({
      matched: 150,
      mismatched: 8,
      inconclusive: 4,
      skipped: 4,
      mismatches: [example],
      mismatchesByMethod: [
        { method: 'eth_call', mismatched: 7, compared: 97 },
        { method: 'eth_getBalance', mismatched: 1, compared: 51 },
      ],
      recheck: { resolved: 3, confirmed: 1, failed: 1 },
    });
    // compared + inconclusive + skipped = every candidate sample.
    const judged = judgeCorrectness(tally, 95);
    expect(judged.details.compared + judged.details.inconclusive + judged.details.skipped).toBe(100 + 55 + 11);
    expect(judged.details).toMatchObject({ compared: 158, match_rate_pct: 94.9, rechecked: 5 });
    expect(judged.status).toBe('fail');
  });

  it('no differing pairs (finalize skips the classification) and no counts at all', () => {
    expect(tallyFromCounts([{ method: 'eth_call', matched: 3, skipped: 1, differing: 0 }], [])).toEqual({ ...emptyTally(), matched: 3, skipped: 1 });
    expect(tallyFromCounts([], [])).toEqual(emptyTally());
  });

  it('keeps at most 10 examples, counts every mismatch', () => {
    const examples = Array.from({ length: 12 }, (_, i) => ({ ...example, params: [i] }));
    const tally = tallyFromCounts([{ method: 'eth_call', matched: 0, skipped: 0, differing: 12 }], [{ method: 'eth_call', mismatched: 12, head_moved: 0, confirmed: 0, resolved: 0, recheck_failed: 0 }], examples);
    expect(tally.mismatched).toBe(12);
    expect(tally.mismatches).toEqual(examples.slice(0, 10));
  });
});

describe('judgeCorrectness', () => {
  const tally = (over: Partial<CorrectnessTally>): CorrectnessTally => ({ ...emptyTally(), ...over });

  it.each([
    { name: 'a million matches', t: tally({ matched: 1_000_000 }), min: 100, status: 'pass', rate: 100 },
    { name: 'one mismatch in a million against min 100', t: tally({ matched: 999_999, mismatched: 1 }), min: 100, status: 'fail', rate: 99.9 },
    { name: 'exactly at min 99.9', t: tally({ matched: 999_000, mismatched: 1_000 }), min: 99.9, status: 'pass', rate: 99.9 },
    { name: 'inconclusive and skipped only', t: tally({ inconclusive: 4, skipped: 6 }), min: 0, status: 'fail', rate: null },
    { name: 'empty', t: emptyTally(), min: 0, status: 'fail', rate: null },
  ])('$name → $status', ({ t, min, status, rate }) => {
    const summary = judgeCorrectness(t, min);
    expect(summary.status).toBe(status);
    expect(summary.details).toMatchObject({
      compared: t.matched + t.mismatched,
      matched: t.matched,
      mismatched: t.mismatched,
      inconclusive: t.inconclusive,
      skipped: t.skipped,
      match_rate_pct: rate,
      min_pct: min,
    });
  });

  it('lists at most 10 mismatches whatever the tally holds', () => {
    const mismatches = Array.from({ length: 12 }, (_, i) => ({ method: 'eth_call', params: [i], candidate_hash: 'b', reference_hash: 'a' }));
    expect(judgeCorrectness(tally({ mismatched: 12, mismatches }), 0).details.mismatches).toEqual(mismatches.slice(0, 10));
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
