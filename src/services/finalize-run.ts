import type postgres from 'postgres';
import type { Sql } from '../db/client';
import { proberHealthOfRun } from '../db/prober-health';
import { findRun, finishRun, lockRunForFinalize } from '../db/runs';
import { batchLimitOf, findRunTargets, finishTarget, type RunTargetRow } from '../db/run-targets';
import { baselineBranchOfRun } from '../db/run-history';
import { aggregateLatency, answeredSecondShare, successfulOrderStatistics } from '../db/samples-stats';
import { emptyStats, type RunStats } from '../domain/run-stats';
import { computeVerdict, verdictRanks, type EndpointBatchLimit, type VerdictInput, type VerdictValue } from '../domain/verdict';
import { runSettingsOf, targetsByRole } from '../domain/run-plan';
import { CHECK_INPUTS } from './check-inputs';
import { regionInputs } from './region-inputs';

/**
 * The one way a run ends: the run workflow's finalize activity, a cancel of a run
 * without a workflow and a run that could not be scheduled all come here. Targets still open
 * are closed, stats are aggregated in Postgres, and the verdict is built by computeVerdict —
 * judged for a successful run, its error verdict otherwise.
 */

export interface FinalizeRunInput {
  runId: string;
  status: 'success' | 'failed' | 'cancelled';
  failureReason: string | null;
}

export interface FinalizeRunOutcome {
  status: 'success' | 'failed' | 'cancelled';
  verdict: VerdictValue;
  exitCode: number;
  /** False when the run had already ended: nothing changed, this is the verdict it has. */
  ended: boolean;
}

/**
 * Finalize only reads the database. The run steps that talk to the endpoints — the re-check of
 * head-moved differences (run_rechecks) and the explanation of the listed mismatches
 * (run_mismatch_explanations) — are activities of their own that run before it and store what
 * they learnt; finalize counts and lists from those rows, so its lock is held for database work only.
 */
export interface FinalizeRunDeps {
  sql: Sql;
}

export class RunNotFoundError extends Error {
  override readonly name = 'RunNotFoundError';
  constructor(runId: string) {
    super(`run ${runId} not found`);
  }
}

/**
 * Aggregates stats in Postgres, judges the run and moves it to its terminal state, in one
 * transaction that holds the run's finalize lock: a retried finalize (its first attempt timed
 * out but is still working) waits for the first one, then finds the run terminal and reports it
 * as it is, so two finalizes never work on the same rows at once and a run gets one verdict.
 */
export async function finalizeRun(deps: FinalizeRunDeps, input: FinalizeRunInput, signal?: AbortSignal): Promise<FinalizeRunOutcome> {
  return (await deps.sql.begin(async (tx) => {
    const stopWatching = signal ? await cancelOnAbort(deps.sql, tx, signal) : () => undefined;
    try {
      return await finalizeLocked(tx, input, 'any', signal);
    } finally {
      stopWatching();
    }
  }))!;
}

/**
 * A finalize whose activity is cancelled must not go on judging (nor end the run as it would
 * have): the statement running in its transaction is cancelled from another connection, so the
 * transaction rolls back whatever it was waiting on (the finalize lock, a long aggregate).
 */
async function cancelOnAbort(sql: Sql, tx: postgres.TransactionSql, signal: AbortSignal): Promise<() => void> {
  const [backend] = await tx<{ pid: number }[]>`select pg_backend_pid() as pid`;
  const cancel = () => void sql`select pg_cancel_backend(${backend!.pid})`.catch(() => undefined);
  if (signal.aborted) cancel();
  signal.addEventListener('abort', cancel, { once: true });
  return () => signal.removeEventListener('abort', cancel);
}

/**
 * Ends a run that never got a workflow (failed or cancelled), only while it is still `queued`:
 * a run its workflow has claimed belongs to that workflow, and the workflow of a run ended here
 * finds it finished when it claims (so it stops without probing). True when this call ended it.
 */
export async function finalizeQueuedRun(
  sql: Sql,
  input: Omit<FinalizeRunInput, 'status'> & { status: 'failed' | 'cancelled'; failureReason: string },
): Promise<boolean> {
  const outcome = await sql.begin((tx) => finalizeLocked(tx, input, 'queued'));
  return outcome?.ended === true;
}

/** The batch limits the probe chunks found (run_targets.metadata.batch_limit), candidates first. */
function batchLimitsOf(targets: readonly RunTargetRow[]): EndpointBatchLimit[] {
  return [...targets]
    .sort((a, b) => (a.role === b.role ? a.order_index - b.order_index : a.role === 'primary' ? -1 : 1))
    .flatMap((t) => {
      const limit = batchLimitOf(t);
      return limit ? [{ endpoint_id: t.endpoint_id, endpoint_name: t.endpoint_name, role: t.role, ...limit }] : [];
    });
}

async function finalizeLocked(
  sql: postgres.TransactionSql,
  input: FinalizeRunInput,
  from: 'any' | 'queued',
  signal?: AbortSignal,
): Promise<FinalizeRunOutcome | null> {
  await lockRunForFinalize(sql, input.runId);
  signal?.throwIfAborted();
  const run = await findRun(sql, input.runId);
  if (!run) throw new RunNotFoundError(input.runId);
  if (run.verdict && (run.status === 'success' || run.status === 'failed' || run.status === 'cancelled')) {
    return { status: run.status, verdict: run.verdict.verdict, exitCode: run.verdict.exit_code, ended: false };
  }
  if (from === 'queued' && run.status !== 'queued') return null;
  const settings = runSettingsOf(run);
  const targets = await findRunTargets(sql, run.id);
  const { candidates: primaries, reference } = targetsByRole(targets);

  if (input.status !== 'success') {
    const unfinished = input.status === 'cancelled' ? 'cancelled' : 'failed';
    for (const t of targets) {
      await finishTarget(sql, t.id, unfinished, { stats: await aggregateLatency(sql, run.id, [t.id]) });
    }
  }

  const measured = await aggregateLatency(sql, run.id, primaries.map((t) => t.id));
  const finishedTargets = await findRunTargets(sql, run.id);
  const primaryDone = finishedTargets.filter((t) => t.role === 'primary');
  const stats: RunStats = {
    ...measured,
    tests: {
      successful: primaryDone.filter((t) => t.status === 'success').length,
      failed: primaryDone.filter((t) => t.status !== 'success').length,
    },
  };
  // Only a successful run is judged: a failed or cancelled one gets an error verdict, no checks.
  const judged = input.status === 'success';
  const primaryIds = primaries.map((t) => t.id);
  const candidateLatencies = judged ? await successfulOrderStatistics(sql, run.id, primaryIds, verdictRanks) : undefined;
  const targetLatencies = [];
  if (judged) {
    for (const t of primaryDone) {
      const targetStats = (t.metadata.stats as RunStats | undefined)?.calls ?? null;
      // One candidate: its latencies are the candidates' already fetched.
      const latencies =
        primaryDone.length === 1 && candidateLatencies ? candidateLatencies : await successfulOrderStatistics(sql, run.id, [t.id], verdictRanks);
      targetLatencies.push({ endpoint_id: t.endpoint_id, endpoint_name: t.endpoint_name, stats: targetStats, latencies });
    }
  }
  // What every verdict reads; each check's own input comes from its loader (CHECK_INPUTS).
  let verdictInput: VerdictInput = {
    run: { id: run.id, status: input.status, failure_reason: input.failureReason },
    suiteName: settings.suiteName,
    source: { branch: run.branch, commit: run.commit_sha, baselineBranch: baselineBranchOfRun(run) },
    thresholds: settings.thresholds,
    candidate: stats,
    candidateLatencies,
    targets: targetLatencies,
    candidateAnsweredShare: judged ? await answeredSecondShare(sql, run.id, primaryIds) : null,
    reference: reference
      ? {
          endpoint_id: reference.endpoint_id,
          endpoint_name: reference.endpoint_name,
          stats: { ...emptyStats(), ...(await aggregateLatency(sql, run.id, [reference.id])) },
          latencies: judged ? await successfulOrderStatistics(sql, run.id, [reference.id], verdictRanks) : undefined,
          answeredShare: judged ? await answeredSecondShare(sql, run.id, [reference.id]) : null,
        }
      : null,
    baseline: null,
    batchLimits: batchLimitsOf(finishedTargets),
  };
  if (judged) {
    const context = { sql, run, settings, targets, candidates: primaries, reference };
    for (const load of Object.values(CHECK_INPUTS)) {
      if (!load) continue;
      const { reference: referenceInput, ...loaded } = await load(context);
      verdictInput = { ...verdictInput, ...loaded, reference: verdictInput.reference && { ...verdictInput.reference, ...referenceInput } };
    }
    const prober = await proberHealthOfRun(sql, run.id);
    if (prober) verdictInput = { ...verdictInput, prober };
  }
  const regions = judged && settings.vantagePoints ? await regionInputs(sql, run.id, settings.vantagePoints, verdictInput, { primaryDone, reference, targets }) : undefined;
  const verdict = computeVerdict(verdictInput, regions);
  // Cancelled while judging: the run is ended as cancelled by the next finalize, never as judged here.
  signal?.throwIfAborted();
  const ended = await finishRun(sql, run.id, {
    status: input.status,
    failureReason: input.failureReason,
    stats,
    verdict,
    baselineRunId: verdict.baseline_comparison?.run_id ?? run.baseline_run_id,
  });
  const final = (await findRun(sql, run.id))!;
  return {
    status: final.status as FinalizeRunOutcome['status'],
    verdict: final.verdict?.verdict ?? verdict.verdict,
    exitCode: final.verdict?.exit_code ?? verdict.exit_code,
    ended,
  };
}
