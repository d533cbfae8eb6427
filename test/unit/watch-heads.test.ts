import { describe, expect, it } from 'vitest';
import { CHAINS } from '../../src/chains/registry';
import { OutboundAddressRefusedError } from '../../src/net/guarded-lookup';
import { backoffDelayMs, pollHeads, type HeadWatchEvent } from '../../src/probe/watch-heads';

describe('backoffDelayMs', () => {
  it('doubles from the initial delay up to the maximum, jittered within the upper half', () => {
    const backoff = { initialMs: 100, maxMs: 1_000 };
    expect([0, 1, 2, 3, 4, 10].map((a) => backoffDelayMs(a, backoff, () => 1))).toEqual([100, 200, 400, 800, 1_000, 1_000]);
    expect([0, 1, 2, 3, 4, 10].map((a) => backoffDelayMs(a, backoff, () => 0))).toEqual([50, 100, 200, 400, 500, 500]);
    expect(backoffDelayMs(10_000, backoff, () => 0.5)).toBe(750);
  });
});

describe('pollHeads (no node: the read is a function)', () => {
  it('emits each new head once, counts failed polls and answers that are not heads, and stops on abort', async () => {
    const answers: (string | Error | number)[] = ['0x1', '0x1', new Error('connection_error'), 42, '0x2', '0x2', '0x3'];
    const stop = new AbortController();
    let calls = 0;
    const watch = pollHeads({
      read: async (method) => {
        expect(method).toBe('eth_blockNumber');
        const answer = answers[Math.min(calls++, answers.length - 1)]!;
        if (answer instanceof Error) throw answer;
        return answer;
      },
      head: CHAINS.evm.head,
      intervalMs: 5,
      signal: stop.signal,
    });
    const seen: HeadWatchEvent[] = [];
    for await (const event of watch) {
      seen.push(event);
      if (seen.length === 3) stop.abort();
    }
    await watch.done;
    expect(seen.map((e) => (e.kind === 'head' ? e.number : e.kind))).toEqual([1n, 2n, 3n]);
    expect(watch.stats).toMatchObject({ pollErrors: 1, notHeads: 1, dropped: 0 });
  });

  it('ends with the refusal when the address policy refuses the endpoint', async () => {
    const watch = pollHeads({
      read: () => Promise.reject(new OutboundAddressRefusedError('loopback')),
      head: CHAINS.evm.head,
      intervalMs: 5,
      signal: new AbortController().signal,
    });
    await expect(watch[Symbol.asyncIterator]().next()).rejects.toBeInstanceOf(OutboundAddressRefusedError);
  });
});
