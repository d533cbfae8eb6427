import { z } from 'zod';
import { findAcknowledgement, insertAcknowledgement, listAcknowledgements, type AcknowledgementRow } from '../db/acknowledgements';
import { findRun, type RunRow } from '../db/runs';
import { TERMINAL_RUN_STATUSES } from '../domain/run-model';
import { AppError, conflict, notFound } from '../errors';
import { callerOf, type Ctx } from './context';
import { loadOwned } from './load-owned';
import { page, type Page } from './pagination';

export const acknowledgeRunInput = z.strictObject({
  note: z.string().trim().min(1, 'must not be empty').max(1000, 'must be at most 1,000 characters'),
});

export interface AcknowledgementResponse {
  id: string;
  run_id: string;
  /** The credential that acknowledged: an API key (id, name) or a JWT user (subject, name). */
  acknowledged_by: { kind: 'api_key' | 'user'; id: string; name: string };
  note: string;
  created_at: Date;
}

function present(row: AcknowledgementRow): AcknowledgementResponse {
  return {
    id: row.id,
    run_id: row.run_id,
    acknowledged_by: { kind: row.principal_kind, id: row.principal_id, name: row.principal_name },
    note: row.note,
    created_at: row.created_at,
  };
}

/** Another tenant's run is a 403, as every run route answers (DESIGN §4). */
function loadRun(ctx: Ctx, runId: string): Promise<RunRow> {
  return loadOwned(ctx, 'run', findRun, runId);
}

/** A run's acknowledgements at most (each is kept and listed; the run's count is their number). */
export const MAX_ACKNOWLEDGEMENTS_PER_RUN = 100;

/**
 * A person saw a failed run. Only a finished run whose verdict did not pass can be acknowledged.
 * While a failure of a suite's current failing streak is acknowledged, `verdict.failed` webhooks
 * of that suite are not sent again; they resume once the suite has passed. A run has at most
 * MAX_ACKNOWLEDGEMENTS_PER_RUN (409 `conflict` past it).
 */
export async function acknowledgeRun({
  ctx,
  input,
}: {
  ctx: Ctx;
  input: { runId: string; body: z.infer<typeof acknowledgeRunInput> };
}): Promise<AcknowledgementResponse> {
  // An acknowledgement records who made it: only a caller (API key or user) can.
  const principal = callerOf(ctx);
  const run = await loadRun(ctx, input.runId);
  if (!TERMINAL_RUN_STATUSES.includes(run.status) || !run.verdict) {
    throw new AppError('run_not_finished', `run is ${run.status}; a run can be acknowledged once it has finished`);
  }
  if (run.verdict.verdict === 'pass') throw conflict('the run passed; only a run whose verdict did not pass is acknowledged');
  const row = await insertAcknowledgement(
    ctx.deps.sql,
    {
      tenantId: principal.tenantId,
      runId: run.id,
      principal: { kind: principal.kind, id: principal.id, name: principal.name },
      note: input.body.note,
    },
    MAX_ACKNOWLEDGEMENTS_PER_RUN,
  );
  if (!row) throw conflict(`a run has at most ${MAX_ACKNOWLEDGEMENTS_PER_RUN} acknowledgements`);
  return present(row);
}

export async function getRunAcknowledgement({
  ctx,
  input,
}: {
  ctx: Ctx;
  input: { runId: string; acknowledgementId: string };
}): Promise<AcknowledgementResponse> {
  await loadRun(ctx, input.runId);
  const row = await findAcknowledgement(ctx.deps.sql, input.runId, input.acknowledgementId);
  if (!row) throw notFound('acknowledgement');
  return present(row);
}

export async function listRunAcknowledgements({
  ctx,
  input,
}: {
  ctx: Ctx;
  input: { runId: string; limit: number; offset: number };
}): Promise<Page<AcknowledgementResponse>> {
  await loadRun(ctx, input.runId);
  const { rows, total } = await listAcknowledgements(ctx.deps.sql, input.runId, input);
  return page(rows.map(present), total, input.limit, input.offset);
}
