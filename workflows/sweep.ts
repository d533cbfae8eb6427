import { patched, proxyActivities } from '@temporalio/workflow';
import type { Activities, RetrySummary } from '../activities/types';
import { firstSeqOfShard } from '../src/domain/sweep-shards';
import { BOOKKEEPING_OPTIONS, PROBE_OPTIONS } from './activity-options';

/** Marks executions that run a capacity sweep (workload.sweep) instead of the one-rate probes. */
export const SWEEP_PATCH = 'capacity-sweep';

/**
 * Marks sweeps whose steps may be split into shards (DESIGN §17): the shard counts are planned
 * once (planSweepShards), and a step of more than one shard runs one probeSweepShard activity per
 * shard and target. Sweeps begun before it run every step as one activity per target.
 */
export const SWEEP_SHARDS_PATCH = 'sweep-shards';

/**
 * How far ahead of the decision a step's first call is due: time for every target's activity to
 * start (and, on the first step, open its pool). The step's warm-up absorbs what is left.
 */
export const SWEEP_STEP_LEAD_MS = 1_000;
/**
 * The lead of a step split into shards: also time to hand its shards out over the workers (a
 * worker gives back a shard beyond its share until SPREAD_UNTIL_BEFORE_ANCHOR_MS before the anchor).
 */
export const SWEEP_SHARDED_STEP_LEAD_MS = 3_000;

// The run workflow's options: a sweep's chunks are retried and heartbeated like its probe chunks.
const sweepProbes = proxyActivities<Activities>(PROBE_OPTIONS);
const sweepBookkeeping = proxyActivities<Activities>(BOOKKEEPING_OPTIONS);
// Shards go through the queue's matching, never eagerly to the worker that completed the workflow task.
const sweepShards = proxyActivities<Activities>({ ...PROBE_OPTIONS, allowEagerDispatch: false });

/**
 * A capacity sweep (DESIGN §14): step by step, every target (candidates and the reference alike)
 * probes the step's seqs at its rate on one anchor chosen here, chunk by chunk; then the step is
 * judged, and the sweep stops once every candidate broke the budget by a clear margin. Only
 * seqs and a stop flag cross this boundary. Samples carry their step; a lost worker's chunk is
 * retried from its last committed seq.
 */
export async function runSweep(input: {
  runId: string;
  retry: RetrySummary;
  targetIds: readonly string[];
  /** The first seq of each step. */
  steps: readonly number[];
}): Promise<void> {
  const { runId, retry } = input;
  const shardsOfStep = patched(SWEEP_SHARDS_PATCH) ? (await sweepBookkeeping.planSweepShards({ runId })).shards : null;
  for (let step = 0; step < input.steps.length; step++) {
    const shards = shardsOfStep?.[step] ?? 1;
    const anchorMs = Date.now() + (shards > 1 ? SWEEP_SHARDED_STEP_LEAD_MS : SWEEP_STEP_LEAD_MS);
    const stepFromSeq = input.steps[step]!;
    await Promise.all(
      input.targetIds.flatMap((targetId) => {
        if (shards <= 1) {
          return [
            (async () => {
              let fromSeq = stepFromSeq;
              for (;;) {
                const chunk = await sweepProbes.probeSweepStep({ runId, targetId, retry, step, fromSeq, anchorMs });
                if (chunk.done) return;
                fromSeq = chunk.nextSeq;
              }
            })(),
          ];
        }
        // Every shard on the step's one anchor: together they send the step's arrival process.
        return Array.from({ length: shards }, async (_, shard) => {
          let fromSeq = firstSeqOfShard(stepFromSeq, shard, shards);
          for (;;) {
            const chunk = await sweepShards.probeSweepShard({ runId, targetId, retry, step, fromSeq, anchorMs, shard, shards });
            if (chunk.done) return;
            fromSeq = chunk.nextSeq;
          }
        });
      }),
    );
    const judged = await sweepBookkeeping.judgeSweepStep({ runId, step });
    if (judged.stop) return;
  }
}
