import { getAddress, TEST_NETWORK, Transaction } from '@scure/btc-signer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bitcoinIntegrity } from '../../src/chains/bitcoin/integrity';
import type { IntegrityAnchor, IntegrityCall, IntegrityContext, IntegrityFinding } from '../../src/chains/types';
import { startBitcoinPair, type BitcoinNode, type BitcoinPair } from '../helpers/bitcoin-nodes';

/*
 * The Bitcoin verifier against REAL regtest nodes on loopback: a litecoind pair (scrypt proof of
 * work, segwit coinbases whose wtxid differs from their txid) with blocks holding transactions
 * signed here and relayed by the nodes, and a btcd pair (sha256d, coinbase-only blocks). The
 * endpoint under verification is the second peer; the anchor is the first peer's tip (the
 * reference's hash of the pinned block). Every honest answer proves; an answer with one output
 * value changed is named by path and value.
 */

type Json = Record<string, any>;

// A fixed key (regtest only): litecoind mines coinbases to its address, so this test can spend them.
const PRIVATE_KEY = new Uint8Array(32).fill(7);
const ADDRESS = getAddress('pkh', PRIVATE_KEY, TEST_NETWORK) as string;

function contextOf(node: BitcoinNode, slug: string | null, anchor: IntegrityAnchor | null): IntegrityContext & { calls: number } {
  const context = {
    calls: 0,
    call: async (method: string, params: unknown[]) => {
      context.calls++;
      return node.rpc(method, params);
    },
    anchor,
    maxAnchorDistance: 256,
    chain: { slug },
    memo: new Map<string, unknown>(),
  };
  return context;
}

async function verifyAll(node: BitcoinNode, context: IntegrityContext, calls: IntegrityCall[]): Promise<{ call: IntegrityCall; finding: IntegrityFinding }[]> {
  const results = [];
  for (const call of calls) results.push({ call, finding: await bitcoinIntegrity.verify(call, await node.rpc(call.method, call.params), context) });
  return results;
}

const notProven = (results: { call: IntegrityCall; finding: IntegrityFinding }[]) =>
  results.filter((r) => r.finding.kind !== 'proven').map((r) => ({ method: r.call.method, params: r.call.params, finding: r.finding }));

/** Signs a transaction spending coinbase `txid`:0 (paid to ADDRESS) to two outputs of ADDRESS, a fee left over. */
async function spendCoinbase(node: BitcoinNode, txid: string, outputs: bigint[]): Promise<string> {
  const previous = (await node.rpc('getrawtransaction', [txid, false])) as string;
  const tx = new Transaction();
  tx.addInput({ txid, index: 0, nonWitnessUtxo: Buffer.from(previous, 'hex') });
  for (const amount of outputs) tx.addOutputAddress(ADDRESS, amount, TEST_NETWORK);
  tx.sign(PRIVATE_KEY);
  tx.finalize();
  return (await node.rpc('sendrawtransaction', [tx.hex])) as string;
}

/** Every provable read of blocks `hashes` and their transactions, in the forms `implementation` takes. */
async function provableCalls(node: BitcoinNode, hashes: string[], verboseTx: true | 1): Promise<IntegrityCall[]> {
  const calls: IntegrityCall[] = [];
  for (const hash of hashes) {
    const block = (await node.rpc('getblock', [hash, 1])) as Json;
    calls.push(
      { method: 'getblockhash', params: [block.height] },
      { method: 'getblockheader', params: [hash, true] },
      { method: 'getblockheader', params: [hash, false] },
      { method: 'getblock', params: [hash, 1] },
      { method: 'getblock', params: [hash, 2] },
      { method: 'getblock', params: [hash, 0] },
    );
    for (const txid of block.tx as string[]) calls.push({ method: 'getrawtransaction', params: [txid, verboseTx] }, { method: 'getrawtransaction', params: [txid, 0] });
  }
  return calls;
}

describe('the Bitcoin integrity verifier against real regtest nodes', () => {
  let litecoin: BitcoinPair;
  let btcd: BitcoinPair;

  beforeAll(async () => {
    [litecoin, btcd] = await Promise.all([startBitcoinPair('litecoind', 0), startBitcoinPair('btcd', 0)]);
  });
  afterAll(async () => {
    await Promise.all([litecoin?.close(), btcd?.close()]);
  });

  describe('litecoind (scrypt proof of work)', () => {
    let spendBlocks: string[];
    let recent: string[];
    let anchor: IntegrityAnchor;
    let spends: string[];

    beforeAll(async () => {
      const matured = (await litecoin.a.rpc('generatetoaddress', [104, ADDRESS])) as string[];
      const coinbases = await Promise.all(matured.slice(0, 4).map(async (hash) => ((await litecoin.a.rpc('getblock', [hash, 1])) as Json).tx[0] as string));
      spends = [];
      for (const txid of coinbases.slice(0, 3)) spends.push(await spendCoinbase(litecoin.a, txid, [1_000_000_000n, 3_999_000_000n]));
      const first = (await litecoin.a.rpc('generatetoaddress', [1, ADDRESS])) as string[];
      spends.push(await spendCoinbase(litecoin.a, coinbases[3] as string, [123_456_789n, 4_876_443_211n]));
      const second = (await litecoin.a.rpc('generatetoaddress', [1, ADDRESS])) as string[];
      const after = (await litecoin.a.rpc('generatetoaddress', [3, ADDRESS])) as string[];
      spendBlocks = [...first, ...second];
      recent = [...matured.slice(-5), ...spendBlocks, ...after];
      const tip = await litecoin.synced();
      const height = (await litecoin.a.rpc('getblockcount')) as number;
      anchor = { number: BigInt(height), hash: tip, source: 'reference' };
    });

    it('mined the signed transactions into two blocks', async () => {
      const [first, second] = await Promise.all(spendBlocks.map(async (hash) => ((await litecoin.b.rpc('getblock', [hash, 1])) as Json).tx as string[]));
      expect(first).toHaveLength(4);
      expect(first).toEqual(expect.arrayContaining(spends.slice(0, 3)));
      expect(second).toEqual([expect.any(String), spends[3]]);
    });

    it('proves every header, block, block hash and transaction of ten recent blocks against the reference anchor', async () => {
      const context = contextOf(litecoin.b, 'litecoin', anchor);
      const calls = await provableCalls(litecoin.b, recent, true);
      const results = await verifyAll(litecoin.b, context, calls);
      expect(notProven(results)).toEqual([]);
      expect(results.length).toBe(10 * 6 + 2 * 14);
      // Transactions answered with their block are proven members of it.
      const inBlocks = results.filter((r) => r.call.method === 'getrawtransaction' && r.call.params[1] === true);
      expect(new Set(inBlocks.map((r) => (r.finding.kind === 'proven' ? r.finding.block : null)))).toEqual(new Set(recent));
      // Segwit coinbases: the wtxid (`hash`) the verifier checked is not the txid.
      const coinbase = (await litecoin.b.rpc('getrawtransaction', [(((await litecoin.b.rpc('getblock', [recent[0], 1])) as Json).tx as string[])[0], true])) as Json;
      expect(coinbase.hash).not.toBe(coinbase.txid);
      // Each header fetched once to link (the anchor down to the oldest block read), whatever the order of reads.
      expect(context.calls).toBeLessThan(40);
    });

    it('proves the same answers with no anchor, against the endpoint\'s own chain', async () => {
      const results = await verifyAll(litecoin.b, contextOf(litecoin.b, 'litecoin', null), await provableCalls(litecoin.b, recent.slice(-4), true));
      expect(notProven(results)).toEqual([]);
    });

    it('checks work under scrypt for slug litecoin: under sha256d honest litecoind headers miss their target', async () => {
      // One at a time: litecoind's RPC work queue holds 16 requests.
      const hashes: string[] = [];
      for (let height = 1; height <= 60; height++) hashes.push((await litecoin.b.rpc('getblockhash', [height])) as string);
      const headerCalls = hashes.map((hash) => ({ method: 'getblockheader', params: [hash, true] }));
      const underScrypt = await verifyAll(litecoin.b, contextOf(litecoin.b, 'litecoin', null), headerCalls);
      expect(notProven(underScrypt)).toEqual([]);
      const underSha256d = await verifyAll(litecoin.b, contextOf(litecoin.b, 'bitcoin', null), headerCalls);
      const missed = underSha256d.filter((r) => r.finding.kind === 'wrong');
      // Regtest's target is about half the hash space: each block misses it under the wrong function with probability about 1/2.
      expect(missed.length).toBeGreaterThan(0);
      for (const { finding } of missed) {
        expect(finding).toMatchObject({ kind: 'wrong', path: '$.bits', message: expect.stringMatching(/^getblockheader: the header's sha256d proof-of-work hash [0-9a-f]{64} is above the target 7fffff0{58} its bits 207fffff set \(proof of work is sha256d for the chain "bitcoin"; a Litecoin or Dogecoin chain proves its work with scrypt: give its slug the prefix litecoin- or dogecoin-\)$/) });
      }
    });

    it('catches one output value changed, in a transaction and in a block, naming path and values', async () => {
      const context = contextOf(litecoin.b, 'litecoin', anchor);
      const txid = spends[3] as string;
      const answer = (await litecoin.b.rpc('getrawtransaction', [txid, true])) as Json;
      expect(answer.vout[0].value).toBe(1.23456789);
      const tampered = { ...answer, vout: [{ ...answer.vout[0], value: 1.23456788 }, answer.vout[1]] };
      expect(await bitcoinIntegrity.verify({ method: 'getrawtransaction', params: [txid, true] }, tampered, context)).toEqual({
        kind: 'wrong',
        block: spendBlocks[1],
        path: '$.vout[0].value',
        message: "getrawtransaction: answered 1.23456788, the raw transaction's output 0 holds 1.23456789 (123456789 base units)",
      });
      const block = (await litecoin.b.rpc('getblock', [spendBlocks[1], 2])) as Json;
      block.tx[1].vout[1].value = 50;
      expect(await bitcoinIntegrity.verify({ method: 'getblock', params: [spendBlocks[1], 2] }, block, context)).toMatchObject({
        kind: 'wrong',
        block: spendBlocks[1],
        path: '$.tx[1].vout[1].value',
        message: "getblock: answered 50, the raw transaction's output 1 holds 48.76443211 (4876443211 base units)",
      });
      // The hex altered to match: the txid no longer is the one asked for.
      const output = (123_456_789).toString(16).padStart(16, '0').match(/../g)!.reverse().join('');
      const rawTampered = { ...answer, hex: (answer.hex as string).replace(output, (123_456_788).toString(16).padStart(16, '0').match(/../g)!.reverse().join('')), vout: tampered.vout };
      expect(await bitcoinIntegrity.verify({ method: 'getrawtransaction', params: [txid, true] }, rawTampered, context)).toMatchObject({ kind: 'wrong', path: '$.txid' });
    });

    it('refuses a transaction claimed in a block that does not hold it', async () => {
      const context = contextOf(litecoin.b, 'litecoin', anchor);
      const txid = spends[3] as string;
      const answer = (await litecoin.b.rpc('getrawtransaction', [txid, true])) as Json;
      expect(await bitcoinIntegrity.verify({ method: 'getrawtransaction', params: [txid, true] }, { ...answer, blockhash: spendBlocks[0] }, context)).toEqual({
        kind: 'wrong',
        block: spendBlocks[0],
        path: '$.blockhash',
        message: `getrawtransaction: transaction ${txid} is not among the 4 transactions of block ${spendBlocks[0]}, whose merkle root is proven`,
      });
    });
  });

  describe('btcd (sha256d proof of work)', () => {
    let blocks: string[];
    let anchor: IntegrityAnchor;

    beforeAll(async () => {
      blocks = await btcd.mine(12);
      const height = (await btcd.a.rpc('getblockcount')) as number;
      anchor = { number: BigInt(height), hash: blocks[blocks.length - 1] as string, source: 'reference' };
    });

    it('proves headers, merkle roots and coinbase transactions of every block, anchored and not', async () => {
      const calls = await provableCalls(btcd.b, blocks, 1);
      const anchored = await verifyAll(btcd.b, contextOf(btcd.b, 'bitcoin', anchor), calls);
      expect(notProven(anchored)).toEqual([]);
      expect(anchored.length).toBe(12 * 6 + 12 * 2);
      const selfConsistent = await verifyAll(btcd.b, contextOf(btcd.b, null, null), calls);
      expect(notProven(selfConsistent)).toEqual([]);
    });

    it('catches a coinbase output value changed', async () => {
      const block = (await btcd.b.rpc('getblock', [blocks[3], 1])) as Json;
      const txid = block.tx[0] as string;
      const answer = (await btcd.b.rpc('getrawtransaction', [txid, 1])) as Json;
      const tampered = { ...answer, vout: [{ ...answer.vout[0], value: answer.vout[0].value + 1 }, ...answer.vout.slice(1)] };
      const finding = await bitcoinIntegrity.verify({ method: 'getrawtransaction', params: [txid, 1] }, tampered, contextOf(btcd.b, 'bitcoin', anchor));
      expect(finding).toMatchObject({ kind: 'wrong', path: '$.vout[0].value', message: `getrawtransaction: answered ${answer.vout[0].value + 1}, the raw transaction's output 0 holds ${answer.vout[0].value} (${Math.round(answer.vout[0].value * 1e8)} base units)` });
    });

    it('says what it cannot prove', async () => {
      const context = contextOf(btcd.b, 'bitcoin', anchor);
      const info = await btcd.b.rpc('getblockchaininfo');
      expect(await bitcoinIntegrity.verify({ method: 'getblockchaininfo', params: [] }, info, context)).toEqual({ kind: 'not_provable', reason: expect.stringMatching(/^getblockchaininfo: /) });
      expect(context.calls).toBe(0);
    });
  });
});
