import { afterEach, describe, expect, it } from 'vitest';
import { EventLoopSlotSupplier } from '../../src/runtime/event-loop-slots';

const idle = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** Keeps the loop busy for `totalMs`, in 150 ms stretches with a timer turn between them (the histogram's samples). */
async function burn(totalMs: number): Promise<void> {
  const end = performance.now() + totalMs;
  while (performance.now() < end) {
    const until = performance.now() + 150;
    while (performance.now() < until) {
      // busy
    }
    await idle(0);
  }
}

describe('EventLoopSlotSupplier', () => {
  let supplier: EventLoopSlotSupplier | undefined;
  afterEach(() => supplier?.close());

  it('issues up to the maximum on an idle loop, and a released slot again', async () => {
    supplier = new EventLoopSlotSupplier({ minActivities: 1, maxActivities: 3, maxLoopDelayMs: 100 });
    const abort = new AbortController();
    for (let i = 0; i < 3; i++) await supplier.reserveSlot({}, abort.signal);
    expect(supplier.reservedSlots).toBe(3);
    expect(supplier.tryReserveSlot()).toBeNull();
    supplier.releaseSlot();
    expect(supplier.tryReserveSlot()).not.toBeNull();
  });

  it('issues only the minimum while the loop is saturated, and more once it recovers', async () => {
    supplier = new EventLoopSlotSupplier({ minActivities: 1, maxActivities: 10, maxLoopDelayMs: 100 });
    expect(supplier.tryReserveSlot()).not.toBeNull(); // the minimum, whatever the loop does
    await burn(1_200); // two windows of 150 ms stalls: delay p99 ≈ 140 ms > 100
    expect(supplier.loopDelayP99Ms).toBeGreaterThan(100);
    expect(supplier.tryReserveSlot()).toBeNull();
    // A reservation waits (the SDK polls for no task meanwhile) and is issued once the loop is calm again.
    const waiting = supplier.reserveSlot({}, new AbortController().signal);
    await idle(1_200);
    await waiting;
    expect(supplier.reservedSlots).toBe(2);
  });

  it('rejects a waiting reservation with an AbortError when the SDK aborts it', async () => {
    supplier = new EventLoopSlotSupplier({ minActivities: 1, maxActivities: 1, maxLoopDelayMs: 100 });
    supplier.tryReserveSlot();
    const abort = new AbortController();
    const waiting = supplier.reserveSlot({}, abort.signal);
    abort.abort();
    // Its signal's reason: what the SDK takes for an aborted reservation (anything else it logs as an error).
    await expect(waiting).rejects.toBe(abort.signal.reason);
    expect(supplier.reservedSlots).toBe(1);
  });
});
