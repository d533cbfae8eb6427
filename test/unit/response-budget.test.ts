import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ResponseBudget, type BudgetHolder } from '../../src/probe/response-budget';

/*
 * The budget against simulated responses: each reads its body in chunks, pauses when take()
 * says so and goes on when resumeReading() is called, in an order chosen by fast-check. It must
 * never deadlock (some response can always make progress), must end with nothing held, and must
 * hold at most the budget plus one response plus one chunk per paused response.
 */

class SimulatedResponse implements BudgetHolder {
  heldBytes = 0;
  received = 0;
  paused = false;
  pausedEver = false;
  done = false;
  constructor(readonly size: number) {}
  resumeReading(): void {
    this.paused = false;
  }
}

async function simulate(limit: number, sizes: number[], chunk: number, picks: number[]) {
  const budget = new ResponseBudget(limit);
  const responses = sizes.map((size) => new SimulatedResponse(size));
  let step = 0;
  for (;;) {
    let runnable = responses.filter((r) => !r.done && !r.paused);
    if (runnable.length === 0) {
      // Wake-ups are delivered in a microtask.
      await Promise.resolve();
      runnable = responses.filter((r) => !r.done && !r.paused);
    }
    if (runnable.length === 0) break;
    const response = runnable[picks[step++ % picks.length]! % runnable.length]!;
    if (response.received === response.size) {
      response.done = true;
      budget.release(response);
      continue;
    }
    const bytes = Math.min(chunk, response.size - response.received);
    response.received += bytes;
    if (!budget.take(response, bytes)) response.paused = response.pausedEver = true;
  }
  return { budget, responses };
}

describe('ResponseBudget', () => {
  it('never deadlocks, gives everything back, and bounds what is held at once', async () => {
    await fc.assert(
      fc.asyncProperty(
        // Socket reads of 1–64 KiB, answers of up to 40 reads, a budget of 1–64 reads.
        fc.integer({ min: 1, max: 64 }).map((k) => k * 1024),
        fc.array(fc.integer({ min: 1, max: 40 }), { minLength: 1, maxLength: 24 }),
        fc.integer({ min: 1, max: 64 }),
        fc.array(fc.nat(), { minLength: 1, maxLength: 50 }),
        async (chunk, sizesInChunks, limitInChunks, picks) => {
          const sizes = sizesInChunks.map((n) => n * chunk);
          const limit = chunk * limitInChunks;
          const { budget, responses } = await simulate(limit, sizes, chunk, picks);
          expect(responses.filter((r) => !r.done)).toEqual([]);
          expect(budget.usedBytes).toBe(0);
          expect(budget.peakBytes).toBeLessThanOrEqual(limit + Math.max(...sizes) + sizes.length * chunk);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('never pauses anything when everything fits', async () => {
    const { budget, responses } = await simulate(1_000, [100, 200, 300], 50, [0, 1, 2]);
    expect(responses.map((r) => r.pausedEver)).toEqual([false, false, false]);
    expect(budget.peakBytes).toBeLessThanOrEqual(600);
  });

  it('holds a large burst close to the budget: 64 answers of 8 chunks with room for 16 chunks', async () => {
    const { budget } = await simulate(16 * 1024, Array(64).fill(8 * 1024), 1024, [0, 7, 3, 11, 5]);
    expect(budget.peakBytes).toBeLessThanOrEqual(16 * 1024 + 8 * 1024 + 64 * 1024);
    expect(budget.peakBytes).toBeLessThan(64 * 8 * 1024);
  });
});
