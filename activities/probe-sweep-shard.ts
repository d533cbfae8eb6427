import { ApplicationFailure } from '@temporalio/activity';
import { hostname } from 'node:os';
import { findRun } from '../src/db/runs';
import { recordShardFinished, recordShardStarted, type SweepShardKey } from '../src/db/sweep-shards';
import { sweepPlanOf } from '../src/domain/sweep';
import { DEFAULT_MAX_SHARDS, DEFAULT_SHARD_MAX_RPS, shardCount, shardOfSeq, type ShardLimits } from '../src/domain/sweep-shards';
import type { ProbeDeps } from './probe-chunk';
import { probeStepSeqs } from './probe-sweep-step';
import { runPlanOrFail } from './run-plan';
import type { ProbeSweepShardInput, ProbeSweepStepResult, SweepShardsPlan } from './types';

/*
 * Sharded sweep steps (DESIGN §17): a step whose rate one process cannot send on schedule is
 * split into shards (seq ≡ shard mod shards) on the step's one anchor, each shard its own
 * activity on the probe task queue, so Temporal spreads them over every worker polling it.
 */

const WORKER = { name: `${hostname()}:${process.pid}`, pid: process.pid };

/** The shard limits of this worker's configuration (the defaults without one: tests' stacks). */
function limitsOf(deps: ProbeDeps & { config?: { sweepShards: ShardLimits } }): ShardLimits {
  return deps.config?.sweepShards ?? { shardMaxRps: DEFAULT_SHARD_MAX_RPS, maxShards: DEFAULT_MAX_SHARDS };
}

/** How many shards each step of the run's sweep is split into: by its rate, the per-shard ceiling and the cap. */
export async function planSweepShards(deps: ProbeDeps & { config?: { sweepShards: ShardLimits } }, input: { runId: string }): Promise<SweepShardsPlan> {
  const run = await findRun(deps.sql, input.runId);
  if (!run) throw ApplicationFailure.nonRetryable(`run ${input.runId} not found`, 'NotFound');
  const plan = sweepPlanOf(runPlanOrFail(run).workload.sweep);
  if (!plan) throw ApplicationFailure.nonRetryable('the run has no sweep', 'NotFound');
  const limits = limitsOf(deps);
  return { shards: plan.steps.map((s) => shardCount(s.rate, limits)) };
}

/**
 * One chunk of one shard: the step's probing (probeStepSeqs) over the shard's seqs only, with a
 * record of the worker process that ran the attempt (run_sweep_shards). A shard lost with its
 * worker is retried by Temporal on any worker, from its last committed seq (heartbeated); the
 * writes replace only the shard's own seqs, so nothing is lost or stored twice.
 */
export async function probeSweepShard(deps: ProbeDeps, input: ProbeSweepShardInput): Promise<ProbeSweepStepResult> {
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
  return probeStepSeqs(deps, input, {
    index: input.shard,
    count: input.shards,
    started: (attempt, resumedSeq) => recordShardStarted(deps.sql, key(attempt), WORKER, resumedSeq),
    finished: (attempt, end) => recordShardFinished(deps.sql, key(attempt), end),
  });
}
