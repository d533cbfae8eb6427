import { ApplicationFailure, Context } from '@temporalio/activity';
import type { Client } from '@temporalio/client';
import { hostname } from 'node:os';
import { findRun } from '../src/db/runs';
import { findRunTargets } from '../src/db/run-targets';
import { tenantCaps } from '../src/db/tenant-probe-cap';
import { recordShardFinished, recordShardStarted, type SweepShardKey } from '../src/db/sweep-shards';
import { sweepPlanOf } from '../src/domain/sweep';
import { DEFAULT_MAX_SHARDS, DEFAULT_SHARD_MAX_RPS, shardCount, shardOfSeq, shardsPerWorker, shardsWithinCap, type ShardLimits } from '../src/domain/sweep-shards';
import { DEFAULT_TENANT_MAX_PROBE_ACTIVITIES } from './probe-admission';
import type { ProbeDeps } from './probe-chunk';
import { probeStepSeqs } from './probe-sweep-step';
import { endAttemptWaiting } from './retry-recording';
import { runPlanOrFail } from './run-plan';
import type { ProbeSweepShardInput, ProbeSweepStepResult, SweepShardsPlan } from './types';

/*
 * Sharded sweep steps (DESIGN §17): a step whose rate one process cannot send on schedule is
 * split into shards (seq ≡ shard mod shards) on the step's one anchor, each shard its own
 * activity on the probe task queue, so Temporal spreads them over every worker polling it.
 */

const WORKER = { name: `${hostname()}:${process.pid}`, pid: process.pid };

/** Error type of a shard attempt handed back by a worker that runs its share of the step already. */
export const SHARD_SPREAD = 'SweepShardSpread';
/** How soon a handed-back shard is offered again (to the polls waiting then: another worker's). */
const SPREAD_RETRY = '100 milliseconds';
/**
 * Shards are handed back only until this long before the step's anchor: later, any worker takes
 * any shard (a lone survivor, a retry after a lost worker), so a step never waits on the spread.
 */
export const SPREAD_UNTIL_BEFORE_ANCHOR_MS = 500;
/** A worker whose last poll of the queue is older than this is not counted (Temporal keeps a dead one's for minutes). */
export const POLLED_WITHIN_MS = 75_000;

/** Shards of each step (run, target, step) running on this worker process now. */
const runningShards = new Map<string, number>();

/** Worker processes polling the activity task queue lately; 1 when Temporal cannot say (no client, an error). */
async function workersPolling(temporal: Client | undefined, namespace: string | undefined, taskQueue: string): Promise<number> {
  if (!temporal || !namespace) return 1;
  try {
    const queue = await temporal.workflowService.describeTaskQueue({ namespace, taskQueue: { name: taskQueue }, taskQueueType: 2 });
    const since = Date.now() - POLLED_WITHIN_MS;
    const seen = (queue.pollers ?? []).filter((p) => Number(p.lastAccessTime?.seconds ?? 0) * 1000 >= since).map((p) => p.identity);
    return Math.max(1, new Set(seen).size);
  } catch {
    return 1;
  }
}

/** The shard limits of this worker's configuration (the defaults without one: tests' stacks). */
function limitsOf(deps: ProbeDeps & { config?: { sweepShards: ShardLimits } }): ShardLimits {
  return deps.config?.sweepShards ?? { shardMaxRps: DEFAULT_SHARD_MAX_RPS, maxShards: DEFAULT_MAX_SHARDS };
}

/**
 * How many shards each step of the run's sweep is split into: by its rate, the per-shard ceiling
 * and the most shards per step, and within the tenant's cap on probe activities in flight (every
 * shard of every target of a step takes a place at once: shardsWithinCap).
 */
export async function planSweepShards(
  deps: ProbeDeps & { config?: { sweepShards: ShardLimits }; tenantMaxProbeActivities?: number },
  input: { runId: string },
): Promise<SweepShardsPlan> {
  const run = await findRun(deps.sql, input.runId);
  if (!run) throw ApplicationFailure.nonRetryable(`run ${input.runId} not found`, 'NotFound');
  const plan = sweepPlanOf(runPlanOrFail(run).workload.sweep);
  if (!plan) throw ApplicationFailure.nonRetryable('the run has no sweep', 'NotFound');
  const limits = limitsOf(deps);
  const targets = (await findRunTargets(deps.sql, run.id)).length;
  const cap = (await tenantCaps(deps.sql, run.tenant_id)).maxProbeActivities ?? deps.tenantMaxProbeActivities ?? DEFAULT_TENANT_MAX_PROBE_ACTIVITIES;
  return { shards: plan.steps.map((s) => shardsWithinCap(shardCount(s.rate, limits), targets, cap)) };
}

/**
 * One chunk of one shard: the step's probing (probeStepSeqs) over the shard's seqs only, with a
 * record of the worker process that ran the attempt (run_sweep_shards). A shard lost with its
 * worker is retried by Temporal on any worker, from its last committed seq (heartbeated); the
 * writes replace only the shard's own seqs, so nothing is lost or stored twice.
 */
export async function probeSweepShard(deps: ProbeDeps & { temporal?: Client }, input: ProbeSweepShardInput): Promise<ProbeSweepStepResult> {
  const valid = Number.isInteger(input.shards) && input.shards >= 1 && Number.isInteger(input.shard) && input.shard >= 0 && input.shard < input.shards;
  if (!valid || shardOfSeq(input.fromSeq, input.shards) !== input.shard) {
    throw ApplicationFailure.nonRetryable(`shard ${input.shard} of ${input.shards} is not a shard`, 'InvalidShard');
  }
  const key = (attempt: number): SweepShardKey => ({
    runId: input.runId,
    targetId: input.targetId,
    step: input.step,
    shard: input.shard,
    shards: input.shards,
    fromSeq: input.fromSeq,
    attempt,
  });
  // While the step's shards are handed out, a process takes only its share of them (shardsPerWorker):
  // one over it goes back to the queue, to the polls of the processes that have less.
  const stepKey = `${input.runId}/${input.targetId}/${input.step}`;
  if (Date.now() < input.anchorMs - SPREAD_UNTIL_BEFORE_ANCHOR_MS) {
    const { info } = Context.current();
    const share = shardsPerWorker(input.shards, await workersPolling(deps.temporal, info.workflowNamespace, info.taskQueue));
    if ((runningShards.get(stepKey) ?? 0) >= share) {
      endAttemptWaiting(
        ApplicationFailure.create({ message: `this worker runs its share (${share}) of the step's shards; another takes this one`, type: SHARD_SPREAD, nextRetryDelay: SPREAD_RETRY }),
      );
    }
  }
  runningShards.set(stepKey, (runningShards.get(stepKey) ?? 0) + 1);
  try {
    return await probeStepSeqs(deps, input, {
      index: input.shard,
      count: input.shards,
      started: (attempt, resumedSeq) => recordShardStarted(deps.sql, key(attempt), WORKER, resumedSeq),
      finished: (attempt, end) => recordShardFinished(deps.sql, key(attempt), end),
    });
  } finally {
    const left = (runningShards.get(stepKey) ?? 1) - 1;
    if (left > 0) runningShards.set(stepKey, left);
    else runningShards.delete(stepKey);
  }
}
