import { findRun } from '../../db/runs';
import type { Ctx } from '../context';
import { loadOwned } from '../load-owned';
import { presentStoredRun, type RunResponse } from './present';

export async function getRun({ ctx, input }: { ctx: Ctx; input: { runId: string } }): Promise<RunResponse> {
  return presentStoredRun(ctx, await loadOwned(ctx, 'run', findRun, input.runId));
}
