import { describe, expect, it } from 'vitest';
import { answeredResult, callTiming, failedResult, latencyStartMs, WaitQueue } from '../../src/probe/call-accounting';

describe('latencyStartMs', () => {
  it.each([
    { intended: undefined, now: 1_000, start: 1_000, why: 'closed loop: from now' },
    { intended: 400, now: 1_000, start: 400, why: 'open loop, late: from the intended instant' },
    { intended: 1_500, now: 1_000, start: 1_000, why: 'intended instant still ahead: from now' },
  ])('$why', ({ intended, now, start }) => {
    expect(latencyStartMs(intended, now)).toBe(start);
  });
});

describe('callTiming', () => {
  it('leaves the time paused for the response budget out of the latency, not out of the start', () => {
    const before = Date.now();
    const timing = callTiming(1_000, 2.5, 1_010.25);
    const after = Date.now();
    expect(timing.latencyUs).toBe(7_750);
    // The wall-clock start is 10.25 ms (paused time included) before the instant it was computed.
    expect(timing.startedAt.getTime()).toBeGreaterThanOrEqual(Math.floor(before - 10.25));
    expect(timing.startedAt.getTime()).toBeLessThanOrEqual(after - 10.25);
  });
});

describe('call results', () => {
  const timing = { startedAt: new Date('2026-01-01T00:00:00Z'), latencyUs: 1_234 };
  const planned = { seq: 7, method: 'eth_blockNumber' };

  it('an answered call carries its classification and status, answer context and scalar null when absent', () => {
    expect(answeredResult(planned, timing, { outcome: 'rpc_error', rpcErrorCode: -32000, responseHash: null, reason: null }, 200)).toEqual({
      seq: 7,
      method: 'eth_blockNumber',
      startedAt: timing.startedAt,
      latencyUs: 1_234,
      outcome: 'rpc_error',
      httpStatus: 200,
      rpcErrorCode: -32000,
      responseHash: null,
      answerContext: null,
      scalarAnswer: null,
      reason: null,
    });
  });

  it('a failed call has no status, code or hash', () => {
    expect(failedResult(planned, timing, 'timeout', null)).toStrictEqual({
      seq: 7,
      method: 'eth_blockNumber',
      startedAt: timing.startedAt,
      latencyUs: 1_234,
      outcome: 'timeout',
      httpStatus: null,
      rpcErrorCode: null,
      responseHash: null,
      reason: null,
    });
  });
});

describe('WaitQueue', () => {
  it('hands items out first in first out, across the compaction of its taken front', () => {
    const queue = new WaitQueue<number>();
    const taken: number[] = [];
    for (let i = 0; i < 3_000; i++) {
      queue.push(i);
      queue.push(i + 0.5);
      taken.push(queue.shift()!);
    }
    expect(queue.length).toBe(3_000);
    while (queue.length > 0) taken.push(queue.shift()!);
    expect(queue.shift()).toBeUndefined();
    const expected = Array.from({ length: 3_000 }, (_, i) => [i, i + 0.5]).flat();
    expect(taken).toEqual(expected);
  });
});
