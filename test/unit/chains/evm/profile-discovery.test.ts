import { describe, expect, it } from 'vitest';
import { CHAINS } from '../../../../src/chains/registry';
import { discoverProfile } from '../../../../src/chains/profile';
import type { ArchiveKind, ProfileAnswer, ProfileTransport } from '../../../../src/domain/endpoint-profile';

/*
 * The EVM discovery over an in-memory chain (no node): block b (1..HEAD) carries one transaction
 * from SENDER with nonce b-1, so SENDER's nonce at height t is t; every block from 1 has one log.
 * Each case says how the fake endpoint serves state, and what the profile must find.
 */

const SENDER = '0x1111111111111111111111111111111111111111';
const hex = (n: number) => `0x${n.toString(16)}`;

interface Fake {
  head: number;
  /** How state at height t is answered. */
  state: (t: number) => ProfileAnswer;
  emptyBlocks?: ReadonlySet<number>;
  /** Below this height the state is empty: every nonce and balance 0. */
  zeroBelow?: number;
  rangeCap?: number;
  resultCap?: number;
}

function fakeChain(fake: Fake): ProfileTransport & { calls: number } {
  const result = (value: unknown): ProfileAnswer => ({ kind: 'result', result: value });
  const rpcError = (code: number, message: string): ProfileAnswer => ({ kind: 'rpc_error', code, message, httpStatus: 200 });
  const transport = async (method: string, params: unknown[]): Promise<ProfileAnswer> => {
    transport.calls += 1;
    const blockAt = (value: unknown) => (value === 'latest' ? fake.head : Number(value));
    switch (method) {
      case 'eth_blockNumber':
        return result(hex(fake.head));
      case 'eth_getBlockByNumber':
        return result({ number: hex(params[0] === 'finalized' ? fake.head - 64 : params[0] === 'safe' ? fake.head - 32 : blockAt(params[0])) });
      case 'eth_getTransactionByBlockNumberAndIndex': {
        const b = Number(params[0]);
        return result(b < 1 || b > fake.head || fake.emptyBlocks?.has(b) ? null : { from: SENDER, nonce: hex(b - 1) });
      }
      case 'eth_getTransactionCount': {
        const t = blockAt(params[1]);
        if (params[1] !== 'latest' && t < (fake.zeroBelow ?? 0)) return result('0x0');
        return params[1] === 'latest' ? result(hex(fake.head)) : fake.state(t);
      }
      case 'eth_getBalance': {
        // The sender is funded wherever the state is held; an empty state answers 0.
        const t = blockAt(params[1]);
        if (t < (fake.zeroBelow ?? 0)) return result('0x0');
        const answer = fake.state(t);
        return answer.kind === 'result' ? result('0xde0b6b3a7640000') : answer;
      }
      case 'eth_getLogs': {
        const filter = params[0] as { fromBlock: string; toBlock: string; topics?: unknown[] };
        const [from, to] = [Number(filter.fromBlock), Number(filter.toBlock)];
        if (fake.rangeCap !== undefined && to - from + 1 > fake.rangeCap) return rpcError(-32602, `range ${to - from + 1} exceeds limit of ${fake.rangeCap}`);
        const count = filter.topics === undefined ? to - Math.max(from, 1) + 1 : 0;
        if (fake.resultCap !== undefined && count > fake.resultCap) return rpcError(-32005, `query returned more than ${fake.resultCap} results`);
        return result(Array.from({ length: count }, (_, i) => ({ logIndex: '0x0', blockNumber: hex(from + i) })));
      }
      default:
        return method.startsWith('debug_') ? rpcError(-32601, `the method ${method} does not exist/is not available`) : result('0x0');
    }
  };
  transport.calls = 0;
  return transport;
}

const correct = (t: number): ProfileAnswer => ({ kind: 'result', result: hex(t) });
const HEAD = 1000;

describe('EVM profile discovery over an in-memory chain', () => {
  it.each<[string, Fake, ArchiveKind, number | null]>([
    ['a full archive', { head: HEAD, state: correct }, 'full', 0],
    ['a window from 873', { head: HEAD, state: (t) => (t >= 873 ? correct(t) : { kind: 'rpc_error', code: -32000, message: 'missing trie node abc (path )', httpStatus: 200 }) }, 'window', 873],
    ['a window answering zeros below it', { head: HEAD, state: correct, zeroBelow: 500 }, 'window', 500],
    ['the latest state for every height', { head: HEAD, state: () => correct(HEAD) }, 'latest_for_history', null],
    ['a window answering the latest below it', { head: HEAD, state: (t) => (t >= 872 ? correct(t) : correct(HEAD)) }, 'window', 872],
    ['an empty head block', { head: HEAD, state: correct, emptyBlocks: new Set([HEAD, HEAD - 1]) }, 'full', 0],
    ['endless internal errors for state', { head: HEAD, state: () => ({ kind: 'rpc_error', code: -32603, message: 'internal error', httpStatus: 200 }) }, 'unknown', null],
  ])('%s', async (_name, fake, kind, oldest) => {
    const profile = await discoverProfile(CHAINS.evm, { transport: fakeChain(fake), ratePerS: 1e9 });
    expect(profile!.archive.kind).toBe(kind);
    expect(profile!.archive.oldest_correct_block).toBe(oldest);
  });

  it.each<[string, number | undefined, number | undefined, number | null, number | null]>([
    ['no caps', undefined, undefined, null, null],
    ['a range cap', 250, undefined, 250, null],
    ['a result cap', undefined, 77, null, 77],
    ['both', 100, 40, 100, 40],
    ['a result cap above the range cap (never reached)', 50, 80, 50, null],
  ])('eth_getLogs caps: %s', async (_name, rangeCap, resultCap, maxRange, maxResults) => {
    const profile = await discoverProfile(CHAINS.evm, { transport: fakeChain({ head: HEAD, state: correct, rangeCap, resultCap }), ratePerS: 1e9 });
    expect(profile!.logs.max_block_range).toBe(maxRange);
    expect(profile!.logs.max_results).toBe(maxResults);
  });

  it('reads the namespaces, the finality lag, and stays within the budget', async () => {
    const transport = fakeChain({ head: HEAD, state: correct });
    const profile = await discoverProfile(CHAINS.evm, { transport, ratePerS: 1e9 });
    expect(profile!.namespaces).not.toContain('debug');
    expect(profile!.namespaces).toEqual(expect.arrayContaining(['eth', 'net', 'web3', 'trace', 'txpool']));
    expect(profile!.finality).toMatchObject({ safe: { supported: true, lag_blocks: 32 }, finalized: { supported: true, lag_blocks: 64 } });
    expect(transport.calls).toBe(profile!.requests_used);
    expect(profile!.requests_used).toBeLessThanOrEqual(200);
    for (const budget of [1, 5, 30, 45]) {
      const small = fakeChain({ head: HEAD, state: correct, rangeCap: 100, resultCap: 40 });
      const bounded = await discoverProfile(CHAINS.evm, { transport: small, budget, ratePerS: 1e9 });
      expect(small.calls).toBe(budget);
      expect(bounded!.inconclusive_reasons.some((r) => r.includes(`the request budget (${budget}) was spent`))).toBe(true);
    }
  });
});
