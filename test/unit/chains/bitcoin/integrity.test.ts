import { describe, expect, it } from 'vitest';
import { headerHash, powFunctionOf, serializeHeader, targetOf, type BlockHeader } from '../../../../src/chains/bitcoin/block-header';
import { bitcoinIntegrity } from '../../../../src/chains/bitcoin/integrity';
import { merkleBranch, merkleRoot, rootFromBranch } from '../../../../src/chains/bitcoin/merkle';
import type { IntegrityAnchor, IntegrityCall, IntegrityContext, IntegrityFinding } from '../../../../src/chains/types';

/*
 * The Bitcoin verifier on fixed vectors: the Bitcoin and Litecoin genesis blocks (their published
 * headers, hashes and coinbase), and a short regtest-difficulty chain built here (nonces found by
 * counting up, so the same every run) for the parent-hash links to an anchor. The endpoint the
 * verifier fetches proofs from is a table of answers.
 */

const BITCOIN_GENESIS_HASH = '000000000019d6689c085ae165831e934ff763ae46a2a6c172b3f1b60a8ce26f';
const BITCOIN_GENESIS: BlockHeader = {
  version: 1,
  previousblockhash: '0'.repeat(64),
  merkleroot: '4a5e1e4baab89f3a32518a88c31bc87f618f76673e2cc77ab2127b7afdeda33b',
  time: 1231006505,
  bits: 0x1d00ffff,
  nonce: 2083236893,
};
const BITCOIN_GENESIS_COINBASE =
  '01000000010000000000000000000000000000000000000000000000000000000000000000ffffffff4d04ffff001d0104455468652054696d65732030332f4a616e2f32303039204368616e63656c6c6f72206f6e206272696e6b206f66207365636f6e64206261696c6f757420666f722062616e6b73ffffffff0100f2052a01000000434104678afdb0fe5548271967f1a67130b7105cd6a828e03909a67962e0ea1f61deb649f6bc3f4cef38c4f35504e51ec112de5c384df7ba0b8d578a4c702b6bf11d5fac00000000';
const BITCOIN_GENESIS_SCRIPT_PUBKEY =
  '4104678afdb0fe5548271967f1a67130b7105cd6a828e03909a67962e0ea1f61deb649f6bc3f4cef38c4f35504e51ec112de5c384df7ba0b8d578a4c702b6bf11d5fac';

const LITECOIN_GENESIS_HASH = '12a765e31ffd4059bada1e25190f6e98c99d9714d334efa41a195a7e7e04bfe2';
const LITECOIN_GENESIS: BlockHeader = {
  version: 1,
  previousblockhash: '0'.repeat(64),
  merkleroot: '97ddfbbae6be97fd6cdf3e7ca13232a3afff2353e29badfab7f73011edd4ced9',
  time: 1317972665,
  bits: 0x1e0ffff0,
  nonce: 2084524493,
};

const GENESIS_RAW_BLOCK = `${serializeHeader(BITCOIN_GENESIS).toString('hex')}01${BITCOIN_GENESIS_COINBASE}`;
const TAMPERED_COINBASE_TXID = headerHash(Buffer.from(BITCOIN_GENESIS_COINBASE.replace('0100f2052a01', '0100f3052a01'), 'hex'));

const bitsHex = (bits: number) => bits.toString(16).padStart(8, '0');

/** A verbose header answer (getblockheader true) of `header` at `height`, as Core writes it. */
function verboseHeader(header: BlockHeader, hash: string, height: number): Record<string, unknown> {
  return {
    hash,
    height,
    version: header.version,
    merkleroot: header.merkleroot,
    time: header.time,
    nonce: header.nonce,
    bits: bitsHex(header.bits),
    ...(header.previousblockhash === '0'.repeat(64) ? {} : { previousblockhash: header.previousblockhash }),
  };
}

const genesisCoinbaseVerbose = () => ({
  txid: BITCOIN_GENESIS.merkleroot,
  hash: BITCOIN_GENESIS.merkleroot,
  version: 1,
  size: 204,
  locktime: 0,
  vin: [
    {
      coinbase:
        '04ffff001d0104455468652054696d65732030332f4a616e2f32303039204368616e63656c6c6f72206f6e206272696e6b206f66207365636f6e64206261696c6f757420666f722062616e6b73',
      sequence: 4294967295,
    },
  ],
  vout: [{ value: 50, n: 0, scriptPubKey: { hex: BITCOIN_GENESIS_SCRIPT_PUBKEY } }],
  hex: BITCOIN_GENESIS_COINBASE,
});

interface Endpoint {
  /** Answers by `${method} ${JSON.stringify(params)}`. */
  answers: Map<string, unknown>;
  calls: string[];
}

function context(endpoint: Endpoint, over: { anchor?: IntegrityAnchor | null; slug?: string | null; maxAnchorDistance?: number } = {}): IntegrityContext {
  return {
    call: async (method, params) => {
      const key = `${method} ${JSON.stringify(params)}`;
      endpoint.calls.push(key);
      if (!endpoint.answers.has(key)) throw new Error(`no answer for ${key}`);
      return endpoint.answers.get(key);
    },
    anchor: over.anchor === undefined ? null : over.anchor,
    maxAnchorDistance: over.maxAnchorDistance ?? 100,
    chain: { slug: over.slug === undefined ? 'bitcoin' : over.slug },
    memo: new Map(),
  };
}

const emptyEndpoint = (): Endpoint => ({ answers: new Map(), calls: [] });
const genesisAnchor: IntegrityAnchor = { number: 0n, hash: BITCOIN_GENESIS_HASH, source: 'trusted_block' };

describe('fixed vectors', () => {
  it('rebuilds the Bitcoin and Litecoin genesis hashes from their fields', () => {
    expect(headerHash(serializeHeader(BITCOIN_GENESIS))).toBe(BITCOIN_GENESIS_HASH);
    expect(headerHash(serializeHeader(LITECOIN_GENESIS))).toBe(LITECOIN_GENESIS_HASH);
  });

  it('decodes compact targets as Core does, refusing zero and negative ones', () => {
    expect(targetOf(0x1d00ffff)).toBe(0xffffn << 208n);
    expect(targetOf(0x207fffff)).toBe(0x7fffffn << 232n);
    expect(targetOf(0x03123456)).toBe(0x123456n);
    expect(targetOf(0x00000000)).toBeNull();
    expect(targetOf(0x04923456)).toBeNull();
  });

  it.each([
    ['bitcoin', 'sha256d'],
    ['bitcoin-testnet4', 'sha256d'],
    ['litecoin', 'scrypt'],
    ['litecoin-testnet', 'scrypt'],
    ['dogecoin', 'scrypt'],
    ['litecoinish', 'sha256d'],
    [null, 'sha256d'],
  ] as const)('chain %s proves work under %s', (slug, pow) => {
    expect(powFunctionOf(slug)).toBe(pow);
  });

  it('builds merkle roots and branches over txids (odd levels repeat their last node)', () => {
    const txids = ['11', '22', '33', '44', '55'].map((byte) => byte.repeat(32));
    const root = merkleRoot(txids);
    txids.forEach((txid, index) => expect(rootFromBranch(txid, index, merkleBranch(txids, index))).toBe(root));
    expect(rootFromBranch(txids[1] as string, 1, merkleBranch(txids, 0))).not.toBe(root);
    expect(merkleRoot([BITCOIN_GENESIS.merkleroot])).toBe(BITCOIN_GENESIS.merkleroot);
  });
});

type Case = {
  name: string;
  call: IntegrityCall;
  answer: unknown;
  slug?: string | null;
  anchor?: IntegrityAnchor | null;
  expected: Partial<Extract<IntegrityFinding, { kind: 'wrong' }>> | { kind: 'proven'; block: string | null } | { kind: 'not_provable'; reason?: RegExp };
};

const genesisBlock = (over: Record<string, unknown> = {}) => ({ ...verboseHeader(BITCOIN_GENESIS, BITCOIN_GENESIS_HASH, 0), tx: [BITCOIN_GENESIS.merkleroot], nTx: 1, ...over });

const cases: Case[] = [
  {
    name: 'Bitcoin genesis header (verbose)',
    call: { method: 'getblockheader', params: [BITCOIN_GENESIS_HASH, true] },
    answer: verboseHeader(BITCOIN_GENESIS, BITCOIN_GENESIS_HASH, 0),
    anchor: genesisAnchor,
    expected: { kind: 'proven', block: BITCOIN_GENESIS_HASH },
  },
  {
    name: 'Bitcoin genesis header (raw hex)',
    call: { method: 'getblockheader', params: [BITCOIN_GENESIS_HASH, false] },
    answer: serializeHeader(BITCOIN_GENESIS).toString('hex'),
    expected: { kind: 'proven', block: BITCOIN_GENESIS_HASH },
  },
  {
    name: 'Litecoin genesis header under scrypt',
    call: { method: 'getblockheader', params: [LITECOIN_GENESIS_HASH] },
    answer: verboseHeader(LITECOIN_GENESIS, LITECOIN_GENESIS_HASH, 0),
    slug: 'litecoin',
    anchor: { number: 0n, hash: LITECOIN_GENESIS_HASH, source: 'reference' },
    expected: { kind: 'proven', block: LITECOIN_GENESIS_HASH },
  },
  {
    name: 'Litecoin genesis header under sha256d misses its target',
    call: { method: 'getblockheader', params: [LITECOIN_GENESIS_HASH] },
    answer: verboseHeader(LITECOIN_GENESIS, LITECOIN_GENESIS_HASH, 0),
    slug: 'bitcoin',
    anchor: { number: 0n, hash: LITECOIN_GENESIS_HASH, source: 'reference' },
    expected: { kind: 'wrong', path: '$.bits', message: `getblockheader: the header's sha256d proof-of-work hash ${LITECOIN_GENESIS_HASH} is above the target ${(0x0ffff0n << 216n).toString(16).padStart(64, '0')} its bits 1e0ffff0 set (proof of work is sha256d for the chain "bitcoin"; a Litecoin or Dogecoin chain proves its work with scrypt: give its slug the prefix litecoin- or dogecoin-)` },
  },
  {
    name: 'a header with a field altered',
    call: { method: 'getblockheader', params: [BITCOIN_GENESIS_HASH, true] },
    answer: verboseHeader({ ...BITCOIN_GENESIS, time: BITCOIN_GENESIS.time + 1 }, BITCOIN_GENESIS_HASH, 0),
    anchor: genesisAnchor,
    expected: { kind: 'wrong', block: BITCOIN_GENESIS_HASH, path: '$ (version, previousblockhash, merkleroot, time, bits, nonce)' },
  },
  {
    name: 'a malformed header: bits not hex',
    call: { method: 'getblockheader', params: [BITCOIN_GENESIS_HASH, true] },
    answer: { ...verboseHeader(BITCOIN_GENESIS, BITCOIN_GENESIS_HASH, 0), bits: 'zz00ffff' },
    expected: { kind: 'wrong', path: '$.bits' },
  },
  {
    name: 'a malformed header: raw hex one byte short',
    call: { method: 'getblockheader', params: [BITCOIN_GENESIS_HASH, false] },
    answer: serializeHeader(BITCOIN_GENESIS).toString('hex').slice(2),
    expected: { kind: 'wrong', path: '$' },
  },
  {
    name: 'a malformed header: not an object',
    call: { method: 'getblockheader', params: [BITCOIN_GENESIS_HASH, true] },
    answer: [1, 2, 3],
    expected: { kind: 'wrong', path: '$' },
  },
  {
    name: 'a header of another block than asked',
    call: { method: 'getblockheader', params: [LITECOIN_GENESIS_HASH, true] },
    answer: verboseHeader(BITCOIN_GENESIS, BITCOIN_GENESIS_HASH, 0),
    expected: { kind: 'wrong', path: '$.hash' },
  },
  {
    name: 'Bitcoin genesis block (verbosity 1)',
    call: { method: 'getblock', params: [BITCOIN_GENESIS_HASH, 1] },
    answer: genesisBlock(),
    anchor: genesisAnchor,
    expected: { kind: 'proven', block: BITCOIN_GENESIS_HASH },
  },
  {
    name: 'Bitcoin genesis block (verbosity 2)',
    call: { method: 'getblock', params: [BITCOIN_GENESIS_HASH, 2] },
    answer: genesisBlock({ tx: [genesisCoinbaseVerbose()] }),
    anchor: genesisAnchor,
    expected: { kind: 'proven', block: BITCOIN_GENESIS_HASH },
  },
  {
    name: 'a tampered merkleroot',
    call: { method: 'getblock', params: [BITCOIN_GENESIS_HASH, 1] },
    answer: genesisBlock({ merkleroot: 'ab'.repeat(32) }),
    anchor: genesisAnchor,
    expected: { kind: 'wrong', block: BITCOIN_GENESIS_HASH, path: '$.merkleroot' },
  },
  {
    name: 'a tampered transaction list',
    call: { method: 'getblock', params: [BITCOIN_GENESIS_HASH, 1] },
    answer: genesisBlock({ tx: [BITCOIN_GENESIS.merkleroot, 'cd'.repeat(32)], nTx: 2 }),
    anchor: genesisAnchor,
    expected: { kind: 'wrong', block: BITCOIN_GENESIS_HASH, path: '$.tx' },
  },
  {
    name: 'a tampered transaction in a block (verbosity 2): output value',
    call: { method: 'getblock', params: [BITCOIN_GENESIS_HASH, 2] },
    answer: genesisBlock({ tx: [{ ...genesisCoinbaseVerbose(), vout: [{ value: 49, n: 0, scriptPubKey: { hex: BITCOIN_GENESIS_SCRIPT_PUBKEY } }] }] }),
    anchor: genesisAnchor,
    expected: { kind: 'wrong', path: '$.tx[0].vout[0].value', message: "getblock: answered 49, the raw transaction's output 0 holds 50 (5000000000 base units)" },
  },
  {
    name: 'a raw transaction hashing to the txid asked for',
    call: { method: 'getrawtransaction', params: [BITCOIN_GENESIS.merkleroot, false] },
    answer: BITCOIN_GENESIS_COINBASE,
    expected: { kind: 'proven', block: null },
  },
  {
    name: 'a verbose transaction matching its hex',
    call: { method: 'getrawtransaction', params: [BITCOIN_GENESIS.merkleroot, true] },
    answer: genesisCoinbaseVerbose(),
    expected: { kind: 'proven', block: null },
  },
  {
    name: 'a tampered raw transaction (one byte of its output value)',
    call: { method: 'getrawtransaction', params: [BITCOIN_GENESIS.merkleroot, false] },
    answer: BITCOIN_GENESIS_COINBASE.replace('0100f2052a01', '0100f3052a01'),
    expected: { kind: 'wrong', path: '$' },
  },
  {
    name: 'a verbose transaction whose decoded scriptPubKey is not its hex',
    call: { method: 'getrawtransaction', params: [BITCOIN_GENESIS.merkleroot, true] },
    answer: { ...genesisCoinbaseVerbose(), vout: [{ value: 50, n: 0, scriptPubKey: { hex: '51' } }] },
    expected: { kind: 'wrong', path: '$.vout[0].scriptPubKey.hex' },
  },
  {
    name: 'a raw transaction that does not parse',
    call: { method: 'getrawtransaction', params: [BITCOIN_GENESIS.merkleroot, false] },
    answer: BITCOIN_GENESIS_COINBASE.slice(0, 100),
    expected: { kind: 'wrong', path: '$' },
  },
  {
    name: 'a raw transaction longer than any block holds',
    call: { method: 'getrawtransaction', params: [BITCOIN_GENESIS.merkleroot, false] },
    answer: '00'.repeat(4_000_001),
    expected: { kind: 'wrong', path: '$' },
  },
  {
    name: 'a transaction in an extended serialization (MWEB flag)',
    call: { method: 'getrawtransaction', params: [BITCOIN_GENESIS.merkleroot, false] },
    answer: `0200000000080000`,
    expected: { kind: 'not_provable', reason: /flag 0x08/ },
  },
  { name: 'gettxout', call: { method: 'gettxout', params: [BITCOIN_GENESIS.merkleroot, 0] }, answer: {}, expected: { kind: 'not_provable', reason: /UTXO set/ } },
  { name: 'getmempoolinfo', call: { method: 'getmempoolinfo', params: [] }, answer: {}, expected: { kind: 'not_provable', reason: /mempool/ } },
  { name: 'estimatesmartfee', call: { method: 'estimatesmartfee', params: [6] }, answer: {}, expected: { kind: 'not_provable', reason: /fee estimates/ } },
  {
    name: 'Bitcoin genesis raw block (verbosity 0)',
    call: { method: 'getblock', params: [BITCOIN_GENESIS_HASH, 0] },
    answer: GENESIS_RAW_BLOCK,
    expected: { kind: 'proven', block: BITCOIN_GENESIS_HASH },
  },
  {
    name: 'a raw block with a tampered transaction',
    call: { method: 'getblock', params: [BITCOIN_GENESIS_HASH, 0] },
    answer: GENESIS_RAW_BLOCK.replace('0100f2052a01', '0100f3052a01'),
    expected: { kind: 'wrong', path: '$', message: `getblock: the block's 1 transactions build merkle root ${merkleRoot([TAMPERED_COINBASE_TXID])}, not the proven header's ${BITCOIN_GENESIS.merkleroot}` },
  },
  {
    name: 'a raw block with bytes after its transactions',
    call: { method: 'getblock', params: [BITCOIN_GENESIS_HASH, 0] },
    answer: `${GENESIS_RAW_BLOCK}00`,
    expected: { kind: 'wrong', path: '$', message: 'getblock: the raw block has 1 bytes after its last transaction' },
  },
  {
    name: 'a raw block cut inside its transaction',
    call: { method: 'getblock', params: [BITCOIN_GENESIS_HASH, 0] },
    answer: GENESIS_RAW_BLOCK.slice(0, 300),
    expected: { kind: 'wrong', path: '$ (transaction 0)' },
  },
];

describe('bitcoinIntegrity.verify on fixed answers', () => {
  it.each(cases)('$name', async ({ call, answer, slug, anchor, expected }) => {
    const finding = await bitcoinIntegrity.verify(call, answer, context(emptyEndpoint(), { slug, anchor }));
    if (expected.kind === 'not_provable') {
      expect(finding.kind).toBe('not_provable');
      if ('reason' in expected && expected.reason !== undefined && finding.kind === 'not_provable') expect(finding.reason).toMatch(expected.reason);
      return;
    }
    expect(finding).toMatchObject(expected);
  });

  it('says which methods are provable', () => {
    for (const method of ['getblockheader', 'getblock', 'getblockhash', 'getrawtransaction']) expect(bitcoinIntegrity.notProvable(method)).toBeNull();
    expect(bitcoinIntegrity.notProvable('gettxout')).toBe('gettxout: no commitment covers the UTXO set (Bitcoin headers commit to transactions, not to unspent outputs)');
    expect(bitcoinIntegrity.notProvable('getnetworkinfo')).toMatch(/own network state/);
    expect(bitcoinIntegrity.notProvable('somethingelse')).toBe('somethingelse: no block commitment covers this method');
  });
});

/** A chain of `length` regtest-difficulty headers above the Bitcoin genesis (nonce: the first that meets 0x207fffff), hashes by height. */
function regtestChain(length: number, salt = 0): { hashes: string[]; headers: BlockHeader[] } {
  const target = targetOf(0x207fffff) as bigint;
  const hashes = [BITCOIN_GENESIS_HASH];
  const headers = [BITCOIN_GENESIS];
  for (let height = 1; height <= length; height++) {
    const base = { version: 0x20000000, previousblockhash: hashes[height - 1] as string, merkleroot: (salt + height).toString(16).padStart(64, '0'), time: 1_700_000_000 + height, bits: 0x207fffff };
    for (let nonce = 0; ; nonce++) {
      const header = { ...base, nonce };
      const hash = headerHash(serializeHeader(header));
      if (BigInt(`0x${hash}`) <= target) {
        hashes.push(hash);
        headers.push(header);
        break;
      }
    }
  }
  return { hashes, headers };
}

function endpointOf(chain: { hashes: string[]; headers: BlockHeader[] }, endpoint = emptyEndpoint()): Endpoint {
  chain.headers.forEach((header, height) => {
    const hash = chain.hashes[height] as string;
    endpoint.answers.set(`getblockheader ${JSON.stringify([hash, false])}`, serializeHeader(header).toString('hex'));
    endpoint.answers.set(`getblockheader ${JSON.stringify([hash, true])}`, verboseHeader(header, hash, height));
    endpoint.answers.set(`getblockhash ${JSON.stringify([height])}`, hash);
  });
  return endpoint;
}

describe('links to the anchor by parent hashes', () => {
  const chain = regtestChain(8);
  const fork = regtestChain(8, 1000);
  const at = (height: number) => ({ hash: chain.hashes[height] as string, header: chain.headers[height] as BlockHeader });
  const headerCall = (hash: string): IntegrityCall => ({ method: 'getblockheader', params: [hash, true] });

  it('proves a header below the anchor by walking down from it, fetching each header once per run', async () => {
    const endpoint = endpointOf(chain);
    const ctx = context(endpoint, { anchor: { number: 6n, hash: at(6).hash, source: 'trusted_block' } });
    const two = at(2);
    expect(await bitcoinIntegrity.verify(headerCall(two.hash), verboseHeader(two.header, two.hash, 2), ctx)).toEqual({ kind: 'proven', block: two.hash });
    const three = at(3);
    expect(await bitcoinIntegrity.verify(headerCall(three.hash), verboseHeader(three.header, three.hash, 3), ctx)).toEqual({ kind: 'proven', block: three.hash });
    // Headers 6, 5, 4, 3 fetched to walk down to 2; block 3 was then already linked.
    expect(endpoint.calls).toEqual([6, 5, 4, 3].map((h) => `getblockheader ${JSON.stringify([at(h).hash, false])}`));
  });

  it('proves a header above the anchor by walking down from it to the anchor', async () => {
    const ctx = context(endpointOf(chain), { anchor: { number: 3n, hash: at(3).hash, source: 'reference' } });
    const seven = at(7);
    expect(await bitcoinIntegrity.verify(headerCall(seven.hash), verboseHeader(seven.header, seven.hash, 7), ctx)).toEqual({ kind: 'proven', block: seven.hash });
  });

  it('refuses a header of another chain at the same height, naming both hashes', async () => {
    const ctx = context(endpointOf(fork, endpointOf(chain)), { anchor: { number: 6n, hash: at(6).hash, source: 'trusted_block' } });
    const forked = { hash: fork.hashes[4] as string, header: fork.headers[4] as BlockHeader };
    const finding = await bitcoinIntegrity.verify(headerCall(forked.hash), verboseHeader(forked.header, forked.hash, 4), ctx);
    expect(finding).toMatchObject({ kind: 'wrong', path: '$.height' });
    expect(finding.kind === 'wrong' && finding.message).toContain(`the anchor's chain (${at(6).hash} at 6, linked by parent hashes) has ${at(4).hash} there`);
    const above = { hash: fork.hashes[8] as string, header: fork.headers[8] as BlockHeader };
    expect(await bitcoinIntegrity.verify(headerCall(above.hash), verboseHeader(above.header, above.hash, 8), ctx)).toMatchObject({ kind: 'wrong', path: '$.height' });
  });

  it('says a header beyond maxAnchorDistance is too far, fetching nothing', async () => {
    const endpoint = endpointOf(chain);
    const ctx = context(endpoint, { anchor: { number: 8n, hash: at(8).hash, source: 'trusted_block' }, maxAnchorDistance: 3 });
    const one = at(1);
    const finding = await bitcoinIntegrity.verify(headerCall(one.hash), verboseHeader(one.header, one.hash, 1), ctx);
    expect(finding).toEqual({ kind: 'not_provable', reason: `block ${one.hash} at height 1 is 7 blocks from the anchor (8), beyond the 3 the run links` });
    expect(endpoint.calls).toEqual([]);
  });

  it('proves getblockhash by linking the answered hash, and refuses a hash of another chain', async () => {
    const ctx = context(endpointOf(fork, endpointOf(chain)), { anchor: { number: 8n, hash: at(8).hash, source: 'trusted_block' } });
    expect(await bitcoinIntegrity.verify({ method: 'getblockhash', params: [5] }, at(5).hash, ctx)).toEqual({ kind: 'proven', block: at(5).hash });
    expect(await bitcoinIntegrity.verify({ method: 'getblockhash', params: [5] }, fork.hashes[5], ctx)).toMatchObject({ kind: 'wrong', path: '$' });
  });

  it('with no anchor, holds a getblockhash answer to the endpoint\'s own headers', async () => {
    const ctx = context(endpointOf(chain));
    expect(await bitcoinIntegrity.verify({ method: 'getblockhash', params: [5] }, at(5).hash, ctx)).toEqual({ kind: 'proven', block: at(5).hash });
    expect(await bitcoinIntegrity.verify({ method: 'getblockhash', params: [4] }, at(5).hash, ctx)).toMatchObject({ kind: 'wrong', path: '$' });
    // A hash the endpoint has no header of: it would not answer the proof.
    expect(await bitcoinIntegrity.verify({ method: 'getblockhash', params: [5] }, fork.hashes[5], ctx)).toMatchObject({ kind: 'not_provable' });
  });

  it('proves membership of a transaction in its block by a merkle branch to the proven root', async () => {
    const txids = [BITCOIN_GENESIS.merkleroot, '22'.repeat(32), '33'.repeat(32)];
    const header: BlockHeader = { ...(chain.headers[2] as BlockHeader), previousblockhash: at(1).hash, merkleroot: merkleRoot(txids) };
    // Grind the nonce again for the new merkle root (deterministic: the first that meets the target).
    const target = targetOf(header.bits) as bigint;
    let nonce = 0;
    while (BigInt(`0x${headerHash(serializeHeader({ ...header, nonce }))}`) > target) nonce++;
    const block = { ...header, nonce };
    const hash = headerHash(serializeHeader(block));
    const endpoint = endpointOf(chain);
    endpoint.answers.set(`getblock ${JSON.stringify([hash, 1])}`, { ...verboseHeader(block, hash, 2), tx: txids });
    endpoint.answers.set(`getblockheader ${JSON.stringify([hash, false])}`, serializeHeader(block).toString('hex'));
    const ctx = context(endpoint, { anchor: { number: 1n, hash: at(1).hash, source: 'trusted_block' } });
    const call: IntegrityCall = { method: 'getrawtransaction', params: [BITCOIN_GENESIS.merkleroot, true, hash] };
    expect(await bitcoinIntegrity.verify(call, { ...genesisCoinbaseVerbose(), blockhash: hash }, ctx)).toEqual({ kind: 'proven', block: hash });
    // The same transaction claimed in a block that does not hold it.
    const other = at(2).hash;
    endpoint.answers.set(`getblock ${JSON.stringify([other, 1])}`, { ...verboseHeader(at(2).header, other, 2), tx: [at(2).header.merkleroot] });
    const finding = await bitcoinIntegrity.verify({ method: 'getrawtransaction', params: [BITCOIN_GENESIS.merkleroot, true] }, { ...genesisCoinbaseVerbose(), blockhash: other }, ctx);
    expect(finding).toMatchObject({ kind: 'wrong', path: '$.blockhash', block: other });
  });
});

describe('untrusted answers never make verify throw', () => {
  const answers: unknown[] = [
    null,
    0,
    -1,
    'x',
    'zz'.repeat(40),
    [],
    [[[]]],
    {},
    { hash: BITCOIN_GENESIS_HASH },
    { ...verboseHeader(BITCOIN_GENESIS, BITCOIN_GENESIS_HASH, 0), height: -1 },
    { ...verboseHeader(BITCOIN_GENESIS, BITCOIN_GENESIS_HASH, 0), version: 2 ** 40 },
    { ...verboseHeader(BITCOIN_GENESIS, BITCOIN_GENESIS_HASH, 0), nonce: 1.5 },
    { ...verboseHeader(BITCOIN_GENESIS, BITCOIN_GENESIS_HASH, 0), bits: '00000000' },
    genesisBlock({ tx: 5 }),
    genesisBlock({ tx: [] }),
    genesisBlock({ tx: [BITCOIN_GENESIS.merkleroot, BITCOIN_GENESIS.merkleroot] }),
    genesisBlock({ tx: [{ hex: 42 }] }),
    genesisBlock({ tx: [{ ...genesisCoinbaseVerbose(), vin: 'no' }] }),
    genesisBlock({ tx: [{ ...genesisCoinbaseVerbose(), vout: [{ value: 'fifty' }] }] }),
    genesisBlock({ tx: [{ ...genesisCoinbaseVerbose(), vout: [{ value: 1e300, scriptPubKey: null }] }] }),
    { ...genesisCoinbaseVerbose(), vin: [null] },
    { ...genesisCoinbaseVerbose(), vin: [{ coinbase: 'ab', sequence: 4294967295, txinwitness: 'x' }] },
    { ...genesisCoinbaseVerbose(), blockhash: 12 },
    { ...genesisCoinbaseVerbose(), blockhash: BITCOIN_GENESIS_HASH },
  ];
  const calls: IntegrityCall[] = [
    { method: 'getblockheader', params: [BITCOIN_GENESIS_HASH, true] },
    { method: 'getblockheader', params: [BITCOIN_GENESIS_HASH, false] },
    { method: 'getblockheader', params: [42] },
    { method: 'getblock', params: [BITCOIN_GENESIS_HASH, 2] },
    { method: 'getblock', params: [BITCOIN_GENESIS_HASH] },
    { method: 'getblockhash', params: [0] },
    { method: 'getblockhash', params: ['zero'] },
    { method: 'getrawtransaction', params: [BITCOIN_GENESIS.merkleroot, true] },
    { method: 'getrawtransaction', params: [BITCOIN_GENESIS.merkleroot, false] },
    { method: 'getrawtransaction', params: [] },
  ];

  it('answers a finding for every malformed answer, with and without an anchor, when every proof call fails', async () => {
    const kinds = new Set<string>();
    for (const call of calls) {
      for (const answer of answers) {
        for (const anchor of [null, genesisAnchor]) {
          const finding = await bitcoinIntegrity.verify(call, answer, context(emptyEndpoint(), { anchor }));
          // Some are answers to another method that still prove (a header answer with extra members).
          expect(['proven', 'wrong', 'not_provable']).toContain(finding.kind);
          kinds.add(finding.kind);
        }
      }
    }
    expect(kinds).toEqual(new Set(['proven', 'wrong', 'not_provable']));
  });

  it('says a proof the endpoint would not give makes the answer not provable, without repeating the call\'s error', async () => {
    const finding = await bitcoinIntegrity.verify({ method: 'getblockhash', params: [0] }, BITCOIN_GENESIS_HASH, context(emptyEndpoint()));
    expect(finding).toEqual({
      kind: 'not_provable',
      reason: `the endpoint did not answer getblockheader "${BITCOIN_GENESIS_HASH}" false (to check the answered block exists), or the run's budget of extra requests is spent`,
    });
  });

  it('does not prove a merged-mined Dogecoin header without an anchor (its work is in a parent block)', async () => {
    const merged = { ...BITCOIN_GENESIS, version: 0x00620104 };
    const hash = headerHash(serializeHeader(merged));
    const finding = await bitcoinIntegrity.verify({ method: 'getblockheader', params: [hash, true] }, verboseHeader(merged, hash, 0), context(emptyEndpoint(), { slug: 'dogecoin' }));
    expect(finding).toMatchObject({ kind: 'not_provable', reason: expect.stringMatching(/AuxPoW/) });
  });
});
