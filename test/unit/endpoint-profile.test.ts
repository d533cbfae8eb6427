import { describe, expect, it } from 'vitest';
import {
  budgetedCall,
  classifyMethodAnswer,
  evidenceMessage,
  evidenceOf,
  largestAccepted,
  namespacesOf,
  numbersIn,
  oldestHeld,
  ProfileBudgetSpent,
  type HeightCheck,
  type MethodSupport,
  type ProfileAnswer,
} from '../../src/domain/endpoint-profile';

const rpc = (code: number | null, message: string, httpStatus: number | null = 200): ProfileAnswer => ({ kind: 'rpc_error', code, message, httpStatus });

describe('classifyMethodAnswer', () => {
  it.each<[string, ProfileAnswer, MethodSupport]>([
    ['a result', { kind: 'result', result: '0x1' }, 'supported'],
    ['a null result', { kind: 'result', result: null }, 'supported'],
    ['geth -32601', rpc(-32601, 'the method debug_getRawHeader does not exist/is not available'), 'not_found'],
    ['anvil -32601', rpc(-32601, 'Method not found'), 'not_found'],
    ['-32601 saying not whitelisted', rpc(-32601, 'method not whitelisted'), 'disabled'],
    ['-32001 method disabled', rpc(-32001, 'Method disabled'), 'disabled'],
    ['-32000 not allowed', rpc(-32000, 'debug_getRawHeader is not allowed'), 'disabled'],
    ['a plan upgrade text', rpc(-32000, 'trace_block is not available on your current plan'), 'disabled'],
    ['an RPC error with HTTP 403', rpc(-32000, 'nope', 403), 'disabled'],
    ['HTTP 403', { kind: 'http_error', status: 403, body: 'Forbidden' }, 'disabled'],
    ['HTTP 401', { kind: 'http_error', status: 401, body: '' }, 'disabled'],
    ['invalid params: routed', rpc(-32602, 'invalid argument 0: hex string without 0x prefix'), 'supported'],
    ['HTTP 429', { kind: 'http_error', status: 429, body: 'Too Many Requests' }, 'error'],
    ['an internal error', rpc(-32603, 'internal error'), 'error'],
    ['a timeout', { kind: 'transport', message: 'The operation was aborted due to timeout' }, 'error'],
  ])('%s', (_name, answer, expected) => {
    expect(classifyMethodAnswer(answer)).toBe(expected);
  });
});

describe('evidence', () => {
  it('redacts URLs (they may carry keys), folds whitespace and keeps at most 160 characters', () => {
    expect(evidenceMessage('upstream https://mainnet.example.io/v3/SECRETKEY failed:\n  429')).toBe('upstream <url> failed: 429');
    expect(evidenceMessage('x'.repeat(500))).toHaveLength(160);
    expect(evidenceOf(rpc(-32005, 'see wss://a.b/c?key=1 now', 200))).toEqual({ code: -32005, message: 'see <url> now', http_status: 200 });
    expect(evidenceOf({ kind: 'result', result: 1 })).toBeNull();
    expect(evidenceOf({ kind: 'http_error', status: 502, body: 'Bad Gateway' })).toEqual({ code: null, message: 'Bad Gateway', http_status: 502 });
  });
});

describe('namespacesOf and numbersIn', () => {
  it('derives namespaces from supported methods only', () => {
    expect(
      namespacesOf({ eth_chainId: { support: 'supported' }, debug_getRawHeader: { support: 'not_found' }, txpool_status: { support: 'disabled' }, web3_clientVersion: { support: 'supported' }, trace_block: { support: 'error' } }),
    ).toEqual(['eth', 'web3']);
  });
  it('reads decimal and hex numbers out of a text', () => {
    expect(numbersIn('range 1000000 exceeds limit of 10000')).toEqual([1000000, 10000]);
    expect(numbersIn('Try with this block range [0x10, 0x2d].')).toEqual([16, 45]);
    expect(numbersIn('no numbers')).toEqual([]);
  });
});

describe('largestAccepted', () => {
  const capAt = (cap: number | null, log: number[] = []) => async (size: number) => {
    log.push(size);
    return cap === null || size <= cap ? ('accepted' as const) : ('refused' as const);
  };
  it.each<[string, number | null, number, number, number | null, number | null]>([
    // name, cap, start, max, expected largest, expected smallest refused
    ['a cap above the start', 100, 8, 1000, 100, 101],
    ['a cap below the start', 5, 128, 1000, 5, 6],
    ['a cap of 1', 1, 128, 1000, 1, 2],
    ['no cap up to max', null, 128, 151, 151, null],
    ['a cap at max - 1', 150, 128, 151, 150, 151],
    ['a large cap', 10000, 128, 1_000_000, 10000, 10001],
    ['nothing accepted', 0, 4, 100, null, 1],
  ])('%s', async (_name, cap, start, max, largest, smallestRefused) => {
    const found = await largestAccepted(capAt(cap), { start, max, maxProbes: 40 });
    expect(found).toMatchObject({ largest, smallestRefused, exact: true });
  });
  it('tries the sizes a refusal names first', async () => {
    const log: number[] = [];
    const found = await largestAccepted(capAt(10000, log), { start: 128, max: 1_000_000, maxProbes: 40, hints: () => (log.some((size) => size > 10000) ? [10000, 10001] : []) });
    expect(found).toMatchObject({ largest: 10000, smallestRefused: 10001, exact: true });
    expect(log).toEqual([128, 256, 512, 1024, 2048, 4096, 8192, 16384, 10000, 10001]);
    const unhinted: number[] = [];
    await largestAccepted(capAt(10000, unhinted), { start: 128, max: 1_000_000, maxProbes: 40 });
    expect(unhinted.length).toBeGreaterThan(log.length);
  });
  it('stops at an inconclusive probe and at maxProbes, not exact', async () => {
    const stopped = await largestAccepted(async (size) => (size > 16 ? 'inconclusive' : 'accepted'), { start: 1, max: 1000, maxProbes: 40 });
    expect(stopped).toMatchObject({ largest: 16, smallestRefused: null, exact: false });
    const bounded = await largestAccepted(capAt(777), { start: 1, max: 1_000_000, maxProbes: 5 });
    expect(bounded.probes).toHaveLength(5);
    expect(bounded.exact).toBe(false);
  });
});

describe('oldestHeld', () => {
  const windowFrom = (oldest: number, below: HeightCheck = 'not_held') => async (height: number): Promise<HeightCheck> => (height >= oldest ? 'correct' : below);
  it.each<[string, number, number, number | null, boolean]>([
    ['a full archive', 0, 1000, 0, true],
    ['a window', 97, 149, 97, true],
    ['only the top held', 149, 149, 149, true],
    ['a window one above the floor', 1, 149, 1, true],
    ['a deep chain', 19_000_000, 20_000_000, 19_000_000, true],
    ['nothing held', 150, 149, null, false],
  ])('%s', async (_name, oldest, top, expected, exact) => {
    const found = await oldestHeld(windowFrom(oldest), { floor: 0, top, maxChecks: 60 });
    expect(found.oldest).toBe(expected);
    expect(found.exact).toBe(exact);
  });
  it('treats wrong values below the window like missing state', async () => {
    expect((await oldestHeld(windowFrom(500, 'wrong'), { floor: 0, top: 1000, maxChecks: 60 })).oldest).toBe(500);
  });
  it('stops at an error without claiming an exact depth', async () => {
    const found = await oldestHeld(async (h) => (h >= 500 ? 'correct' : h >= 200 ? 'error' : 'not_held'), { floor: 0, top: 1000, maxChecks: 60 });
    expect(found).toMatchObject({ exact: false, stoppedAt: expect.any(Number) });
    expect(found.oldest! >= 500).toBe(true);
  });
  it('checks at most maxChecks heights', async () => {
    const found = await oldestHeld(windowFrom(123_456), { floor: 0, top: 20_000_000, maxChecks: 6 });
    expect(found.checked).toHaveLength(6);
    expect(found.exact).toBe(false);
  });
});

describe('budgetedCall', () => {
  it('spends at most its budget, then rejects without calling', async () => {
    let calls = 0;
    const budgeted = budgetedCall(async () => ((calls += 1), { kind: 'result', result: calls }), { budget: 3, ratePerS: 1e9 });
    for (let i = 0; i < 3; i += 1) await budgeted.call('m', []);
    await expect(budgeted.call('m', [])).rejects.toBeInstanceOf(ProfileBudgetSpent);
    expect(calls).toBe(3);
    expect(budgeted.used()).toBe(3);
  });
  it('turns a throwing transport into an answer', async () => {
    const budgeted = budgetedCall(async () => {
      throw new Error('ECONNREFUSED');
    }, { budget: 1, ratePerS: 1e9 });
    await expect(budgeted.call('m', [])).resolves.toEqual({ kind: 'transport', message: 'ECONNREFUSED' });
  });
  it('starts calls at most ratePerS a second, on its clock', async () => {
    let clock = 0;
    const starts: number[] = [];
    const budgeted = budgetedCall(async () => (starts.push(clock), { kind: 'result', result: null }), {
      budget: 10,
      ratePerS: 4,
      now: () => clock,
      sleep: async (ms) => {
        clock += ms;
      },
    });
    await Promise.all(Array.from({ length: 5 }, () => budgeted.call('m', [])));
    expect(starts).toEqual([0, 250, 500, 750, 1000]);
  });
});
