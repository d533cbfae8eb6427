import { z } from 'zod';
import { SAMPLE_OUTCOMES } from '../../domain/sample-outcome';
import { DEFAULT_REGION, regionName } from '../../domain/vantage';
import { findRun } from '../../db/runs';
import { listSamples as listSampleRows } from '../../db/samples';
import { AppError } from '../../errors';
import type { Ctx } from '../context';
import { loadOwned } from '../load-owned';
import { page, paginationQuery } from '../pagination';

export const listSamplesQuery = paginationQuery.extend({
  target_id: z.uuid().optional(),
  method: z.string().max(100).optional(),
  outcome: z.enum(SAMPLE_OUTCOMES).optional(),
  region: regionName.optional(),
});

export async function listRunSamples({
  ctx,
  input,
}: {
  ctx: Ctx;
  input: { runId: string; query: z.infer<typeof listSamplesQuery> };
}) {
  const run = await loadOwned(ctx, 'run', findRun, input.runId);
  if (run.samples_expired_at) throw samplesExpired(run.samples_expired_at);
  const { query } = input;
  const { rows, total } = await listSampleRows(ctx.deps.sql, run.id, {
    targetId: query.target_id ?? null,
    method: query.method ?? null,
    outcome: query.outcome ?? null,
    region: query.region ?? null,
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
    region: s.region ?? DEFAULT_REGION,
    // A capacity sweep's samples only: the step and whether the call was its warm-up.
    ...(s.sweep_step === null || s.sweep_step === undefined ? {} : { sweep_step: s.sweep_step, warmup: s.warmup === true }),
  }));
  return page(data, total, query.limit, query.offset);
}

/** The run's raw samples were deleted past their retention; its verdict, stats and trend point stay. */
export function samplesExpired(at: Date): AppError {
  return new AppError('samples_expired', `the run's raw samples expired on ${at.toISOString()} (sample retention); its verdict is kept`);
}
