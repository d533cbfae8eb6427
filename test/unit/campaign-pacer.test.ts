import { setTimeout as sleep } from 'node:timers/promises';
import { MockActivityEnvironment } from '@temporalio/testing';
import { describe, expect, it } from 'vitest';
import { withInteractiveYield } from '../../activities/probe-admission';
import type { CallResult, JsonRpcClient } from '../../src/probe/json-rpc-client';
import { CampaignPacer } from '../../src/probe/campaign-pacer';
import { probeRange } from '../../src/probe/probe-range';
import type { PlannedCall } from '../../src/domain/workload';

/** An in-process stand-in for the probed node: answers after `answerAfterMs`, counts calls sent and in flight. */
function fakeNode(answerAfterMs = 2) {
  const seen = { sent: 0, inFlight: 0, maxInFlight: 0 };
  const client: JsonRpcClient = {
    async call(planned: PlannedCall): Promise<CallResult> {
      seen.sent++;
      seen.inFlight++;
      seen.maxInFlight = Math.max(seen.maxInFlight, seen.inFlight);
      await sleep(answerAfterMs);
      seen.inFlight--;
      return { seq: planned.seq, method: planned.method, startedAt: new Date(), latencyUs: 1, outcome: 'ok', httpStatus: 200, rpcErrorCode: null, responseHash: null, reason: null };
    },
    result: async () => '0x1',
    close: async () => undefined,
  };
  return { client, seen };
}
const plan = (seq: number): PlannedCall => ({ seq, method: 'eth_chainId', params: [] });
const until = async (done: () => boolean) => {
  while (!done()) await sleep(1);
};

describe('CampaignPacer', () => {
  it("pauses a campaign's closed loop while an interactive probe runs on the worker, then resumes it to the end", async () => {
    const pacer = new CampaignPacer({ maxLoopDelayMs: 20 });
    const campaign = pacer.enter('campaign');
    const { client, seen } = fakeNode();
    const probing = probeRange({ client, plan, from: 0, to: 400, concurrency: 8, pace: campaign.pace });
    await until(() => seen.sent >= 40);
    const interactive = pacer.enter('interactive');
    // Calls in flight finish (the interactive probe waits for them); none starts after them while it runs.
    await pacer.campaignsSettled(10_000);
    expect(seen.inFlight).toBe(0);
    const sentWhenPaused = seen.sent;
    await sleep(100);
    expect(seen.sent).toBe(sentWhenPaused);
    expect(pacer.state).toMatchObject({ interactive: 1, inFlight: 0 });
    interactive.leave();
    const { results, nextSeq } = await probing;
    expect(nextSeq).toBe(400);
    expect(results.map((r) => r.seq)).toEqual(Array.from({ length: 400 }, (_, i) => i));
    campaign.leave();
    expect(pacer.state).toMatchObject({ campaigns: 0, inFlight: 0 });
  });

  it('halves the calls in flight after a window over the loop-delay limit and grows them back after calm ones', async () => {
    // The windows are the test's: the loop itself is not sampled.
    const pacer = new CampaignPacer({ maxLoopDelayMs: 20, sampleLoop: false });
    const campaign = pacer.enter('campaign');
    const { client, seen } = fakeNode(5);
    const probing = probeRange({ client, plan, from: 0, to: 600, concurrency: 16, pace: campaign.pace });
    await until(() => seen.inFlight === 16);
    pacer.observeLoopDelay(80);
    expect(pacer.state.limit).toBe(8);
    pacer.observeLoopDelay(80);
    expect(pacer.state.limit).toBe(4);
    // Once the calls that were in flight settled, at most 4 at a time.
    await until(() => seen.inFlight <= 4);
    seen.maxInFlight = 0;
    await until(() => seen.sent >= 200);
    expect(seen.maxInFlight).toBeLessThanOrEqual(4);
    pacer.observeLoopDelay(15); // between half the limit and the limit: held
    expect(pacer.state.limit).toBe(4);
    pacer.observeLoopDelay(2);
    expect(pacer.state.limit).toBe(5);
    expect((await probing).nextSeq).toBe(600);
    campaign.leave();
  });

  it('lets a paused campaign stop at its abort', async () => {
    const pacer = new CampaignPacer({ maxLoopDelayMs: 20 });
    const campaign = pacer.enter('campaign');
    const interactive = pacer.enter('interactive');
    const { client, seen } = fakeNode();
    const abort = new AbortController();
    const probing = probeRange({ client, plan, from: 0, to: 100, concurrency: 4, pace: campaign.pace, signal: abort.signal });
    await sleep(20);
    abort.abort();
    expect((await probing).nextSeq).toBe(0);
    expect(seen.sent).toBe(0);
    interactive.leave();
    campaign.leave();
  });

  it('gives no gate to interactive or unclassified probes, and an open loop keeps its schedule whatever the gate says', async () => {
    const pacer = new CampaignPacer({ maxLoopDelayMs: 20 });
    expect(pacer.enter('interactive').pace).toBeUndefined();
    expect(pacer.enter('other').pace).toBeUndefined();
    // A sweep (campaign-class, open loop) sends at its rate even while an interactive probe runs.
    const sweep = pacer.enter('campaign');
    const { client, seen } = fakeNode();
    const { nextSeq } = await probeRange({ client, plan, from: 0, to: 20, concurrency: 4, ratePerSecond: 500, pace: sweep.pace });
    expect(nextSeq).toBe(20);
    expect(seen.sent).toBe(20);
    sweep.leave();
  });
});

describe('withInteractiveYield: a bookkeeping activity of an interactive run', () => {
  const interactiveInfo = { priority: { priorityKey: 1 } } as const;

  it('makes the campaigns yield while it runs and a linger after it succeeds (its next step follows at once)', async () => {
    const pacer = new CampaignPacer({ maxLoopDelayMs: 20, sampleLoop: false, interactiveLingerMs: 60_000 });
    const env = new MockActivityEnvironment(interactiveInfo);
    await env.run(() => withInteractiveYield({ pacer }, async () => expect(pacer.state.interactive).toBe(1)));
    expect(pacer.state.interactive).toBe(1);
  });

  it('lets the campaigns resume at once when the attempt throws (a claim over its tenant\u2019s run cap, asked again every 2 s)', async () => {
    const pacer = new CampaignPacer({ maxLoopDelayMs: 20, sampleLoop: false, interactiveLingerMs: 60_000 });
    const env = new MockActivityEnvironment(interactiveInfo);
    await expect(env.run(() => withInteractiveYield({ pacer }, async () => Promise.reject(new Error('the tenant has its cap of running runs'))))).rejects.toThrow('cap of running runs');
    // Without this a queued run's claims (every 2 s, each with a 1 s linger) paused the campaigns half the time.
    expect(pacer.state.interactive).toBe(0);
  });
});
