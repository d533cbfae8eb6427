import { z } from 'zod';
import { listHeadArrivals } from '../../db/head-arrivals';
import { findRun } from '../../db/runs';
import type { Ctx } from '../context';
import { loadOwned } from '../load-owned';
import { page, paginationQuery } from '../pagination';

export const listHeadsQuery = paginationQuery.extend({
  target_id: z.uuid().optional(),
});

/** A page of the heads a run's head watch stored, in arrival order. */
export async function listRunHeads({ ctx, input }: { ctx: Ctx; input: { runId: string; query: z.infer<typeof listHeadsQuery> } }) {
  const run = await loadOwned(ctx, 'run', findRun, input.runId);
  const { query } = input;
  const { rows, total } = await listHeadArrivals(ctx.deps.sql, run.id, { targetId: query.target_id ?? null, limit: query.limit, offset: query.offset });
  const data = rows.map((h) => ({
    target_id: h.target_id,
    number: Number(h.number),
    hash: h.hash,
    arrival_ms: Math.round(h.arrival_ms * 1000) / 1000,
    via: h.via,
    segment: h.segment,
  }));
  return page(data, total, query.limit, query.offset);
}
