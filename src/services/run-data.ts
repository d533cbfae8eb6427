import { z } from 'zod';
import { methodTable, sampleTimeSpan, timeBuckets } from '../db/metrics';
import { findRun, findRunTargets } from '../db/runs';
import { listSamples as listSampleRows } from '../db/samples';
import { page, paginationQuery } from './pagination';
import type { Ctx } from './context';
import { loadOwned } from './load-owned';

/** At most this many time buckets per target, whatever the length of the run. */
const MAX_BUCKETS = 120;

function loadRunOfTenant(ctx: Ctx, runId: string) {
  return loadOwned(ctx, 'run', findRun, runId);
}

/** Time buckets per target and a per-method table, computed in Postgres from the samples. */
export async function getRunMetrics({ ctx, input }: { ctx: Ctx; input: { runId: string } }) {
  const { sql } = ctx.deps;
  const run = await loadRunOfTenant(ctx, input.runId);
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

export const listSamplesQuery = paginationQuery.extend({
  target_id: z.uuid().optional(),
  method: z.string().max(100).optional(),
  outcome: z.enum(['ok', 'http_error', 'rpc_error', 'timeout', 'connection_error', 'invalid_response']).optional(),
});

export async function listRunSamples({
  ctx,
  input,
}: {
  ctx: Ctx;
  input: { runId: string; query: z.infer<typeof listSamplesQuery> };
}) {
  const run = await loadRunOfTenant(ctx, input.runId);
  const { query } = input;
  const { rows, total } = await listSampleRows(ctx.deps.sql, run.id, {
    targetId: query.target_id ?? null,
    method: query.method ?? null,
    outcome: query.outcome ?? null,
    limit: query.limit,
    offset: query.offset,
  });
  const data = rows.map((s) => ({
    seq: s.seq,
    target_id: s.target_id,
    role: s.role,
    method: s.method,
    started_at: s.started_at,
    latency_us: s.latency_us,
    ok: s.ok,
    outcome: s.outcome,
    http_status: s.http_status,
    rpc_error_code: s.rpc_error_code,
    response_hash: s.response_hash,
    matches_reference: s.matches_reference,
    reason: s.reason ?? null,
  }));
  return page(data, total, query.limit, query.offset);
}
