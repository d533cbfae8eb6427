import { describe, expect, it } from 'vitest';
import {
  atCommitment,
  CHAINS,
  chainAdapter,
  chainOfRun,
  fingerprintAnswer,
  hasAdapter,
  normalizeAnswer,
  parseHead,
  planRequests,
  renderParams,
  UnsupportedChainFamilyError,
} from '../../src/chains/registry';
import { PLAIN_HOOKS } from '../../src/chains/plain';
import type { ChainAdapter, ChainRegistry } from '../../src/chains/types';
import { READ_LEVEL_NAMES } from '../../src/domain/suite-config';
import { PINNED_BLOCK_TEMPLATE } from '../../src/domain/workload';
import { classifyResponse } from '../../src/probe/classify-response';
import { toyHeadRead } from '../helpers/toy-chain';

/*
 * A throwaway family, shaped like Bitcoin Core (height + best hash from one getblockchaininfo,
 * decimal heights in params, JSON-RPC 1.0 answers), registered in a test-only registry: planning,
 * head reading, pinning, comparison and classification must all go through it, not through EVM.
 */
const toy: ChainAdapter = {
  ...PLAIN_HOOKS,
  family: 'toy',
  envelope: 'json-rpc-1.0',
  fastestHeadIntervalMs: 1_000,
  head: toyHeadRead,
  renderPinned: (pinned) => pinned ?? -1,
  isHeadDependent: (method) => method === 'getbestblockhash' || method === 'getblockstats',
  pinForRecheck: (method, _params, block) => (method === 'getblockstats' ? [Number(block)] : null),
  // Set-like answers: order does not matter and case does not either.
  normalize: (_method, result) => (Array.isArray(result) ? result.map((v) => String(v).toLowerCase()).sort() : result),
  methodName: { pattern: /^[a-z]+$/, message: 'must be a lower-case RPC name' },
  defaultMethods: [{ method: 'getblockcount', params: [], weight: 1 }],
  presets: { chains: [], workloads: [] },
};
const registry: ChainRegistry = { ...CHAINS, toy };
const runOn = (family?: string) => ({ config_snapshot: { chain: { id: 'c', name: 'n', slug: 's', explorer_url: null, ...(family ? { family } : {}) } } });

describe('chain registry', () => {
  it('finds a run’s adapter by the family in its snapshot; a snapshot without one is EVM', () => {
    expect(chainOfRun(runOn('toy'), registry)).toBe(toy);
    expect(chainOfRun(runOn(), registry)).toBe(CHAINS.evm);
    expect(chainOfRun(runOn())).toBe(CHAINS.evm);
  });

  it('refuses a family without an adapter instead of treating it as EVM', () => {
    for (const family of ['cosmos', 'toy', 'constructor', '__proto__']) {
      expect(hasAdapter(family)).toBe(false);
      expect(() => chainAdapter(family)).toThrow(UnsupportedChainFamilyError);
      expect(() => chainOfRun(runOn(family))).toThrow(/not supported yet/);
    }
    expect(hasAdapter('toy', registry)).toBe(true);
  });

  it('plans requests with the family’s rendering of the pinned block', () => {
    const workload = { methods: [{ method: 'getblockstats', params: [PINNED_BLOCK_TEMPLATE, ['txs']], weight: 1 }] };
    expect(planRequests(chainOfRun(runOn('toy'), registry), workload, 7, 840_000)(0).params).toEqual([840_000, ['txs']]);
    expect(planRequests(chainOfRun(runOn('toy'), registry), workload, 7, null)(0).params).toEqual([-1, ['txs']]);
    expect(planRequests(CHAINS.evm, workload, 7, 840_000)(0).params).toEqual(['0xcd140', ['txs']]);
    expect(renderParams(toy, { at: PINNED_BLOCK_TEMPLATE }, 5, null)).toEqual({ at: 5 });
  });

  it('reads the head with the family’s request and parser (number and hash)', () => {
    const chain = chainOfRun(runOn('toy'), registry);
    expect([chain.head.method, chain.head.params]).toEqual(['getblockchaininfo', []]);
    expect(parseHead(chain, { blocks: 840_000, bestblockhash: '00ab' })).toEqual({ number: 840_000n, hash: '00ab' });
    expect(parseHead(chain, '0x10')).toBeNull();
    expect(parseHead(CHAINS.evm, '0x10')).toEqual({ number: 16n, hash: null });
    expect(parseHead(CHAINS.evm, { blocks: 1 })).toBeNull();
  });

  it('pins head-dependent calls for a re-check the family’s way', () => {
    const chain = chainOfRun(runOn('toy'), registry);
    expect(chain.isHeadDependent('getblockstats', [])).toBe(true);
    expect(chain.pinForRecheck('getblockstats', [], 12n)).toEqual([12]);
    expect(chain.pinForRecheck('getbestblockhash', [], 12n)).toBeNull();
    expect(CHAINS.evm.pinForRecheck('eth_getBalance', ['0x00000000000000000000000000000000000000aa', 'latest'], 12n)).toEqual([
      '0x00000000000000000000000000000000000000aa',
      '0xc',
    ]);
  });

  it('compares answers under the family’s normalisation', () => {
    const chain = chainOfRun(runOn('toy'), registry);
    expect(fingerprintAnswer(chain, 'listbanned', ['B', 'a'])).toBe(fingerprintAnswer(chain, 'listbanned', ['a', 'b']));
    expect(fingerprintAnswer(CHAINS.evm, 'listbanned', ['B', 'a'])).not.toBe(fingerprintAnswer(CHAINS.evm, 'listbanned', ['a', 'b']));
    expect(normalizeAnswer(chain, 'listbanned', ['B', 'a'])).toEqual(['a', 'b']);
  });

  it('classifies answers in the family’s envelope, fingerprinted by its rules', () => {
    const chain = chainOfRun(runOn('toy'), registry);
    const ok = JSON.stringify({ result: ['B', 'a'], error: null, id: 1 });
    expect(classifyResponse(chain, 200, ok, 'listbanned')).toEqual({
      outcome: 'ok',
      rpcErrorCode: null,
      responseHash: fingerprintAnswer(chain, 'listbanned', ['a', 'b']),
      reason: null,
      // A list, not a scalar: nothing kept for showing a scalar mismatch.
      scalarAnswer: null,
    });
    // The same bytes are no JSON-RPC 2.0 answer.
    expect(classifyResponse(CHAINS.evm, 200, ok, 'listbanned').outcome).toBe('invalid_response');
    // JSON-RPC 1.0: an RPC error comes with HTTP 500 (or 404 for an unknown method).
    const failed = JSON.stringify({ result: null, error: { code: -32601, message: 'Method not found' }, id: 1 });
    expect(classifyResponse(chain, 404, failed, 'nosuch')).toMatchObject({ outcome: 'rpc_error', rpcErrorCode: -32601 });
    expect(classifyResponse(chain, 500, failed, 'nosuch')).toMatchObject({ outcome: 'rpc_error', rpcErrorCode: -32601 });
    expect(classifyResponse(CHAINS.evm, 500, failed, 'nosuch').outcome).toBe('http_error');
    // A 500 that is not an RPC error body stays an HTTP error; a 1.0 answer missing a member is invalid.
    expect(classifyResponse(chain, 500, 'Internal Server Error', 'm').outcome).toBe('http_error');
    expect(classifyResponse(chain, 200, JSON.stringify({ result: 1, id: 1 }), 'm')).toMatchObject({
      outcome: 'invalid_response',
      reason: 'not a JSON-RPC 1.0 response object',
    });
    expect(classifyResponse(chain, 502, failed, 'm').outcome).toBe('http_error');
  });
});

describe('read levels', () => {
  it('config.commitment accepts exactly the levels the registered families declare', () => {
    const declared = new Set(Object.values(CHAINS).flatMap((c) => c.readLevels.names));
    expect([...declared].sort()).toEqual([...READ_LEVEL_NAMES].sort());
  });

  it('a family without levels reads with itself, whatever is asked', () => {
    expect(atCommitment(toy, undefined, 'watch')).toBe(toy);
    expect(atCommitment(CHAINS.bitcoin, undefined)).toBe(CHAINS.bitcoin);
  });
});
