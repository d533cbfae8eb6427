import { methodTable, sampleTimeSpan, timeBuckets } from '../../db/run-metrics';
import { findRun } from '../../db/runs';
import { findRunTargets, type RunTargetRow } from '../../db/run-targets';
import type { Ctx } from '../context';
import { samplesExpired } from './samples';
import { loadOwned } from '../load-owned';

/** At most this many time buckets per target, whatever the length of the run. */
const MAX_BUCKETS = 120;

/** Time buckets per target and a per-method table, computed in Postgres from the samples. */
export async function getRunMetrics({ ctx, input }: { ctx: Ctx; input: { runId: string } }) {
  const { sql } = ctx.deps;
  const run = await loadOwned(ctx, 'run', findRun, input.runId);
  // Its time buckets and per-method table are computed from the raw samples.
  if (run.samples_expired_at) throw samplesExpired(run.samples_expired_at);
  const targets = await findRunTargets(sql, run.id);
  const span = await sampleTimeSpan(sql, run.id);
  const seconds = span.first && span.last ? (span.last.getTime() - span.first.getTime()) / 1000 : 0;
  const bucketSeconds = Math.max(1, Math.ceil(seconds / MAX_BUCKETS));
  const [buckets, methods] = await Promise.all([timeBuckets(sql, run.id, bucketSeconds), methodTable(sql, run.id)]);
  return {
    run_id: run.id,
    bucket_seconds: bucketSeconds,
    targets: targets.map((t) => ({
      target_id: t.id,
      endpoint_id: t.endpoint_id,
      endpoint_name: t.endpoint_name,
      role: t.role,
      buckets: buckets
        .filter((b) => b.target_id === t.id)
        .map(({ t: time, calls, failed, p50_ms, p95_ms, p99_ms }) => ({ t: time, calls, failed, p50_ms, p95_ms, p99_ms })),
    })),
    by_method: methods.map((m) => ({
      method: m.method,
      target_id: m.target_id,
      role: targets.find((t) => t.id === m.target_id)?.role ?? 'primary',
      calls: m.calls,
      failed: m.failed,
      p50_ms: m.p50_ms,
      p95_ms: m.p95_ms,
      p99_ms: m.p99_ms,
    })),
  };
}

export type RunMetrics = Awaited<ReturnType<typeof getRunMetrics>>;

/** The metrics of a run whose raw samples expired: its targets, with no bucket and no method row. */
export function expiredRunMetrics(runId: string, targets: readonly RunTargetRow[]): RunMetrics {
  return {
    run_id: runId,
    bucket_seconds: 1,
    targets: targets.map((t) => ({ target_id: t.id, endpoint_id: t.endpoint_id, endpoint_name: t.endpoint_name, role: t.role, buckets: [] })),
    by_method: [],
  };
}
