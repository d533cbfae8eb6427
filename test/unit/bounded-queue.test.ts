import { describe, expect, it } from 'vitest';
import { BoundedQueue } from '../../src/probe/bounded-queue';

describe('BoundedQueue', () => {
  it('keeps order, holds at most its capacity and counts what it drops', async () => {
    const queue = new BoundedQueue<number>(3);
    expect([1, 2, 3, 4, 5].map((n) => queue.push(n))).toEqual([true, true, true, false, false]);
    expect(queue.dropped).toBe(2);
    expect(queue.length).toBe(3);
    expect((await queue.next()).value).toBe(1);
    expect(queue.push(6)).toBe(true);
    queue.end();
    const rest: number[] = [];
    for await (const n of queue) rest.push(n);
    expect(rest).toEqual([2, 3, 6]);
    expect(queue.push(7)).toBe(false);
  });

  it('lets reserved items use twice the capacity, so a flood cannot push them out', () => {
    const queue = new BoundedQueue<string>(2);
    queue.push('a');
    queue.push('b');
    expect(queue.push('c')).toBe(false);
    expect(queue.push('state', true)).toBe(true);
    expect(queue.push('state', true)).toBe(true);
    expect(queue.push('state', true)).toBe(false);
    expect(queue.length).toBe(4);
  });

  it('hands an item straight to a waiting reader, and ends or fails a waiting read', async () => {
    const queue = new BoundedQueue<number>(1);
    const waiting = queue.next();
    queue.push(9);
    expect(await waiting).toEqual({ value: 9, done: false });
    const ended = queue.next();
    queue.end();
    expect(await ended).toEqual({ value: undefined, done: true });

    const failing = new BoundedQueue<number>(1);
    const read = failing.next();
    failing.fail(new Error('refused'));
    await expect(read).rejects.toThrow('refused');
  });

  it('gives the queued items before the error', async () => {
    const queue = new BoundedQueue<number>(4);
    queue.push(1);
    queue.fail(new Error('refused'));
    expect((await queue.next()).value).toBe(1);
    await expect(queue.next()).rejects.toThrow('refused');
  });

  it('stays bounded through a long run of pushes and reads', async () => {
    const queue = new BoundedQueue<number>(8);
    for (let i = 0; i < 10_000; i++) {
      queue.push(i);
      expect((await queue.next()).value).toBe(i);
    }
    expect(queue.length).toBe(0);
    expect(queue.dropped).toBe(0);
  });

  it('refuses a capacity that is not a positive integer', () => {
    expect(() => new BoundedQueue(0)).toThrow(RangeError);
    expect(() => new BoundedQueue(1.5)).toThrow(RangeError);
  });
});
