import { createBlockHeaderFromRPC } from '@ethereumjs/block';
import { Common, Hardfork, Mainnet } from '@ethereumjs/common';
import { createTx } from '@ethereumjs/tx';
import { describe, expect, it } from 'vitest';
import { EMPTY_LIST_HASH, Malformed, Unprovable, headerHash, receiptBytes, toHex, transactionBytes, keccak } from '../../../src/chains/evm/integrity-encoding';

/*
 * The EVM consensus encodings the integrity verifier rebuilds (issue 34, DESIGN.md §15), checked
 * against an independent implementation: @ethereumjs/block's header hash under each fork's
 * rules, @ethereumjs/tx's serialisation and hash of each transaction type.
 */

const h32 = (byte: string) => `0x${byte.repeat(32)}`;

const base = {
  parentHash: h32('11'),
  sha3Uncles: EMPTY_LIST_HASH,
  miner: `0x${'22'.repeat(20)}`,
  stateRoot: h32('33'),
  transactionsRoot: h32('44'),
  receiptsRoot: h32('55'),
  logsBloom: `0x${'00'.repeat(255)}01`,
  number: '0x12d687',
  gasLimit: '0x1c9c380',
  gasUsed: '0x5208',
  timestamp: '0x65f1b2c3',
  extraData: '0x6265617665726275696c642e6f7267',
  mixHash: h32('66'),
  nonce: '0x0000000000000000',
};

const FORKS: [string, Hardfork, Record<string, string>][] = [
  ['chainstart (proof of work)', Hardfork.Chainstart, { difficulty: '0x2d8a3e0b4c1f', nonce: '0x1a2b3c4d5e6f7081', mixHash: h32('77') }],
  ['london', Hardfork.London, { difficulty: '0x2d8a3e0b4c1f', baseFeePerGas: '0x3b9aca00' }],
  ['shanghai', Hardfork.Shanghai, { difficulty: '0x0', baseFeePerGas: '0x7', withdrawalsRoot: h32('88') }],
  ['cancun', Hardfork.Cancun, { difficulty: '0x0', baseFeePerGas: '0x7', withdrawalsRoot: h32('88'), blobGasUsed: '0x20000', excessBlobGas: '0x0', parentBeaconBlockRoot: h32('99') }],
  ['prague', Hardfork.Prague, { difficulty: '0x0', baseFeePerGas: '0x7', withdrawalsRoot: h32('88'), blobGasUsed: '0x0', excessBlobGas: '0x4b0000', parentBeaconBlockRoot: h32('99'), requestsHash: h32('aa') }],
];

describe('headerHash', () => {
  it.each(FORKS)('hashes a %s header as @ethereumjs/block does', (_name, hardfork, fields) => {
    const block = { ...base, ...fields };
    const common = new Common({ chain: Mainnet, hardfork });
    const expected = toHex(createBlockHeaderFromRPC(block as never, { common, skipConsensusFormatValidation: true }).hash());
    expect(headerHash(block)).toBe(expected);
  });

  it.each([
    ['a field of a later fork without one of an earlier', { ...base, difficulty: '0x0', withdrawalsRoot: h32('88') }, '$.withdrawalsRoot'],
    ['a hash of the wrong length', { ...base, difficulty: '0x0', stateRoot: '0x1234' }, '$.stateRoot'],
    ['a quantity that is not hex', { ...base, difficulty: 'lots' }, '$.difficulty'],
    ['a quantity over 256 bits', { ...base, difficulty: `0x1${'0'.repeat(64)}` }, '$.difficulty'],
    ['odd-length data', { ...base, difficulty: '0x0', extraData: '0x123' }, '$.extraData'],
  ])('refuses %s (Malformed, naming the field)', (_name, block, path) => {
    expect(() => headerHash(block)).toThrow(Malformed);
    try {
      headerHash(block);
    } catch (error) {
      expect((error as Malformed).path).toBe(path);
    }
  });
});

const KEY = Uint8Array.from(Buffer.from('4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318', 'hex'));
// A blob transaction without its blobs needs no KZG, but @ethereumjs/tx asks that Common carry one.
const noKzg = new Proxy({}, { get: () => () => { throw new Error('no KZG in this test'); } });
const common = new Common({ chain: Mainnet, hardfork: Hardfork.Prague, customCrypto: { kzg: noKzg as never } });
const to = `0x${'35'.repeat(20)}`;
const access = [{ address: to, storageKeys: [h32('01')] }];

const TRANSACTIONS: [string, Record<string, unknown>][] = [
  ['legacy (EIP-155)', { type: 0, nonce: 9, gasPrice: 20_000_000_000n, gasLimit: 21_000, to, value: 10n ** 18n }],
  ['legacy contract creation', { type: 0, nonce: 0, gasPrice: 1n, gasLimit: 100_000, data: '0x602a600055' }],
  ['access list (EIP-2930)', { type: 1, chainId: 1, nonce: 1, gasPrice: 7n, gasLimit: 50_000, to, value: 1n, data: '0xabcdef', accessList: access }],
  ['fee market (EIP-1559)', { type: 2, chainId: 1, nonce: 2, maxPriorityFeePerGas: 1n, maxFeePerGas: 100n, gasLimit: 50_000, to, value: 0n, accessList: access }],
  ['blob (EIP-4844)', { type: 3, chainId: 1, nonce: 3, maxPriorityFeePerGas: 1n, maxFeePerGas: 100n, maxFeePerBlobGas: 5n, gasLimit: 50_000, to, blobVersionedHashes: [`0x01${'ab'.repeat(31)}`] }],
  [
    'set code (EIP-7702)',
    { type: 4, chainId: 1, nonce: 4, maxPriorityFeePerGas: 1n, maxFeePerGas: 100n, gasLimit: 80_000, to, authorizationList: [{ chainId: '0x1', address: to, nonce: '0x5', yParity: '0x1', r: h32('0a'), s: h32('0b') }] },
  ],
];

/** A transaction as an EVM node's JSON-RPC writes it, from @ethereumjs/tx's JSON. */
function rpcTransaction(json: Record<string, unknown>, type: number): Record<string, unknown> {
  const { gasLimit, data, ...rest } = json;
  return { ...rest, type: `0x${type.toString(16)}`, gas: gasLimit, input: data, to: json.to ?? null };
}

describe('transactionBytes', () => {
  it.each(TRANSACTIONS)('encodes a %s transaction as @ethereumjs/tx serialises it', (_name, fields) => {
    const tx = createTx(fields as never, { common }).sign(KEY);
    const rpc = rpcTransaction(tx.toJSON() as Record<string, unknown>, fields.type as number);
    const bytes = transactionBytes(rpc);
    expect(toHex(bytes)).toBe(toHex(tx.serialize()));
    expect(toHex(keccak(bytes))).toBe(toHex(tx.hash()));
  });

  it('a changed field changes the hash; an unknown type is Unprovable; a bad field is Malformed', () => {
    const tx = createTx(TRANSACTIONS[3]?.[1] as never, { common }).sign(KEY);
    const rpc = rpcTransaction(tx.toJSON() as Record<string, unknown>, 2);
    expect(toHex(keccak(transactionBytes({ ...rpc, value: '0x1' })))).not.toBe(toHex(tx.hash()));
    expect(() => transactionBytes({ ...rpc, type: '0x7e' })).toThrow(Unprovable);
    expect(() => transactionBytes({ ...rpc, to: '0x12' })).toThrow(Malformed);
  });
});

describe('receiptBytes', () => {
  const receipt = {
    type: '0x2',
    status: '0x1',
    cumulativeGasUsed: '0x5208',
    logsBloom: `0x${'00'.repeat(256)}`,
    logs: [{ address: to, topics: [h32('aa')], data: '0x07' }],
  };
  it.each([
    ['a typed receipt: type byte, then [status, cumulativeGasUsed, bloom, logs]', receipt, `0x02f9${''}`],
    ['a legacy receipt: no type byte', { ...receipt, type: '0x0' }, '0xf9'],
  ])('%s', (_name, value, prefix) => {
    expect(toHex(receiptBytes(value)).startsWith(prefix)).toBe(true);
  });
  it('status 0 and 1 differ; a pre-Byzantium root is read when there is no status; more than four topics is Unprovable', () => {
    expect(toHex(receiptBytes({ ...receipt, status: '0x0' }))).not.toBe(toHex(receiptBytes(receipt)));
    const withoutStatus: Record<string, unknown> = { ...receipt };
    delete withoutStatus.status;
    expect(() => receiptBytes({ ...withoutStatus, root: h32('12') })).not.toThrow();
    expect(() => receiptBytes(withoutStatus)).toThrow(Malformed);
    expect(() => receiptBytes({ ...receipt, logs: [{ address: to, topics: [1, 2, 3, 4, 5].map(() => h32('aa')), data: '0x' }] })).toThrow(Unprovable);
  });
});
