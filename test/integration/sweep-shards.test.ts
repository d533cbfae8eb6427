import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sweepPlan } from '../../src/domain/sweep';
import { createSuite, get, post, waitForRun } from '../helpers/api';
import { answers, startFakeNode, type FakeNode } from '../helpers/json-rpc-node';
import { startStack, type Stack } from '../helpers/stack';
import { isRunning, killHard, startWorkerProcess, until } from '../helpers/worker-process';

interface ShardRecord {
  shard: number;
  shards: number;
  from_seq: number;
  attempt: number;
  resumed_seq: number;
  worker_pid: number;
  next_seq: number | null;
}

/**
 * DESIGN §17: a sweep step above what one shard may send is split into shards (seq ≡ i mod K),
 * each its own activity on the task queue, and two worker processes polling it both run some.
 * The per-shard ceiling is lowered (RVS_SWEEP_SHARD_MAX_RPS) so a rate a 2-core test machine
 * sends easily already needs eight shards. The run starts once both workers poll. Temporal hands
 * the step's eight tasks to the polls waiting in their order, and one worker keeps up to ten
 * waiting: the workers spread them themselves (a worker gives back a shard beyond its share, ⌈8 ÷ 2⌉).
 * Without that, one worker took 6 or 7 of them here, and all 8 in the run where this test timed out.
 */
describe('a sweep step split into shards over two worker processes', () => {
  let stack: Stack;
  let node: FakeNode;
  const workers: ChildProcess[] = [];
  const env = { RVS_SWEEP_SHARD_MAX_RPS: '25', RVS_SWEEP_MAX_SHARDS: '8' };
  const SHARDS = 8;
  beforeAll(async () => {
    stack = await startStack({ worker: false });
    // Answers in 500 ms: the prober's own send lag on a busy test machine stays a small part of the latency.
    node = await startFakeNode(answers.delay(500));
  });
  afterAll(async () => {
    for (const worker of workers) if (isRunning(worker)) await killHard(worker);
    await node.close();
    await stack.close();
  });

  it('runs shards on both workers, and a shard lost with its worker (kill -9) resumes on the other: every seq stored once', { timeout: 480_000 }, async () => {
    const sweep = { rates: [200], step_s: 12, warmup_s: 1 };
    const plan = sweepPlan(sweep);
    const { auth } = await stack.newTenant();
    const setup = await createSuite(stack.app, auth, {
      candidates: [node.url],
      config: {
        workload: { sweep, concurrency: 2, warmup_requests: 0, timeout_ms: 5_000 },
        // The prober's stalls on a busy test machine (100 ms and more) may be a large part of the latency.
        thresholds: { latency_p95_max_ms: 2_000, sweep_send_lag_max_pct: 100 },
        retry: { max_attempts: 3, initial_interval_ms: 200 },
      },
    });
    for (let i = 0; i < 2; i++) workers.push(startWorkerProcess({ taskQueue: stack.taskQueue, secretKey: stack.config.secretKey!, env }));
    const pollers = async () => {
      const queue = await stack.client.workflowService.describeTaskQueue({
        namespace: stack.config.temporal.namespace,
        taskQueue: { name: stack.taskQueue },
        taskQueueType: 2, // activity
      });
      return new Set((queue.pollers ?? []).map((p) => p.identity)).size;
    };
    await until(async () => (await pollers()) >= 2, 240_000, 'both workers polling');
    const created = await post<{ id: string }>(stack.app, `/v1/suites/${setup.suiteId}/runs`, auth);
    const runId = created.body.id;
    const shardRecords = () =>
      stack.sql<ShardRecord[]>`
        select shard, shards, from_seq::int as from_seq, attempt, resumed_seq::int as resumed_seq, worker_pid, next_seq::int as next_seq
        from run_sweep_shards where run_id = ${runId} order by shard, attempt`;

    // Both run shards and some samples are committed: then one worker dies mid-step.
    await until(
      async () => {
        const pids = new Set((await shardRecords()).map((r) => r.worker_pid));
        const [stored] = await stack.sql<{ n: number }[]>`select count(*)::int as n from run_samples where run_id = ${runId}`;
        return pids.size === 2 && stored!.n >= 600;
      },
      60_000,
      'shards on both workers, samples committed',
    );
    const before = await shardRecords();
    expect(new Set(before.map((r) => r.worker_pid))).toEqual(new Set(workers.map((w) => w.pid)));
    // Each worker took its share of the step's shards, no more.
    for (const worker of workers) expect(before.filter((r) => r.worker_pid === worker.pid).length, `shards on ${worker.pid}`).toBe(SHARDS / 2);
    const victim = workers[0]!;
    const survivor = workers[1]!;
    await killHard(victim);
    expect(node.requests.length).toBeLessThan(plan.callsPerTarget);

    const run = await waitForRun(stack.app, auth, runId, 180_000);
    expect(run.status, run.failure_reason).toBe('success');

    // Eight shards of one anchor; the killed worker's attempts never finished, and each of its
    // shards was taken up by the survivor, from at or past where the lost attempt began.
    const records = await shardRecords();
    expect(new Set(records.map((r) => r.shards))).toEqual(new Set([SHARDS]));
    expect(new Set(records.map((r) => r.shard))).toEqual(new Set(Array.from({ length: SHARDS }, (_, i) => i)));
    const lost = records.filter((r) => r.worker_pid === victim.pid && r.next_seq === null);
    expect(lost.length).toBeGreaterThan(0);
    for (const l of lost) {
      const retried = records.filter((r) => r.shard === l.shard && r.from_seq === l.from_seq && r.attempt > l.attempt);
      expect(retried.length, `shard ${l.shard} retried`).toBeGreaterThan(0);
      expect(retried.every((r) => r.worker_pid === survivor.pid && r.resumed_seq >= l.resumed_seq && r.resumed_seq % SHARDS === l.shard)).toBe(true);
    }
    // Every shard ended its step on the survivor or before the kill, at the first of its seqs past the step.
    const step = plan.steps[0]!;
    for (let shard = 0; shard < SHARDS; shard++) {
      const ends = records.filter((r) => r.shard === shard && r.next_seq !== null).map((r) => r.next_seq!);
      expect(Math.max(...ends)).toBeGreaterThanOrEqual(step.toSeq);
    }

    // Nothing lost or stored twice: every planned seq once, with its step and warm-up flag.
    const [rows] = await stack.sql<{ n: number; distinct_seq: number; min_seq: number; max_seq: number; warmup: number }[]>`
      select count(*)::int as n, count(distinct seq)::int as distinct_seq, min(seq)::int as min_seq, max(seq)::int as max_seq,
        (count(*) filter (where warmup))::int as warmup
      from run_samples where run_id = ${runId} and sweep_step = 0`;
    expect(rows).toEqual({ n: step.toSeq - step.fromSeq, distinct_seq: step.toSeq - step.fromSeq, min_seq: step.fromSeq, max_seq: step.toSeq - 1, warmup: step.warmupCalls });
    // Send lag is judged per shard: the step's send-lag p99 is its worst shard's.
    const perShard = await stack.sql<{ p99: string }[]>`
      select percentile_disc(0.99) within group (order by send_lag_us) as p99
      from run_samples where run_id = ${runId} and sweep_step = 0 and not warmup group by mod(seq, ${SHARDS})`;
    expect(perShard).toHaveLength(SHARDS);
    const worst = Math.max(...perShard.map((r) => Number(r.p99)));
    const verdict = await get<{ capacity: { endpoints: { steps: { send_lag_p99_ms: number }[] }[] } }>(stack.app, `/v1/runs/${runId}/verdict`, auth);
    expect(verdict.body.capacity.endpoints[0]!.steps[0]!.send_lag_p99_ms).toBe(Math.round((worst / 1000) * 10) / 10);
    // The lost attempts are on the run's retry history, once each.
    const history = run.retry_history as { activity: string; error_type: string }[];
    expect(history.length).toBe(lost.length);
    expect(history.every((h) => h.activity === 'probeSweepShard')).toBe(true);
  });
});
