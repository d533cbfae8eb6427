import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import type { CallResult, JsonRpcClient } from '../../src/probe/json-rpc-client';
import { CATCH_UP_FACTOR, performanceTimeAt, probeRange, type ProbedCall } from '../../src/probe/probe-range';
import type { PlannedCall } from '../../src/domain/workload';

// The scheduler on its own, against an in-process stand-in for the probed node that answers after
// a chosen delay and records when each call was handed to it (a loopback node adds nothing here
// but noise; run-engine and paired-probing tests drive the real client).

interface Sent {
  seq: number;
  atMs: number;
  intendedMs: number | undefined;
}

function fakeNode(answerAfterMs: (seq: number) => number = () => 1): { client: JsonRpcClient; sent: Sent[] } {
  const sent: Sent[] = [];
  const client: JsonRpcClient = {
    async call(planned: PlannedCall, intendedStartMs?: number): Promise<CallResult> {
      const atMs = performance.now();
      sent.push({ seq: planned.seq, atMs, intendedMs: intendedStartMs });
      await sleep(answerAfterMs(planned.seq));
      const from = intendedStartMs ?? atMs;
      return {
        seq: planned.seq,
        method: planned.method,
        startedAt: new Date(),
        latencyUs: Math.round((performance.now() - from) * 1000),
        outcome: 'ok',
        httpStatus: 200,
        rpcErrorCode: null,
        responseHash: null,
        reason: null,
      };
    },
    result: async () => '0x1',
    close: async () => undefined,
  };
  return { client, sent };
}

const plan = (seq: number): PlannedCall => ({ seq, method: 'eth_chainId', params: [] });

describe('probeRange: a shard of a step (stride)', () => {
  it('sends only its residue, each seq at its instant on the whole step\'s schedule, batches gap-free within the shard', async () => {
    const stride = 3;
    const originMs = performance.now() + 20;
    const shards = [0, 1, 2].map((shard) => ({ shard, node: fakeNode(), batches: [] as [number, number, number[]][] }));
    const ends = await Promise.all(
      shards.map(({ shard, node, batches }) =>
        probeRange({
          client: node.client,
          plan,
          from: 10 + shard,
          to: 25,
          stride,
          concurrency: 2,
          ratePerSecond: 200,
          scheduleOriginMs: originMs,
          batchCalls: 2,
          onBatch: (results, fromSeq, toSeq) => batches.push([fromSeq, toSeq, results.map((r) => r.seq)]),
        }),
      ),
    );
    // Together the shards send every seq of [10, 25) once; each resumes at its next own seq.
    expect(shards.flatMap((s) => s.node.sent.map((x) => x.seq)).sort((a, b) => a - b)).toEqual(Array.from({ length: 15 }, (_, i) => 10 + i));
    expect(ends.map((e) => e.nextSeq)).toEqual([25, 26, 27]);
    for (const { shard, node, batches } of shards) {
      for (const x of node.sent) {
        expect(x.seq % stride).toBe((10 + shard) % stride);
        expect(x.intendedMs).toBeCloseTo(originMs + x.seq * 5, 6);
      }
      // Batches name their own range [fromSeq, toSeq) in the shard's seqs, one after the other.
      expect(batches.flatMap(([, , seqs]) => seqs)).toEqual(node.sent.map((x) => x.seq).sort((a, b) => a - b));
      for (const [fromSeq, toSeq, seqs] of batches) {
        expect(seqs[0]).toBe(fromSeq);
        expect(toSeq).toBe(seqs[seqs.length - 1]! + stride);
      }
    }
  });
});

describe('probeRange: open loop on a shared anchor', () => {
  it.each([
    { name: 'a first chunk', from: 0, to: 8 },
    { name: 'a retried chunk re-planning seqs 5..9', from: 5, to: 10 },
  ])('sends seq i at origin + i / rate, never before: $name', async ({ from, to }) => {
    const { client, sent } = fakeNode();
    const originMs = performance.now() + 30;
    const { results, nextSeq } = await probeRange({ client, plan, from, to, concurrency: 2, ratePerSecond: 100, scheduleOriginMs: originMs });
    expect(nextSeq).toBe(to);
    expect(results.map((r) => r.seq)).toEqual(Array.from({ length: to - from }, (_, i) => from + i));
    for (const s of sent) {
      const dueMs = originMs + s.seq * 10;
      expect(s.intendedMs).toBeCloseTo(dueMs, 6);
      // A timer may fire up to 1 ms early (the loop sleeps only for waits over 1 ms).
      expect(s.atMs).toBeGreaterThanOrEqual(dueMs - 1.01);
    }
    for (const r of results) {
      const s = sent.find((x) => x.seq === r.seq)!;
      // The scheduler measures the lag just before it hands the call over, the stand-in notes the
      // time once it has it: the recorded lag is never below the 1 ms a send may be early and never
      // more than the stand-in saw (how close the two are depends on the machine's load; large lags
      // are the catch-up test's).
      expect(r.sendLagUs!).toBeGreaterThanOrEqual(-1010);
      expect(r.sendLagUs!).toBeLessThanOrEqual((s.atMs - (originMs + r.seq * 10)) * 1000 + 50);
    }
  });

  it('sends calls whose instant has passed late, catching up at twice the rate, and their send lag shows how late', async () => {
    const { client, sent } = fakeNode();
    // Every instant (0..295 ms after the origin) passed 200+ ms ago.
    const originMs = performance.now() - 500;
    const { results } = await probeRange({ client, plan, from: 0, to: 60, concurrency: 60, ratePerSecond: 200, scheduleOriginMs: originMs });
    expect(results.map((r) => r.seq)).toEqual(Array.from({ length: 60 }, (_, i) => i));
    for (const r of results) expect(r.sendLagUs!).toBeGreaterThanOrEqual((500 - r.seq * 5) * 1000 - 1000);
    // Not all at once (the old behaviour sent the 60 within a few ms): one per 2.5 ms
    // (CATCH_UP_FACTOR × 200/s), each at most 1 ms early and the first two right away.
    expect(CATCH_UP_FACTOR).toBe(2);
    for (let i = 0; i < sent.length; i += 10) {
      for (let j = i + 1; j < sent.length; j += 7) {
        expect(sent[j]!.atMs - sent[i]!.atMs).toBeGreaterThanOrEqual((j - i - 1) * 2.5 - 2.01);
      }
    }
  });

  it('catches up with a backlog behind a stalled endpoint no faster than twice the rate once slots free up', async () => {
    // 16 slots (concurrency 1), 100/s: the endpoint answers nothing for its first 300 ms, then
    // everything at once. The cap holds the loop back from ~160 ms; at 300 ms every slot frees
    // with 14 calls overdue — they go out one per 5 ms, not together.
    const stallUntil = performance.now() + 300;
    const { client, sent } = fakeNode(() => Math.max(1, stallUntil - performance.now()));
    const { results } = await probeRange({ client, plan, from: 0, to: 50, concurrency: 1, ratePerSecond: 100 });
    expect(results.map((r) => r.seq)).toEqual(Array.from({ length: 50 }, (_, i) => i));
    const afterStall = sent.filter((s) => s.atMs >= stallUntil);
    expect(afterStall.length).toBeGreaterThan(14);
    for (let i = 0; i < afterStall.length; i++) {
      for (let j = i + 1; j < afterStall.length; j++) {
        expect(afterStall[j]!.atMs - afterStall[i]!.atMs).toBeGreaterThanOrEqual((j - i - 1) * 5 - 2.01);
      }
    }
  });

  it('waits for a free in-flight slot with one waiter, not a reaction on every call in flight', async () => {
    // Counts the reactions attached to the calls' promises (then, and what finally and
    // Promise.race/resolve call): O(1) per call, not O(calls in flight).
    let reactions = 0;
    class Counted<T> extends Promise<T> {
      override then<A = T, B = never>(
        onFulfilled?: ((value: T) => A | PromiseLike<A>) | null,
        onRejected?: ((reason: unknown) => B | PromiseLike<B>) | null,
      ): Promise<A | B> {
        reactions++;
        return super.then(onFulfilled, onRejected);
      }
    }
    const { client: inner } = fakeNode(() => 5);
    const client: JsonRpcClient = { ...inner, call: (planned, intended) => Counted.resolve().then(() => inner.call(planned, intended)) };
    const calls = 400;
    // 64 slots (concurrency 4), every call overdue: the cap is what holds the loop back.
    await probeRange({ client, plan, from: 0, to: calls, concurrency: 4, ratePerSecond: 100_000, scheduleOriginMs: performance.now() - 10_000 });
    // Counted.resolve().then() itself is 1; probeRange's then + finally add 2 or 3.
    // Counted.resolve().then() is 1, probeRange's then and finally 4 more (5 measured); a race
    // over the calls in flight made it ~59.
    expect(reactions / calls).toBeLessThan(8);
  });

  it('without an anchor starts the schedule at `from` now (unpaired), still recording the lag', async () => {
    const { client, sent } = fakeNode();
    const before = performance.now();
    const { results } = await probeRange({ client, plan, from: 100, to: 104, concurrency: 1, ratePerSecond: 200 });
    expect(sent[0]!.intendedMs!).toBeGreaterThanOrEqual(before);
    expect(sent[0]!.intendedMs! - before).toBeLessThan(50);
    expect(sent[3]!.intendedMs! - sent[0]!.intendedMs!).toBeCloseTo(15, 6);
    expect(results.every((r) => typeof r.sendLagUs === 'number')).toBe(true);
  });

  it('records no send lag in closed loop', async () => {
    const { client } = fakeNode();
    const { results } = await probeRange({ client, plan, from: 0, to: 6, concurrency: 3 });
    expect(results.map((r) => r.sendLagUs)).toEqual(Array(6).fill(null));
  });
});

describe('probeRange: streamed batches', () => {
  // Later seqs answer first, so batches can only be complete once the slow early ones are in.
  const slowFirst = (seq: number) => Math.max(1, 20 - seq * 2);

  it.each([
    { loop: 'open', ratePerSecond: 500 },
    { loop: 'closed', ratePerSecond: null },
  ])('hands on gap-free batches in seq order, the rest at the end ($loop loop)', async ({ ratePerSecond }) => {
    const { client } = fakeNode(slowFirst);
    const batches: { fromSeq: number; toSeq: number; seqs: number[] }[] = [];
    const out = await probeRange({
      client,
      plan,
      from: 3,
      to: 13,
      concurrency: 4,
      ratePerSecond,
      batchCalls: 3,
      onBatch: (results, fromSeq, toSeq) => batches.push({ fromSeq, toSeq, seqs: results.map((r) => r.seq) }),
    });
    expect(out).toEqual({ results: [], nextSeq: 13 });
    expect(batches).toEqual([
      { fromSeq: 3, toSeq: 6, seqs: [3, 4, 5] },
      { fromSeq: 6, toSeq: 9, seqs: [6, 7, 8] },
      { fromSeq: 9, toSeq: 12, seqs: [9, 10, 11] },
      { fromSeq: 12, toSeq: 13, seqs: [12] },
    ]);
  });

  it('emits a batch while later calls are still being sent (no barrier at the boundary)', async () => {
    const { client, sent } = fakeNode();
    let sentWhenFirstBatch = -1;
    await probeRange({
      client,
      plan,
      from: 0,
      to: 12,
      concurrency: 2,
      ratePerSecond: 200,
      batchCalls: 4,
      onBatch: () => {
        if (sentWhenFirstBatch < 0) sentWhenFirstBatch = sent.length;
      },
    });
    expect(sentWhenFirstBatch).toBeGreaterThanOrEqual(4);
    expect(sentWhenFirstBatch).toBeLessThan(12);
  });

  it('ends a batch after batchMaxMs too, so a slow schedule hands on (and commits) its results while it goes', async () => {
    const { client, sent } = fakeNode();
    const batches: { fromSeq: number; toSeq: number; sentSoFar: number }[] = [];
    await probeRange({
      client,
      plan,
      from: 0,
      to: 30,
      concurrency: 2,
      // 30 calls over about 0.6 s: far fewer than a batch of 1,000.
      ratePerSecond: 50,
      batchCalls: 1_000,
      batchMaxMs: 100,
      onBatch: (results, fromSeq, toSeq) => {
        expect(results.map((r) => r.seq)).toEqual(Array.from({ length: toSeq - fromSeq }, (_, i) => fromSeq + i));
        batches.push({ fromSeq, toSeq, sentSoFar: sent.length });
      },
    });
    expect(batches.length).toBeGreaterThanOrEqual(2);
    // Gap-free and in order, covering every seq once.
    expect(batches.map((b) => [b.fromSeq, b.toSeq])).toEqual(batches.map((b, i) => [i === 0 ? 0 : batches[i - 1]!.toSeq, b.toSeq]));
    expect(batches.at(-1)!.toSeq).toBe(30);
    // The first batch was handed on while later calls were still to be sent.
    expect(batches[0]!.sentSoFar).toBeLessThan(30);
  });

  it('stops sending and rejects when onBatch throws', async () => {
    const { client, sent } = fakeNode();
    const run = probeRange({
      client,
      plan,
      from: 0,
      to: 200,
      concurrency: 2,
      ratePerSecond: 500,
      batchCalls: 2,
      onBatch: () => {
        throw new Error('write failed');
      },
    });
    await expect(run).rejects.toThrow('write failed');
    expect(sent.length).toBeLessThan(200);
  });

  it('stops on abort with everything it sent on record, in order', async () => {
    const { client } = fakeNode();
    const abort = new AbortController();
    setTimeout(() => abort.abort(), 60);
    const seen: ProbedCall[] = [];
    const { nextSeq } = await probeRange({
      client,
      plan,
      from: 0,
      to: Number.POSITIVE_INFINITY,
      concurrency: 2,
      ratePerSecond: 100,
      signal: abort.signal,
      batchCalls: 2,
      onBatch: (results) => seen.push(...results),
    });
    expect(nextSeq).toBeLessThan(50);
    expect(seen.map((r) => r.seq)).toEqual(Array.from({ length: nextSeq }, (_, i) => i));
  });
});

describe('performanceTimeAt', () => {
  it('maps the wall clock onto performance.now() to within a millisecond (median of 7, as the machine may preempt a read)', () => {
    const offsets: number[] = [];
    for (let i = 0; i < 7; i++) {
      const wall = Date.now();
      const perf = performance.now();
      // Date.now() was read a few µs before perf, somewhere inside its millisecond: perf − mapped ∈ [0, 1).
      offsets.push(perf - performanceTimeAt(wall));
    }
    const median = offsets.sort((a, b) => a - b)[3]!;
    expect(median).toBeGreaterThan(-0.2);
    expect(median).toBeLessThan(1.2);
  });

  it('gives the same instant twice alike (median of 7 differences under 0.25 ms)', () => {
    const anchor = Date.now() + 1_500;
    const differences = Array.from({ length: 7 }, () => Math.abs(performanceTimeAt(anchor) - performanceTimeAt(anchor)));
    expect(differences.sort((a, b) => a - b)[3]!).toBeLessThan(0.25);
  });

  it('keeps differences of wall-clock instants exact (one anchor, many seqs)', () => {
    const anchor = Date.now() + 1_500;
    expect(performanceTimeAt(anchor + 1_000) - performanceTimeAt(anchor)).toBeCloseTo(1_000, 0);
  });
});
