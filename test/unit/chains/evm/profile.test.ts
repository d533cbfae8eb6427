import { describe, expect, it } from 'vitest';
import { EVM_PROFILE_CATALOG, isNotHeld, logsLimitOf, resultCapsNamed } from '../../../../src/chains/evm/profile';
import type { ProfileAnswer } from '../../../../src/domain/endpoint-profile';

const rpc = (message: string, code = -32000): ProfileAnswer => ({ kind: 'rpc_error', code, message, httpStatus: 200 });

describe('EVM profile: what an error means', () => {
  it.each<[string, ProfileAnswer, boolean]>([
    ['geth hash scheme', rpc('missing trie node 5b2e40c3d7c1b0e8 (path ) <nil>'), true],
    ['geth beyond its blocks', rpc('header not found'), true],
    ['geth path scheme', rpc('historical state 0xabc is not available'), true],
    ['geth path scheme below its state history', rpc('metadata is not found, 2'), true],
    ['geth path scheme, pruned', rpc('historical state has been pruned, first: 101, state: 52'), true],
    ['geth path scheme, state root', rpc('state 0x5b2e40c3d7c1b0e8 is not available'), true],
    ['geth still indexing: says nothing of depth', rpc("state histories haven't been fully indexed yet"), false],
    ['geth tracer', rpc('required historical state unavailable (reexec=128)'), true],
    ['a provider', rpc('state at block #12 is pruned'), true],
    ['besu-style', { kind: 'http_error', status: 400, body: 'old data not available due to pruning' }, true],
    ['a rate limit', rpc('rate limit exceeded', -32005), false],
    ['an internal error', rpc('internal error', -32603), false],
    ['a timeout', { kind: 'transport', message: 'timeout' }, false],
    ['a value', { kind: 'result', result: '0x1' }, false],
  ])('%s: not held %s', (_name, answer, expected) => {
    expect(isNotHeld(answer)).toBe(expected);
  });

  it.each<[string, 'range' | 'results' | 'other']>([
    ['range 1000000 exceeds limit of 10000', 'range'],
    ['block range is too wide', 'range'],
    ['exceed maximum block range: 1000', 'range'],
    ['query returned more than 10000 results. Try with this block range [0x1, 0x2].', 'results'],
    ['Log response size exceeded. You can make eth_getLogs requests with up to a 2K block range', 'results'],
    ['internal error', 'other'],
  ])('getLogs refusal %j names the %s', (message, limit) => {
    expect(logsLimitOf(message)).toBe(limit);
  });

  it('reads the result cap a refusal names, not the block numbers it suggests', () => {
    expect(resultCapsNamed('query returned more than 10000 results. Try with this block range [0x1234, 0x1300].')).toEqual([10000]);
    expect(resultCapsNamed('logs limit of 5000 exceeded')).toEqual([5000]);
    expect(resultCapsNamed('internal error')).toEqual([]);
  });

  it('catalogs no state-changing method', () => {
    const writes = /^(eth_send|eth_sign|personal_|miner_|admin_(add|remove|start|stop|import|export)|debug_set|debug_trace|clique_|engine_)/;
    expect(EVM_PROFILE_CATALOG.map((c) => c.method).filter((m) => writes.test(m))).toEqual([]);
    expect(new Set(EVM_PROFILE_CATALOG.map((c) => c.method)).size).toBe(EVM_PROFILE_CATALOG.length);
  });
});
