import { MockActivityEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createActivities, type Activities } from '../../activities';
import type { ProbeProgress, RetrySummary } from '../../activities/types';
import { findRunTargets } from '../../src/db/run-targets';
import { createSuite, post } from '../helpers/api';
import { answers, startFakeNode, type FakeNode } from '../helpers/json-rpc-node';
import { startStack, type Stack } from '../helpers/stack';

// The probe activity on a shared anchor, driven directly (no worker) so a retried attempt can be
// staged: a retried chunk re-plans its seqs at the anchor's instants, and when those have passed
// it sends late — its send lag, and so the pairing skew, shows it.

function runActivity<A extends unknown[], R>(
  info: ConstructorParameters<typeof MockActivityEnvironment>[0],
  fn: (...args: A) => Promise<R>,
  ...args: A
): Promise<R> {
  return new MockActivityEnvironment(info).run(fn, ...args) as Promise<R>;
}

const RETRY: RetrySummary = { maxAttempts: 3, initialIntervalMs: 1000, backoffCoefficient: 2, maxIntervalMs: 30_000 };
const RATE = 100; // one call every 10 ms

interface Row {
  seq: number;
  started_at: Date;
  send_lag_us: number | null;
}

describe('probeChunk on a shared schedule anchor', () => {
  let stack: Stack;
  let candidate: FakeNode;
  let reference: FakeNode;
  let activities: Activities;
  beforeAll(async () => {
    stack = await startStack({ worker: false });
    candidate = await startFakeNode(answers.ok());
    reference = await startFakeNode(answers.ok());
    activities = createActivities({ sql: stack.sql, box: stack.box, allowPrivateTargets: true });
  });
  afterAll(async () => {
    await candidate?.close();
    await reference?.close();
    await stack?.close();
  });

  async function newPairedRun() {
    const { auth } = await stack.newTenant();
    const setup = await createSuite(stack.app, auth, {
      candidates: [candidate.url],
      reference: reference.url,
      config: { workload: { requests_per_target: 40, rate_per_second: RATE, concurrency: 2, warmup_requests: 0 } },
    });
    const run = await post<{ id: string }>(stack.app, `/v1/suites/${setup.suiteId}/runs`, auth);
    const targets = await findRunTargets(stack.sql, run.body.id);
    await runActivity({}, activities.claimRun, { runId: run.body.id });
    return {
      runId: run.body.id,
      candidateId: targets.find((t) => t.role === 'primary')!.id,
      referenceId: targets.find((t) => t.role === 'reference')!.id,
    };
  }

  const rows = (runId: string, targetId: string) => stack.sql<Row[]>`
    select seq, started_at, send_lag_us from run_samples where run_id = ${runId} and target_id = ${targetId} order by seq`;

  it('a retried attempt resuming mid-chunk sends each seq at the instant the reference got it', async () => {
    const { runId, candidateId, referenceId } = await newPairedRun();
    const scheduleAnchorMs = Date.now() + 500;
    const input = { runId, retry: RETRY, fromSeq: 0, campaignEndsAtMs: null, scheduleAnchorMs };
    // The candidate's attempt 1 committed seq 0..19 and died; attempt 2 resumes at 20 while the
    // reference's first attempt runs the whole range.
    const progress: ProbeProgress = { nextSeq: 20 };
    const [c, r] = await Promise.all([
      runActivity({ attempt: 2, heartbeatDetails: progress }, activities.probeChunk, { ...input, targetId: candidateId }),
      runActivity({}, activities.probeChunk, { ...input, targetId: referenceId }),
    ]);
    expect(c).toEqual({ targetId: candidateId, nextSeq: 40, done: true });
    expect(r).toEqual({ targetId: referenceId, nextSeq: 40, done: true });
    const candidateRows = await rows(runId, candidateId);
    const referenceRows = new Map((await rows(runId, referenceId)).map((row) => [row.seq, row]));
    expect(candidateRows.map((row) => row.seq)).toEqual(Array.from({ length: 20 }, (_, i) => 20 + i));
    for (const row of candidateRows) {
      const due = scheduleAnchorMs + row.seq * 10;
      const other = referenceRows.get(row.seq)!;
      // Both sides stamp a sample with the instant the schedule meant (the anchor is wall-clock
      // time each activity turns into its monotonic clock once, so a stalled process can shift that
      // by a few ms): the two sides' instants agree, and both are the anchor's.
      expect(Math.abs(row.started_at.getTime() - other.started_at.getTime())).toBeLessThanOrEqual(10);
      expect(Math.abs(row.started_at.getTime() - due)).toBeLessThanOrEqual(25);
      expect(Math.abs(other.started_at.getTime() - due)).toBeLessThanOrEqual(25);
      // Sent on time on both sides: a sanity bound on a loaded two-core machine, not a speed test.
      expect(Math.abs(row.send_lag_us! - other.send_lag_us!)).toBeLessThan(250_000);
    }
  });

  it('a retried attempt whose instants have passed sends late (catching up at twice the rate) and records how late', async () => {
    const { runId, candidateId, referenceId } = await newPairedRun();
    const scheduleAnchorMs = Date.now() + 300;
    const input = { runId, retry: RETRY, fromSeq: 0, campaignEndsAtMs: null, scheduleAnchorMs };
    await runActivity({}, activities.probeChunk, { ...input, targetId: referenceId });
    // The candidate's retry starts after every instant of the schedule (0.3 s + 40 × 10 ms) has passed.
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, scheduleAnchorMs + 600 - Date.now())));
    await runActivity({ attempt: 2 }, activities.probeChunk, { ...input, targetId: candidateId });
    const late = await rows(runId, candidateId);
    expect(late).toHaveLength(40);
    for (const row of late) {
      const due = scheduleAnchorMs + row.seq * 10;
      // Latency (and started_at) still count from the intended instant; the lag says how late it went out.
      expect(Math.abs(row.started_at.getTime() - due)).toBeLessThanOrEqual(5);
      expect(row.send_lag_us!).toBeGreaterThanOrEqual((scheduleAnchorMs + 600 - due) * 1000 - 3_000);
    }
    const [skew] = await stack.sql<{ p50: number }[]>`
      select percentile_disc(0.5) within group (order by abs(c.send_lag_us - r.send_lag_us)) as p50
      from run_samples c join run_samples r on r.run_id = c.run_id and r.target_id = ${referenceId} and r.seq = c.seq
      where c.run_id = ${runId} and c.target_id = ${candidateId}`;
    expect(skew!.p50).toBeGreaterThan(100_000);
  });

  it('records no send lag without an anchor (a run begun before paired probing)', async () => {
    const { runId, candidateId } = await newPairedRun();
    await runActivity({}, activities.probeChunk, { runId, targetId: candidateId, retry: RETRY, fromSeq: 0, campaignEndsAtMs: null });
    const unanchored = await rows(runId, candidateId);
    expect(unanchored).toHaveLength(40);
    expect(unanchored.every((row) => row.send_lag_us === null)).toBe(true);
  });
});
