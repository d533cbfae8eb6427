import { describe, expect, it } from 'vitest';
import { bitcoinAdapter } from '../../../../src/chains/bitcoin';
import { BITCOIN_CHAIN_PRESETS, BITCOIN_WORKLOAD_PRESETS } from '../../../../src/chains/bitcoin/presets';
import { CHAINS, chainAdapter, fingerprintAnswer, needsPinnedBlock, parseHead, planRequests, renderParams } from '../../../../src/chains/registry';
import { classifyResponse } from '../../../../src/probe/classify-response';
import { suiteConfigSchema, workloadSchema } from '../../../../src/domain/suite-config';
import { PINNED_BLOCK_TEMPLATE } from '../../../../src/domain/workload';

const HASH = '6f7b7ea8e8e1b7cbbc4c3ff20bdbdf0fa5a1ec0a3f3f2ca2f0d3d6a8f0b5c9a1';
const NEXT = '2bbb51fabcd2f8a5426532e418f488eb3f3c3322af6385571cfc866c605707bb';

describe('the bitcoin family', () => {
  it('is registered', () => {
    expect(chainAdapter('bitcoin')).toBe(bitcoinAdapter);
    expect(CHAINS.bitcoin.envelope).toBe('json-rpc-1.0');
  });

  it('reads the head as height and best block hash from one getblockchaininfo', () => {
    expect([bitcoinAdapter.head.method, bitcoinAdapter.head.params]).toEqual(['getblockchaininfo', []]);
    expect(parseHead(bitcoinAdapter, { chain: 'regtest', blocks: 110, headers: 110, bestblockhash: HASH.toUpperCase() })).toEqual({
      number: 110n,
      hash: HASH,
    });
    for (const answer of [null, 110, { blocks: '110', bestblockhash: HASH }, { blocks: 110 }, { blocks: -1, bestblockhash: HASH }, { blocks: 1.5, bestblockhash: HASH }, { blocks: 1, bestblockhash: 'abc' }]) {
      expect(parseHead(bitcoinAdapter, answer), JSON.stringify(answer)).toBeNull();
    }
  });

  it('renders the pinned block as a plain height under {{pinned_block}} and {{pinned_height}}', () => {
    const workload = {
      methods: [
        { method: 'getblockhash', params: ['{{pinned_height}}'], weight: 1 },
        { method: 'getblockstats', params: [PINNED_BLOCK_TEMPLATE, ['txs']], weight: 1 },
      ],
    };
    const plan = planRequests(bitcoinAdapter, workload, 1, 840_000);
    const sent = new Map(Array.from({ length: 20 }, (_, seq) => plan(seq)).map((call) => [call.method, call.params]));
    expect(sent.get('getblockhash')).toEqual([840_000]);
    expect(sent.get('getblockstats')).toEqual([840_000, ['txs']]);
    expect(renderParams(bitcoinAdapter, { at: '{{pinned_height}}' }, 7, null)).toEqual({ at: 7 });
    // Only the bitcoin family renders {{pinned_height}}: for EVM it stays the string it was.
    expect(renderParams(CHAINS.evm, ['{{pinned_height}}'], 7, null)).toEqual(['{{pinned_height}}']);
  });

  it('pins a block for a workload that names only {{pinned_height}}', () => {
    expect(needsPinnedBlock({ methods: [{ method: 'getblockhash', params: ['{{pinned_height}}'], weight: 1 }] })).toBe(true);
    expect(needsPinnedBlock({ methods: [{ method: 'getblockcount', params: [], weight: 1 }] })).toBe(false);
  });

  it('calls about the tip are head-dependent; calls naming a height or hash are not', () => {
    const { isHeadDependent } = bitcoinAdapter;
    for (const method of ['getblockcount', 'getbestblockhash', 'getblockchaininfo', 'getmempoolinfo', 'estimatesmartfee', 'gettxout', 'getchaintips']) {
      expect(isHeadDependent(method, []), method).toBe(true);
    }
    expect(isHeadDependent('getnetworkhashps', [])).toBe(true);
    expect(isHeadDependent('getnetworkhashps', [120, -1])).toBe(true);
    expect(isHeadDependent('getnetworkhashps', [120, 100])).toBe(false);
    expect(isHeadDependent('getchaintxstats', [10])).toBe(true);
    expect(isHeadDependent('getchaintxstats', [10, HASH])).toBe(false);
    for (const [method, params] of [
      ['getblockhash', [100]],
      ['getblock', [HASH, 2]],
      ['getblockheader', [HASH]],
      ['getrawtransaction', [HASH, true]],
      ['getblockstats', [100]],
    ] as const) {
      expect(isHeadDependent(method, params), method).toBe(false);
    }
  });

  it('re-checks at a height only what takes one', () => {
    expect(bitcoinAdapter.pinForRecheck('getnetworkhashps', [], 100)).toEqual([120, 100]);
    expect(bitcoinAdapter.pinForRecheck('getnetworkhashps', [50, -1], 100n)).toEqual([50, 100]);
    for (const method of ['getblockcount', 'getbestblockhash', 'getblockchaininfo', 'getmempoolinfo', 'gettxout']) {
      expect(bitcoinAdapter.pinForRecheck(method, [], 100), method).toBeNull();
    }
    expect(bitcoinAdapter.pinForRecheck('getnetworkhashps', [], -1)).toBeNull();
  });

  describe('comparison', () => {
    const hash = (method: string, result: unknown) => fingerprintAnswer(bitcoinAdapter, method, result);
    const block = { hash: HASH, height: 108, confirmations: 3, tx: ['aa'], previousblockhash: NEXT, nextblockhash: NEXT, time: 1_795_650_753 };

    it('ignores what depends on the node’s own tip: confirmations, nextblockhash', () => {
      const atTip = { ...block, confirmations: 1 } as Record<string, unknown>;
      delete atTip.nextblockhash;
      expect(hash('getblock', atTip)).toBe(hash('getblock', block));
      expect(hash('getblockheader', atTip)).toBe(hash('getblockheader', block));
      expect(hash('getrawtransaction', { txid: 'aa', confirmations: 1 })).toBe(hash('getrawtransaction', { txid: 'aa', confirmations: 9 }));
      expect(hash('gettxout', { bestblock: HASH, confirmations: 1, value: 50 })).toBe(hash('gettxout', { bestblock: NEXT, confirmations: 2, value: 50 }));
      expect(hash('getblock', { ...block, tx: [{ txid: 'aa', confirmations: 1 }] })).toBe(hash('getblock', { ...block, tx: [{ txid: 'aa', confirmations: 2 }] }));
    });

    it('still sees every difference in the block itself', () => {
      expect(hash('getblock', { ...block, tx: ['aa', 'bb'] })).not.toBe(hash('getblock', block));
      expect(hash('getblock', { ...block, time: block.time + 1 })).not.toBe(hash('getblock', block));
      expect(hash('getrawtransaction', { txid: 'aa', vout: [{ value: 50 }] })).not.toBe(hash('getrawtransaction', { txid: 'aa', vout: [{ value: 49 }] }));
      // A field ignored for one method is compared for another.
      expect(hash('getblockhash', HASH)).not.toBe(hash('getblockhash', NEXT));
    });

    it('ignores node-local fields of getblockchaininfo', () => {
      const info = { chain: 'main', blocks: 10, bestblockhash: HASH, verificationprogress: 0.99, size_on_disk: 1, warnings: '', initialblockdownload: false, pruned: false };
      const other = { ...info, verificationprogress: 1, size_on_disk: 2, warnings: 'old version', initialblockdownload: true, pruned: true, pruneheight: 5, automatic_pruning: true, prune_target_size: 1 };
      expect(hash('getblockchaininfo', other)).toBe(hash('getblockchaininfo', info));
      expect(hash('getblockchaininfo', { ...info, chain: 'test' })).not.toBe(hash('getblockchaininfo', info));
    });

    it('compares mempool and fee answers by shape only', () => {
      const mempool = { loaded: true, size: 3, bytes: 700, usage: 2000, maxmempool: 300_000_000, mempoolminfee: 0.00001, minrelaytxfee: 0.00001 };
      expect(hash('getmempoolinfo', { ...mempool, size: 0, bytes: 0 })).toBe(hash('getmempoolinfo', mempool));
      expect(hash('getmempoolinfo', { ...mempool, size: '3' })).not.toBe(hash('getmempoolinfo', mempool));
      const missing: Partial<typeof mempool> = { ...mempool };
      delete missing.usage;
      expect(hash('getmempoolinfo', missing)).not.toBe(hash('getmempoolinfo', mempool));
      expect(hash('estimatesmartfee', { feerate: 0.0002, blocks: 6 })).toBe(hash('estimatesmartfee', { feerate: 0.00011, blocks: 2 }));
      expect(hash('estimatesmartfee', { errors: ['Insufficient data or no feerate found'], blocks: 2 })).not.toBe(hash('estimatesmartfee', { feerate: 0.0002, blocks: 6 }));
      expect(hash('getrawmempool', ['aa', 'bb', 'cc'])).toBe(hash('getrawmempool', ['dd']));
    });

    it('applies the caller’s ignore paths on top of the family’s', () => {
      expect(fingerprintAnswer(bitcoinAdapter, 'getblock', { ...block, time: 1 }, { ignorePaths: ['time'] })).toBe(
        fingerprintAnswer(bitcoinAdapter, 'getblock', block, { ignorePaths: ['time'] }),
      );
    });
  });

  describe('answers as litecoind (Bitcoin Core 0.21) and btcd send them', () => {
    const rules = bitcoinAdapter;
    it('a Core answer without `jsonrpc` is ok', () => {
      expect(classifyResponse(rules, 200, '{"result":110,"error":null,"id":1}', 'getblockcount')).toMatchObject({ outcome: 'ok' });
    });
    it('an unknown method with HTTP 404 is rpc_error -32601, not http_error', () => {
      const body = '{"result":null,"error":{"code":-32601,"message":"Method not found"},"id":1}';
      expect(classifyResponse(rules, 404, body, 'nosuch')).toMatchObject({ outcome: 'rpc_error', rpcErrorCode: -32601 });
    });
    it('another RPC error with HTTP 500 is rpc_error with its code', () => {
      const body = '{"result":null,"error":{"code":-8,"message":"Block height out of range"},"id":1}';
      expect(classifyResponse(rules, 500, body, 'getblockhash')).toMatchObject({ outcome: 'rpc_error', rpcErrorCode: -8 });
    });
    it('btcd’s HTTP 200 answers echoing jsonrpc "1.0" are read the same way', () => {
      expect(classifyResponse(rules, 200, '{"jsonrpc":"1.0","result":0,"error":null,"id":1}', 'getblockcount')).toMatchObject({ outcome: 'ok' });
      const error = '{"jsonrpc":"1.0","result":null,"error":{"code":-1,"message":"Block number out of range"},"id":1}';
      expect(classifyResponse(rules, 200, error, 'getblockhash')).toMatchObject({ outcome: 'rpc_error', rpcErrorCode: -1 });
    });
    it('wrong credentials (401, empty or text body) are http_error; btcd’s empty body to a request without jsonrpc is invalid', () => {
      expect(classifyResponse(rules, 401, '', 'getblockcount')).toMatchObject({ outcome: 'http_error' });
      expect(classifyResponse(rules, 401, '401 Unauthorized.\n', 'getblockcount')).toMatchObject({ outcome: 'http_error' });
      expect(classifyResponse(rules, 200, '', 'getblockcount')).toMatchObject({ outcome: 'invalid_response' });
    });
  });

  describe('presets', () => {
    it('bitcoin-standard is a valid workload of Bitcoin method names, pinned by height', () => {
      const [preset] = BITCOIN_WORKLOAD_PRESETS;
      expect(preset!.slug).toBe('bitcoin-standard');
      const workload = workloadSchema.parse(preset!.workload);
      const config = suiteConfigSchema.safeParse({ targets: [{ endpoint_id: '7d3f2f8e-1c1a-4d55-9a7e-3c2b1a0f9e8d' }], workload: { ...preset!.workload, requests_per_target: 500 } });
      expect(config.success, JSON.stringify(config.error?.issues)).toBe(true);
      for (const m of workload.methods) expect(bitcoinAdapter.methodName.pattern.test(m.method), m.method).toBe(true);
      expect(needsPinnedBlock(workload)).toBe(true);
      // Block and transaction reads name the pinned context too: rendered once it is read.
      const context = { pinned_block_hash: HASH, pinned_txid: NEXT };
      const templated = JSON.stringify(workload.methods.map((m) => renderParams(bitcoinAdapter, m.params, 1234, context)));
      expect(templated).not.toContain('{{');
      expect(workload.methods.every((m) => !/send|sign|generate|submit/i.test(m.method))).toBe(true);
    });

    it('catalog chains: Bitcoin mainnet, testnet4, signet, Litecoin, Dogecoin, with their own ids and slugs', () => {
      expect(BITCOIN_CHAIN_PRESETS.map((p) => p.slug)).toEqual(['bitcoin', 'bitcoin-testnet4', 'bitcoin-signet', 'litecoin', 'dogecoin']);
      for (const p of BITCOIN_CHAIN_PRESETS) expect([p.family, p.chain_id]).toEqual(['bitcoin', null]);
      const evmIds = new Set([...CHAINS.evm.presets.chains, ...CHAINS.evm.presets.workloads].map((p) => p.id));
      for (const p of [...BITCOIN_CHAIN_PRESETS, ...BITCOIN_WORKLOAD_PRESETS]) expect(evmIds.has(p.id), p.id).toBe(false);
    });
  });

  it('accepts Bitcoin Core method names only', () => {
    const { pattern } = bitcoinAdapter.methodName;
    for (const ok of ['getblockchaininfo', 'estimatesmartfee', 'getblock']) expect(pattern.test(ok), ok).toBe(true);
    for (const bad of ['eth_blockNumber', 'GetBlock', '', 'get block', '1getblock']) expect(pattern.test(bad), bad).toBe(false);
  });
});
