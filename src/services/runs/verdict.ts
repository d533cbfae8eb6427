import { setTimeout as sleep } from 'node:timers/promises';
import { z } from 'zod';
import { findRun } from '../../db/runs';
import { baselineBranchOfRun } from '../../db/run-history';
import type { ComputedVerdict } from '../../domain/verdict';
import { AppError } from '../../errors';
import type { Ctx } from '../context';
import { loadOwned } from '../load-owned';
import { dashboardUrl, isTerminal } from './present';

export type VerdictResponse = ComputedVerdict & { dashboard_url: string; branch: string | null; commit: string | null; baseline_branch: string };

export const verdictQuery = z.strictObject({
  wait: z
    .string()
    .regex(/^\d+$/, 'must be a whole number of seconds')
    .transform(Number)
    .pipe(z.number().int().min(0).max(60))
    .optional(),
});

const WAIT_POLL_MS = 250;

export async function getVerdict({
  ctx,
  input,
}: {
  ctx: Ctx;
  input: { runId: string; waitSeconds?: number };
}): Promise<VerdictResponse> {
  let run = await loadOwned(ctx, 'run', findRun, input.runId);
  // Long-poll: hold the request until the run is finished or the wait is over.
  const waitUntil = Date.now() + (input.waitSeconds ?? 0) * 1000;
  while (!run.verdict && Date.now() < waitUntil) {
    await sleep(Math.min(WAIT_POLL_MS, waitUntil - Date.now()));
    run = await loadOwned(ctx, 'run', findRun, input.runId);
  }
  if (!isTerminal(run) || !run.verdict) {
    throw new AppError('run_not_finished', `run is ${run.status}; the verdict is available once it has finished`);
  }
  return {
    ...run.verdict,
    dashboard_url: dashboardUrl(ctx.deps, run.id),
    branch: run.branch,
    commit: run.commit_sha,
    baseline_branch: baselineBranchOfRun(run),
  };
}
