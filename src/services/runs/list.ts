import { z } from 'zod';
import { listRuns as listRunRows } from '../../db/runs';
import { findTargetsOfRuns } from '../../db/run-targets';
import { findRetriesOfRuns } from '../../db/run-retries';
import { countSamplesOfRuns, countWarmupSamplesOfRuns } from '../../db/samples';
import { RUN_STATUSES } from '../../domain/run-model';
import type { Ctx } from '../context';
import { page, paginationQuery, type Page } from '../pagination';
import { finishedCallsDone, isTerminal, presentRunSummary, type RunSummaryResponse } from './present';

export const listRunsQuery = paginationQuery.extend({
  suite_id: z.uuid().optional(),
  status: z.enum(RUN_STATUSES).optional(),
});

/**
 * Newest first. Targets and retries of the whole page are read in two queries, not two per run.
 * Items leave out the suite config (config_snapshot and suite.config): a page of 200 runs would
 * otherwise carry up to 200 copies of a 64 KiB config.
 */
export async function listRuns({ ctx, input }: { ctx: Ctx; input: z.infer<typeof listRunsQuery> }): Promise<Page<RunSummaryResponse>> {
  const { sql } = ctx.deps;
  const { rows, total } = await listRunRows(sql, ctx.principal.tenantId, {
    suiteId: input.suite_id ?? null,
    status: input.status ?? null,
    limit: input.limit,
    offset: input.offset,
  });
  const ids = rows.map((r) => r.id);
  const [targets, retries, done, warmups] = await Promise.all([
    findTargetsOfRuns(sql, ids),
    findRetriesOfRuns(sql, ids),
    countSamplesOfRuns(
      sql,
      rows.filter((run) => !isTerminal(run)).map((run) => run.id),
    ),
    countWarmupSamplesOfRuns(
      sql,
      rows.filter((run) => isTerminal(run)).map((run) => run.id),
    ),
  ]);
  const data = rows.map((run) => {
    const runTargets = targets.filter((t) => t.run_id === run.id);
    const callsDone = isTerminal(run) ? finishedCallsDone(runTargets) + (warmups.get(run.id) ?? 0) : (done.get(run.id) ?? 0);
    return presentRunSummary(run, runTargets, retries.filter((r) => r.run_id === run.id), callsDone);
  });
  return page(data, total, input.limit, input.offset);
}
