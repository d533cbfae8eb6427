import { describe, expect, it } from 'vitest';
import { createPlanner } from '../../src/domain/workload';

type Methods = Parameters<typeof createPlanner>[0]['methods'];

// No params here name the pinned block: the planner's choice does not depend on the rendering.
const renderPinned = (pinned: number | null) => pinned;

const MIX: Methods = [
  { method: 'eth_blockNumber', params: [], weight: 3 },
  { method: 'eth_getBlockByNumber', params: ['0x10', false], weight: 1 },
];

const sequence = (methods: Methods, seed: number, count = 1_000) => {
  const plan = createPlanner({ methods }, seed, null, renderPinned);
  return Array.from({ length: count }, (_, seq) => plan(seq));
};

const share = (methods: Methods, seed: number, method: string, draws = 10_000) =>
  sequence(methods, seed, draws).filter((call) => call.method === method).length / draws;

describe('createPlanner', () => {
  it.each([0, 1, 42, 2 ** 31 - 1])('is a pure function of (seed, seq) for seed %i', (seed) => {
    expect(sequence(MIX, seed)).toEqual(sequence(MIX, seed));
  });

  it('answers the same for a seq whatever was asked before (retried chunks, replays)', () => {
    const inOrder = createPlanner({ methods: MIX }, 7, null, renderPinned);
    const fresh = createPlanner({ methods: MIX }, 7, null, renderPinned);
    const expected = Array.from({ length: 500 }, (_, seq) => inOrder(seq));
    for (const seq of [499, 0, 250, 17, 250, 1]) expect(fresh(seq)).toEqual(expected[seq]);
  });

  it('carries the seq and the chosen method params', () => {
    for (const call of sequence(MIX, 3, 200)) {
      const method = MIX.find((m) => m.method === call.method);
      expect(method).toBeDefined();
      expect(call.params).toEqual(method?.params);
    }
    expect(sequence(MIX, 3, 5).map((call) => call.seq)).toEqual([0, 1, 2, 3, 4]);
  });

  it.each([
    { a: 0, b: 1 },
    { a: 1, b: 2 },
    { a: 42, b: 43 },
    { a: 123_456, b: 654_321 },
  ])('seeds $a and $b give different sequences', ({ a, b }) => {
    const methods: Methods = [
      { method: 'a', params: [], weight: 1 },
      { method: 'b', params: [], weight: 1 },
    ];
    const first = sequence(methods, a, 200).map((call) => call.method);
    const second = sequence(methods, b, 200).map((call) => call.method);
    expect(first).not.toEqual(second);
  });

  it.each([0, 1, 42, 1_234_567, 2 ** 31 - 1])('respects weights 3:1 over 10,000 draws (seed %i)', (seed) => {
    const ratio = share(MIX, seed, 'eth_blockNumber');
    expect(ratio).toBeGreaterThanOrEqual(0.7);
    expect(ratio).toBeLessThanOrEqual(0.8);
  });

  it.each([
    { method: 'a', low: 0.07, high: 0.13 },
    { method: 'b', low: 0.07, high: 0.13 },
    { method: 'c', low: 0.75, high: 0.85 },
  ])('respects weights 1:1:8 for $method over 10,000 draws', ({ method, low, high }) => {
    const methods: Methods = [
      { method: 'a', params: [], weight: 1 },
      { method: 'b', params: [], weight: 1 },
      { method: 'c', params: [], weight: 8 },
    ];
    const ratio = share(methods, 99, method);
    expect(ratio).toBeGreaterThanOrEqual(low);
    expect(ratio).toBeLessThanOrEqual(high);
  });

  it('respects fractional weights', () => {
    const methods: Methods = [
      { method: 'rare', params: [], weight: 0.5 },
      { method: 'common', params: [], weight: 4.5 },
    ];
    const ratio = share(methods, 5, 'rare');
    expect(ratio).toBeGreaterThanOrEqual(0.07);
    expect(ratio).toBeLessThanOrEqual(0.13);
  });

  it.each([0, 1, 42])('always chooses the only method (seed %i)', (seed) => {
    const methods: Methods = [{ method: 'eth_chainId', params: [], weight: 5 }];
    expect(new Set(sequence(methods, seed, 2_000).map((call) => call.method))).toEqual(new Set(['eth_chainId']));
  });
});
