/*
 * Shards of a capacity sweep step (DESIGN §17): a step whose rate one process cannot send on
 * schedule is split into K shards, shard i sending the step's seqs with seq ≡ i (mod K), all on
 * the step's one anchor, so together they send the step's arrival process. Each shard is its own
 * activity on the probe task queue: Temporal hands them to whichever workers poll it. Pure.
 */

/**
 * What one shard is trusted to send on schedule, calls/s (RVS_SWEEP_SHARD_MAX_RPS). Measured with
 * npm run bench:sweep (docs/performance.md): one worker process kept send-lag p99 ≤ 1 ms at about
 * 1,000–2,300 calls/s on the developers' 2-core machines, the real path (Temporal, sample writes)
 * less; 1,000 keeps a shard well inside what a process holds.
 */
export const DEFAULT_SHARD_MAX_RPS = 1_000;
/** Shards a step is split into at most (RVS_SWEEP_MAX_SHARDS): a bound on activities per step and target. */
export const DEFAULT_MAX_SHARDS = 8;

export interface ShardLimits {
  /** Calls/s one shard sends at most. */
  shardMaxRps: number;
  /** Shards per step at most. */
  maxShards: number;
}

/** Shards for a step of this rate: enough that none sends more than shardMaxRps, capped by maxShards; at least 1. */
export function shardCount(rate: number, limits: ShardLimits): number {
  const needed = Math.ceil(rate / Math.max(1, limits.shardMaxRps));
  return Math.max(1, Math.min(Math.max(1, Math.floor(limits.maxShards)), needed));
}

/**
 * Shards per step within the tenant's cap on probe activities in flight (tenants.max_probe_activities,
 * RVS_TENANT_MAX_PROBE_ACTIVITIES): a step runs `shards` activities on each of `targets` targets at
 * once, and a shard over the cap would wait for a place until the others ended, so the step would
 * not send its rate together. The step is sized to the cap instead (at least 1 shard per target):
 * fewer shards, each sending more, its send lag judged as always.
 */
export function shardsWithinCap(shards: number, targets: number, tenantCap: number): number {
  return Math.max(1, Math.min(shards, Math.floor(tenantCap / Math.max(1, targets))));
}

/**
 * Shards of one step a worker process runs at once while the step's shards are being handed out:
 * its share of them over the worker processes polling the queue (at least 1). Temporal gives a
 * burst of tasks to whichever polls wait, in their order, and one process keeps up to ten polls
 * per queue waiting: left alone, the first process to poll takes every shard of the step.
 */
export function shardsPerWorker(shards: number, workers: number): number {
  return Math.max(1, Math.ceil(shards / Math.max(1, Math.floor(workers))));
}

/** The first seq at or after `fromSeq` that belongs to shard `shard` of `shards` (seq ≡ shard mod shards). */
export function firstSeqOfShard(fromSeq: number, shard: number, shards: number): number {
  return fromSeq + ((((shard - fromSeq) % shards) + shards) % shards);
}

/** The shard a seq belongs to. */
export function shardOfSeq(seq: number, shards: number): number {
  return ((seq % shards) + shards) % shards;
}
