import { describe, expect, it } from 'vitest';
import { AppError } from '../../src/errors';
import { cachedReadiness, type Readiness } from '../../src/services/health';

const READY: Readiness = { status: 'ready', checks: { postgres: 'ok', temporal: 'ok' } };

/** A check that answers when told to, counting how often it was started; the clock is the test's. */
function harness() {
  let clock = 0;
  const pending: { resolve: (r: Readiness) => void; reject: (e: Error) => void }[] = [];
  let started = 0;
  const check = () =>
    new Promise<Readiness>((resolve, reject) => {
      started += 1;
      pending.push({ resolve, reject });
    });
  const readiness = cachedReadiness(check, { ttlMs: 1_000, now: () => clock });
  return {
    readiness,
    started: () => started,
    advance: (ms: number) => (clock += ms),
    settle: async (outcome: Readiness | Error) => {
      const next = pending.shift()!;
      if (outcome instanceof Error) next.reject(outcome);
      else next.resolve(outcome);
      await Promise.resolve();
    },
  };
}

describe('cachedReadiness', () => {
  it('runs one check for every call made while it runs, and gives its answer for ttl after it ends', async () => {
    const h = harness();
    const calls = Array.from({ length: 1_000 }, () => h.readiness());
    expect(h.started()).toBe(1);
    await h.settle(READY);
    for (const result of await Promise.all(calls)) expect(result).toEqual(READY);
    h.advance(999);
    await expect(h.readiness()).resolves.toEqual(READY);
    expect(h.started()).toBe(1);
    h.advance(1);
    const next = h.readiness();
    expect(h.started()).toBe(2);
    await h.settle(READY);
    await expect(next).resolves.toEqual(READY);
  });

  it('gives a failure again for ttl too (an outage is not hammered), then checks afresh and recovers', async () => {
    const h = harness();
    const failing = h.readiness();
    await h.settle(new AppError('service_unavailable', 'not ready: postgres is not reachable', []));
    await expect(failing).rejects.toThrow('not ready: postgres is not reachable');
    h.advance(500);
    await expect(h.readiness()).rejects.toThrow('not ready');
    expect(h.started()).toBe(1);
    h.advance(500);
    const recovered = h.readiness();
    expect(h.started()).toBe(2);
    await h.settle(READY);
    await expect(recovered).resolves.toEqual(READY);
  });

  it('a check that hangs is shared, not repeated, however long it runs', () => {
    const h = harness();
    void h.readiness();
    h.advance(60_000);
    void h.readiness();
    expect(h.started()).toBe(1);
  });
});
