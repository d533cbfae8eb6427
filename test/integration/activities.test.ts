import { MockActivityEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createActivities, type Activities } from '../../activities';
import type { ProbeProgress, RetrySummary } from '../../activities/types';
import { SecretBox } from '../../src/crypto/secret-box';
import { findRun } from '../../src/db/runs';
import { findRunTargets } from '../../src/db/run-targets';
import { createSuite, post } from '../helpers/api';
import { answers, startFakeNode, type FakeNode } from '../helpers/json-rpc-node';
import { startStack, type Stack } from '../helpers/stack';

/** Runs an activity in a mock activity context (attempt, heartbeat details) and keeps its result type. */
function runActivity<A extends unknown[], R>(
  info: ConstructorParameters<typeof MockActivityEnvironment>[0],
  fn: (...args: A) => Promise<R>,
  ...args: A
): Promise<R> {
  return new MockActivityEnvironment(info).run(fn, ...args) as Promise<R>;
}

const RETRY: RetrySummary = { maxAttempts: 3, initialIntervalMs: 1000, backoffCoefficient: 2, maxIntervalMs: 30_000 };

describe('run activities against the real database', () => {
  let stack: Stack;
  let node: FakeNode;
  let activities: Activities;
  beforeAll(async () => {
    // No worker: the workflow started by the API waits, and the tests drive the activities directly.
    stack = await startStack({ worker: false });
    node = await startFakeNode(answers.ok());
    activities = createActivities({ sql: stack.sql, box: stack.box, allowPrivateTargets: true });
  });
  afterAll(async () => {
    await node.close();
    await stack.close();
  });

  async function newRun() {
    const { auth } = await stack.newTenant();
    const setup = await createSuite(stack.app, auth, { candidates: [node.url] });
    const run = await post<{ id: string }>(stack.app, `/v1/suites/${setup.suiteId}/runs`, auth);
    const [target] = await findRunTargets(stack.sql, run.body.id);
    return { runId: run.body.id, targetId: target!.id };
  }

  it('claims a run exactly once; a retried claim changes nothing', async () => {
    const { runId } = await newRun();
    const first = await runActivity({}, activities.claimRun, { runId });
    const claimedAt = (await findRun(stack.sql, runId))!.claimed_at;
    const second = await runActivity({ attempt: 2 }, activities.claimRun, { runId });
    expect(first.outcome).toBe('claimed');
    expect(second.outcome).toBe('already_claimed');
    expect(second.targets).toEqual(first.targets);
    const run = (await findRun(stack.sql, runId))!;
    expect(run.status).toBe('claimed');
    expect(run.claimed_at).toEqual(claimedAt);
  });

  it('resumes a retried probe after the last heartbeated sequence number and never double counts', async () => {
    const { runId, targetId } = await newRun();
    await runActivity({}, activities.claimRun, { runId });
    node.requests.length = 0;

    // Attempt 2 of a probe whose attempt 1 died after committing seq 0..29 (it heartbeated nextSeq 30).
    const progress: ProbeProgress = { nextSeq: 30 };
    const resumed = await runActivity({ attempt: 2, heartbeatDetails: progress }, activities.probeChunk,
      { runId, targetId, retry: RETRY, fromSeq: 0, campaignEndsAtMs: null },
    );
    expect(resumed).toEqual({ targetId, nextSeq: 50, done: true });
    expect(node.requests.length).toBe(20 + 2); // seq 30..49 and the warm-up

    // Attempt 3 without progress (heartbeat lost) probes everything again; rows already there are not counted twice.
    await runActivity({ attempt: 3 }, activities.probeChunk, { runId, targetId, retry: RETRY, fromSeq: 0, campaignEndsAtMs: null });
    const [count] = await stack.sql<{ n: number; distinct_seq: number }[]>`
      select count(*)::int as n, count(distinct seq)::int as distinct_seq
      from run_samples where run_id = ${runId} and target_id = ${targetId}`;
    expect(count).toEqual({ n: 50, distinct_seq: 50 });

    // The attempts that never reported are in the retry history, once each.
    const history = await stack.sql<{ attempt: number; error_type: string }[]>`
      select attempt, error_type from run_retries where run_id = ${runId} order by attempt`;
    expect(history).toEqual([
      { attempt: 1, error_type: 'attempt_lost' },
      { attempt: 2, error_type: 'attempt_lost' },
    ]);
  });

  it('plans and probes a run whose snapshot predates the chain family as EVM (eth_blockNumber head, hex pinned block)', async () => {
    const { auth } = await stack.newTenant();
    const setup = await createSuite(stack.app, auth, {
      candidates: [node.url],
      config: {
        workload: {
          methods: [{ method: 'eth_getBalance', params: ['0x00000000000000000000000000000000000000aa', '{{pinned_block}}'] }],
          requests_per_target: 5,
          warmup_requests: 0,
          block_lag: 2,
        },
      },
    });
    const created = await post<{ id: string }>(stack.app, `/v1/suites/${setup.suiteId}/runs`, auth);
    const runId = created.body.id;
    const [target] = await findRunTargets(stack.sql, runId);
    await stack.sql`update runs set config_snapshot = config_snapshot #- '{chain,family}' where id = ${runId}`;
    expect((await findRun(stack.sql, runId))!.config_snapshot.chain.family).toBeUndefined();
    await runActivity({}, activities.claimRun, { runId });
    node.requests.length = 0;

    // The fake node answers every call with "0x10": head 16, block_lag 2 → pinned block 14 = 0xe.
    expect(await runActivity({}, activities.planRun, { runId, retry: RETRY })).toEqual({ pinnedBlock: 14 });
    expect(node.requests.map((r) => r.method)).toEqual(['eth_blockNumber']);
    node.requests.length = 0;
    await runActivity({}, activities.probeChunk, { runId, targetId: target!.id, retry: RETRY, fromSeq: 0, campaignEndsAtMs: null });
    const sent = node.requests.filter((r) => r.method === 'eth_getBalance');
    expect(sent).toHaveLength(5);
    for (const request of sent) expect(request.params).toEqual(['0x00000000000000000000000000000000000000aa', '0xe']);
  });

  it('fails a probe for good, sending nothing, when the run\'s snapshot names a chain family without an adapter', async () => {
    const { runId, targetId } = await newRun();
    await runActivity({}, activities.claimRun, { runId });
    await stack.sql`update runs set config_snapshot = jsonb_set(config_snapshot, '{chain,family}', '"cosmos"') where id = ${runId}`;
    node.requests.length = 0;
    const failure = await runActivity({}, activities.probeChunk, { runId, targetId, retry: RETRY, fromSeq: 0, campaignEndsAtMs: null }).catch((e: unknown) => e);
    expect(failure).toMatchObject({ type: 'UnsupportedChainFamily', nonRetryable: true, message: expect.stringMatching(/"cosmos" is not supported yet/) });
    expect(node.requests.length).toBe(0);
  });

  it('records a refused endpoint as a final failed attempt without sending anything', async () => {
    const { runId, targetId } = await newRun();
    await runActivity({}, activities.claimRun, { runId });
    const broken = createActivities({ sql: stack.sql, box: stack.box, allowPrivateTargets: false });
    // With private targets disallowed the loopback node is refused before anything is sent.
    node.requests.length = 0;
    await expect(
      runActivity({ attempt: 3 }, broken.probeChunk, { runId, targetId, retry: RETRY, fromSeq: 0, campaignEndsAtMs: null }),
    ).rejects.toThrow(/refused to connect to a loopback address/);
    expect(node.requests.length).toBe(0);
    const [last] = await stack.sql<{ attempt: number; error_type: string; next_attempt_at: Date | null; message: string }[]>`
      select attempt, error_type, next_attempt_at, message from run_retries where run_id = ${runId} and attempt = 3`;
    expect(last).toMatchObject({ attempt: 3, error_type: 'OutboundAddressRefused', next_attempt_at: null });
    expect(last!.message).not.toContain('127.0.0.1');
  });

  it('schedules the next attempt of a retryable failure by the suite\'s backoff', async () => {
    const { runId, targetId } = await newRun();
    await runActivity({}, activities.claimRun, { runId });
    // A worker with the wrong secret key cannot decrypt the endpoint: an infrastructure failure, retried.
    const misconfigured = createActivities({ sql: stack.sql, box: new SecretBox('another-key-another-key-another-key'), allowPrivateTargets: true });
    await expect(
      runActivity({ attempt: 1 }, misconfigured.probeChunk, { runId, targetId, retry: RETRY, fromSeq: 0, campaignEndsAtMs: null }),
    ).rejects.toThrow();
    const [first] = await stack.sql<{ failed_at: Date; next_attempt_at: Date | null }[]>`
      select failed_at, next_attempt_at from run_retries where run_id = ${runId} and attempt = 1`;
    expect(first!.next_attempt_at!.getTime() - first!.failed_at.getTime()).toBe(RETRY.initialIntervalMs);
  });
});
