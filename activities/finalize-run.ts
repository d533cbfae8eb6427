import { ApplicationFailure, Context } from '@temporalio/activity';
import type postgres from 'postgres';
import type { Queryable } from '../src/db/client';
import { referenceMethodLatency } from '../src/db/metrics';
import { loadPairing } from '../src/db/paired-samples';
import {
  findPassingHistory,
  findPreviousSuccessfulRun,
  findRun,
  findRunOfTenant,
  findRunTargets,
  finishRun,
  finishTarget,
  lockRunForFinalize,
  medianHeadLag,
  type RunRow,
  type RunTargetRow,
} from '../src/db/runs';
import { aggregateLatency, answeredSecondShare, classifyDifferingSamples, compareWithReference, successfulOrderStatistics } from '../src/db/samples';
import { emptyTally, MAX_LISTED_MISMATCHES, pinHeadDependentParams, spreadMismatches, type CorrectnessTally } from '../src/domain/correctness';
import { emptyStats, type RunStats } from '../src/domain/stats';
import { BASELINE_DEFAULTS } from '../src/domain/statistics/history-baseline';
import { computeVerdict, verdictRanks, type BaselineInput } from '../src/domain/verdict';
import { createPlanner } from '../src/probe/workload';
import { headDependentMethods, recheckHeadMovedDifferences, type RecheckDeps } from './recheck-head-moved';
import type { FinalizeRunInput, FinalizeRunResult } from './types';

/**
 * What the baseline check compares with. Baseline ids come from the tenant (trigger body, suite
 * config): they are looked up within the run's tenant, so a suite stored before the API checked
 * them cannot read another tenant's run; the history and the previous run are the tenant's too,
 * and only runs whose verdict passed qualify.
 */
async function resolveBaseline(sql: Queryable, run: RunRow): Promise<BaselineInput | null> {
  const config = run.config_snapshot.suite.config.baseline;
  const explicit = run.baseline_run_id ?? (config.mode === 'run' ? config.run_id : null);
  if (explicit) {
    const chosen = await findRunOfTenant(sql, explicit, run.tenant_id);
    return { mode: 'run', previous: chosen?.stats ? await baselineRun(sql, chosen) : null };
  }
  if (config.mode === 'previous_success') {
    const previous = await findPreviousSuccessfulRun(sql, run);
    return { mode: 'previous_success', previous: previous?.stats ? await baselineRun(sql, previous) : null };
  }
  if (config.mode !== 'history') return null;
  const window = config.window ?? BASELINE_DEFAULTS.window;
  const minRuns = config.min_runs ?? BASELINE_DEFAULTS.minRuns;
  const history = await findPassingHistory(sql, run, window);
  // Below min_runs the newest passing run of the history is compared sample by sample.
  const newest = history.length > 0 && history.length < minRuns ? await findRunOfTenant(sql, history[0]!.run_id, run.tenant_id) : undefined;
  return { mode: 'history', minRuns, history, previous: newest?.stats ? await baselineRun(sql, newest) : null };
}

async function baselineRun(sql: Queryable, baseline: RunRow) {
  const primaries = (await findRunTargets(sql, baseline.id)).filter((t) => t.role === 'primary').map((t) => t.id);
  return {
    run_id: baseline.id,
    stats: baseline.stats!,
    latencies: await successfulOrderStatistics(sql, baseline.id, primaries, verdictRanks),
  };
}

/**
 * Tallies candidate/reference answer pairs for the correctness check, in Postgres: a run may
 * hold a million samples per target, so nothing but counts and a few mismatches per method come
 * back. A differing pair of a head-dependent method is inconclusive only when a recorded head of
 * the candidate or the reference moved while it was answered (classifyDifferingSamples), and its
 * re-send at a fixed block (recheckHeadMovedDifferences, DESIGN.md §7) did not still differ;
 * heads that did not move never excuse anything. Also sets matches_reference on candidate samples.
 */
async function tallyCorrectness(
  sql: postgres.TransactionSql,
  deps: RecheckDeps,
  run: RunRow,
  candidates: RunTargetRow[],
  reference: RunTargetRow,
): Promise<CorrectnessTally> {
  const candidateTargetIds = candidates.map((t) => t.id);
  const referenceTargetId = reference.id;
  const counts = await compareWithReference(sql, run.id, candidateTargetIds, referenceTargetId);
  const tally = emptyTally();
  let differing = 0;
  for (const c of counts) {
    tally.matched += c.matched;
    tally.skipped += c.skipped;
    differing += c.differing;
  }
  if (differing === 0) return tally;
  await recheckHeadMovedDifferences(deps, sql, run, candidates, reference);
  const classified = await classifyDifferingSamples(sql, run.id, candidateTargetIds, referenceTargetId, {
    headDependentMethods: [...headDependentMethods(run)],
    limit: MAX_LISTED_MISMATCHES,
  });
  const matchedOf = new Map(counts.map((c) => [c.method, c.matched]));
  for (const d of classified.counts) {
    tally.mismatched += d.mismatched;
    tally.inconclusive += d.head_moved;
    tally.recheck.confirmed += d.confirmed;
    tally.recheck.resolved += d.resolved;
    tally.recheck.failed += d.recheck_failed;
    if (d.mismatched > 0) {
      tally.mismatchesByMethod.push({ method: d.method, mismatched: d.mismatched, compared: (matchedOf.get(d.method) ?? 0) + d.mismatched });
    }
  }
  // Samples keep no params: the request at a seq is a pure function of (seed, seq), so replan it.
  const plan = createPlanner(
    run.config_snapshot.suite.config.workload,
    Number(run.seed),
    run.pinned_block === null ? null : Number(run.pinned_block),
  );
  // A difference its re-check confirmed is listed as re-sent: the params with the block pinned.
  tally.mismatches = spreadMismatches(classified.examples).map((d) => ({
    method: d.method,
    params: d.recheck ? pinHeadDependentParams(d.method, plan(d.seq).params, BigInt(d.recheck.block)) : plan(d.seq).params,
    candidate_hash: d.recheck?.candidate_hash ?? d.candidate_hash,
    reference_hash: d.recheck?.reference_hash ?? d.reference_hash,
  }));
  return tally;
}

const HEARTBEAT_EVERY_MS = 1_000;

/** Heartbeats while `work` runs, so a finalize that lost its worker is retried within the heartbeat timeout. */
async function heartbeating<T>(work: () => Promise<T>): Promise<T> {
  let context: Context | undefined;
  try {
    context = Context.current();
  } catch {
    // Called outside an activity: nobody to heartbeat to.
  }
  const timer = context ? setInterval(() => context.heartbeat(), HEARTBEAT_EVERY_MS) : undefined;
  context?.heartbeat();
  try {
    return await work();
  } finally {
    clearInterval(timer);
  }
}

/**
 * Aggregates stats in Postgres, judges the run and moves it to its terminal state, in one
 * transaction that holds the run's finalize lock: a retried finalize (its first attempt timed
 * out but is still working) waits for the first one, then finds the run terminal and reports it
 * as it is, so two finalizes never work on the same rows at once and a run gets one verdict.
 */
export async function finalizeRun(deps: RecheckDeps, input: FinalizeRunInput): Promise<FinalizeRunResult> {
  return heartbeating(() => deps.sql.begin((tx) => finalizeLocked(tx, deps, input)));
}

async function finalizeLocked(sql: postgres.TransactionSql, deps: RecheckDeps, input: FinalizeRunInput): Promise<FinalizeRunResult> {
  await lockRunForFinalize(sql, input.runId);
  const run = await findRun(sql, input.runId);
  if (!run) throw ApplicationFailure.nonRetryable(`run ${input.runId} not found`, 'NotFound');
  if (run.verdict && (run.status === 'success' || run.status === 'failed' || run.status === 'cancelled')) {
    return { status: run.status, verdict: run.verdict.verdict, exitCode: run.verdict.exit_code };
  }
  const targets = await findRunTargets(sql, run.id);
  const primaries = targets.filter((t) => t.role === 'primary');
  const reference = targets.find((t) => t.role === 'reference');

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
  const baseline = input.status === 'success' ? await resolveBaseline(sql, run) : null;
  const thresholds = run.config_snapshot.suite.config.thresholds;
  const primaryIds = primaries.map((t) => t.id);
  // Only a successful run is judged: a failed or cancelled one gets an error verdict, no checks.
  const judgedAtAll = input.status === 'success';
  const judged = judgedAtAll && reference !== undefined;
  const openLoop = Boolean(run.config_snapshot.suite.config.workload.rate_per_second);
  const candidateLatencies = judgedAtAll ? await successfulOrderStatistics(sql, run.id, primaryIds, verdictRanks) : undefined;
  const targetLatencies = [];
  if (judgedAtAll) {
    for (const t of primaryDone) {
      const targetStats = (t.metadata.stats as RunStats | undefined)?.calls ?? null;
      // One candidate: its latencies are the candidates' already fetched.
      const latencies =
        primaryDone.length === 1 && candidateLatencies ? candidateLatencies : await successfulOrderStatistics(sql, run.id, [t.id], verdictRanks);
      targetLatencies.push({ endpoint_id: t.endpoint_id, endpoint_name: t.endpoint_name, stats: targetStats, latencies });
    }
  }
  const verdict = computeVerdict({
    run: { id: run.id, status: input.status, failure_reason: input.failureReason },
    suiteName: run.config_snapshot.suite.name,
    thresholds,
    candidate: stats,
    candidateLatencies,
    targets: targetLatencies,
    candidateAnsweredShare: judgedAtAll ? await answeredSecondShare(sql, run.id, primaryIds) : null,
    reference: reference
      ? {
          endpoint_id: reference.endpoint_id,
          endpoint_name: reference.endpoint_name,
          stats: { ...emptyStats(), ...(await aggregateLatency(sql, run.id, [reference.id])) },
          latencies: judged ? await successfulOrderStatistics(sql, run.id, [reference.id], verdictRanks) : undefined,
          answeredShare: judged ? await answeredSecondShare(sql, run.id, [reference.id]) : null,
          byMethod: judged ? await referenceMethodLatency(sql, run.id, primaryIds, reference.id) : [],
          headLagBlocks: judged ? await medianHeadLag(sql, run.id, primaryIds, reference.id) : null,
          pairing: judged ? await loadPairing(sql, { runId: run.id, openLoop, candidateTargetIds: primaryIds, referenceTargetId: reference.id }) : undefined,
        }
      : null,
    baseline,
    correctness:
      judged && thresholds.correctness_enabled ? await tallyCorrectness(sql, deps, run, primaries, reference) : undefined,
  });
  await finishRun(sql, run.id, {
    status: input.status,
    failureReason: input.failureReason,
    stats,
    verdict,
    baselineRunId: verdict.baseline_comparison?.run_id ?? run.baseline_run_id,
  });
  const final = (await findRun(sql, run.id))!;
  return {
    status: final.status as FinalizeRunResult['status'],
    verdict: final.verdict?.verdict ?? verdict.verdict,
    exitCode: final.verdict?.exit_code ?? verdict.exit_code,
  };
}
