import { z } from 'zod';

/** Run statistics in the spec's shape. Computed in Postgres; this schema describes the result. */
const count = z.number().int().min(0);

export const latencySummarySchema = z.strictObject({
  avg_ms: z.number().int(),
  p50_ms: z.number().int(),
  p95_ms: z.number().int(),
  p99_ms: z.number().int(),
  sample_count: count,
});

/**
 * The run's `stats` and every finished target's `metadata.stats`: one shape, so a client reads a
 * target's stats with the code it reads the run's with. `tests` counts primary targets that
 * finished probing (successful) or did not (failed); for one target it is 1 and 0, or 0 and 1.
 */
export const runStatsSchema = z.strictObject({
  // behind: of the failed calls, those the node answered "not there yet" (sample outcome `behind`); absent: none.
  calls: z.strictObject({ total: count, successful: count, failed: count, behind: count.optional() }),
  tests: z.strictObject({ successful: count, failed: count }),
  latency: z.strictObject({ successful: latencySummarySchema, all: latencySummarySchema }),
});

export type LatencySummary = z.infer<typeof latencySummarySchema>;
export type RunStats = z.infer<typeof runStatsSchema>;
/** What the samples alone say: the stats without `tests`, which count targets. */
export type MeasuredStats = Pick<RunStats, 'calls' | 'latency'>;

export const emptyLatency = (): LatencySummary => ({ avg_ms: 0, p50_ms: 0, p95_ms: 0, p99_ms: 0, sample_count: 0 });

export const emptyStats = (): RunStats => ({
  calls: { total: 0, successful: 0, failed: 0 },
  tests: { successful: 0, failed: 0 },
  latency: { successful: emptyLatency(), all: emptyLatency() },
});

/** A target's own stats: its samples' stats, and itself as the one test it is. */
export function targetStats(measured: MeasuredStats, finishedProbing: boolean): RunStats {
  return { ...measured, tests: { successful: finishedProbing ? 1 : 0, failed: finishedProbing ? 0 : 1 } };
}
