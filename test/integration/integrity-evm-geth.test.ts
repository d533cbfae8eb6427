import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHAINS } from '../../src/chains/registry';
import type { IntegrityAnchor, IntegrityCall, IntegrityContext, IntegrityVerifier, PinCall } from '../../src/chains/types';
import { gethFixture } from '../helpers/geth';

/*
 * The EVM verifier (issue 34) against a second client: REAL geth --dev (post-merge, Cancun and
 * Prague header fields, withdrawals root), with a legacy, an access-list and a fee-market
 * transaction (a contract creation that writes storage and emits a log). Every provable answer
 * verifies — no false integrity failure — and a changed balance is found wrong.
 */

const evmIntegrity = CHAINS.evm?.integrity as IntegrityVerifier;
// SSTORE(0, 42); MSTORE(0, 7); LOG1(0, 32, topic 0xaa); RETURN one byte of code.
const INIT_CODE = '0x602a600055600760005260aa60206000a16001601ff3';
const geth = gethFixture({ periodS: 1 });

let from: string;
let contract: string;
let txHashes: string[];
let txBlock: string;
let txBlockHash: string;
let anchor: IntegrityAnchor;

beforeAll(async () => {
  await geth.start();
  [from] = (await geth.node.rpc('eth_accounts')) as [string];
  const to = `0x${'42'.repeat(20)}`;
  const nonce = BigInt((await geth.node.rpc('eth_getTransactionCount', [from, 'pending'])) as string);
  const at = (n: bigint) => `0x${(nonce + n).toString(16)}`;
  txHashes = [
    (await geth.node.rpc('eth_sendTransaction', [{ from, to, value: '0x1234', gas: '0x5208', gasPrice: '0x77359400', nonce: at(0n) }])) as string,
    (await geth.node.rpc('eth_sendTransaction', [{ from, to, value: '0x10', gas: '0x7530', gasPrice: '0x77359400', accessList: [{ address: to, storageKeys: [`0x${'0'.repeat(63)}1`] }], nonce: at(1n) }])) as string,
    (await geth.node.rpc('eth_sendTransaction', [{ from, data: INIT_CODE, gas: '0x30d40', maxFeePerGas: '0x77359400', maxPriorityFeePerGas: '0x1', nonce: at(2n) }])) as string,
  ];
  const receipts: Record<string, string>[] = [];
  for (const hash of txHashes) {
    for (let i = 0; i < 300; i += 1) {
      const r = (await geth.node.rpc('eth_getTransactionReceipt', [hash])) as Record<string, string> | null;
      if (r) {
        receipts.push(r);
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  if (receipts.length !== 3) throw new Error(`geth mined ${receipts.length} of the 3 transactions`);
  contract = receipts[2]?.contractAddress as string;
  txBlock = receipts[2]?.blockNumber as string;
  txBlockHash = receipts[2]?.blockHash as string;
  const head = BigInt(txBlock) + 2n;
  for (let i = 0; i < 100 && BigInt((await geth.node.rpc('eth_blockNumber')) as string) < head; i += 1) await new Promise((resolve) => setTimeout(resolve, 200));
  const block = (await geth.node.rpc('eth_getBlockByNumber', [`0x${head.toString(16)}`, false])) as { hash: string };
  anchor = { number: head, hash: block.hash, source: 'reference' };
}, 120_000);

afterAll(async () => {
  await geth.close();
});

function context(tamper?: (method: string, result: unknown) => unknown): IntegrityContext {
  const call: PinCall = async (method, params) => {
    const result = await geth.node.rpc(method, params);
    return tamper ? tamper(method, result) : result;
  };
  return { call, anchor, maxAnchorDistance: 64, chain: { slug: null }, memo: new Map() };
}

describe('evmIntegrity against geth --dev', () => {
  it('proves every provable answer (0 false failures)', async () => {
    const calls: IntegrityCall[] = [
      { method: 'eth_getBlockByNumber', params: [txBlock, true] },
      { method: 'eth_getBlockByNumber', params: [txBlock, false] },
      { method: 'eth_getBlockByHash', params: [txBlockHash, true] },
      { method: 'eth_getBlockByNumber', params: ['0x1', true] },
      ...txHashes.map((hash) => ({ method: 'eth_getTransactionByHash', params: [hash] })),
      ...txHashes.map((hash) => ({ method: 'eth_getTransactionReceipt', params: [hash] })),
      { method: 'eth_getBlockReceipts', params: [txBlock] },
      { method: 'eth_getLogs', params: [{ fromBlock: txBlock, toBlock: txBlock }] },
      { method: 'eth_getLogs', params: [{ blockHash: txBlockHash, address: contract }] },
      { method: 'eth_getBalance', params: [from, txBlock] },
      { method: 'eth_getTransactionCount', params: [from, txBlock] },
      { method: 'eth_getCode', params: [contract, txBlock] },
      { method: 'eth_getStorageAt', params: [contract, '0x0', txBlock] },
      { method: 'eth_getStorageAt', params: [contract, '0x7', txBlock] },
    ];
    const ctx = context();
    for (const call of calls) {
      const finding = await evmIntegrity.verify(call, await ctx.call(call.method, call.params), ctx);
      expect({ call, finding }).toMatchObject({ call, finding: { kind: 'proven' } });
    }
    // The chain has the fields of the latest forks: the header hash covered them.
    const block = (await geth.node.rpc('eth_getBlockByNumber', [txBlock, false])) as Record<string, unknown>;
    expect(Object.keys(block)).toEqual(expect.arrayContaining(['baseFeePerGas', 'withdrawalsRoot', 'blobGasUsed', 'parentBeaconBlockRoot']));
  });

  it('finds a changed balance wrong', async () => {
    const ctx = context((method, result) => (method === 'eth_getBalance' ? '0x1' : result));
    const call = { method: 'eth_getBalance', params: [from, txBlock] };
    const finding = await evmIntegrity.verify(call, await ctx.call(call.method, call.params), ctx);
    expect(finding).toMatchObject({ kind: 'wrong', path: '$', message: expect.stringMatching(/answered 1 wei, the account proof against stateRoot/) });
  });
});
