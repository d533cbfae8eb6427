import type postgres from 'postgres';
import type { Queryable, Sql } from '../db/client';
import { referenceMethodLatency } from '../db/run-metrics';
import { loadPairing } from '../db/paired-samples';
import { proberHealthOfRun } from '../db/prober-health';
import {
  baselineBranchOfRun,
  batchLimitOf,
  findPassingHistory,
  findPreviousSuccessfulRun,
  findRun,
  findRunOfTenant,
  findRunTargets,
  finishRun,
  finishTarget,
  lockRunForFinalize,
  headIntervalMs,
  lastHeads,
  medianHeadLag,
  type RunRow,
  type RunTargetRow,
} from '../db/runs';
import { explanationKey, recordedScalars, storedExplanations } from '../db/mismatch-explanations';
import { classifyDifferingSamples, compareWithReference, contextConfirmedExamples, answerContextPairs, historyDepthPairs } from '../db/samples-correctness';
import { aggregateLatency, answeredSecondShare, successfulOrderStatistics } from '../db/samples-stats';
import { sweepStepRows } from '../db/sweep-stats';
import { sweepPlanOf } from '../domain/sweep';
import { boundedDifferences, MAX_DIFFERENCES } from '../domain/answer-diff';
import {
  MAX_LISTED_MISMATCHES,
  spreadMismatches,
  tallyFromCounts,
  type CorrectnessMismatch,
  type CorrectnessTally,
} from '../domain/correctness';
import { emptyStats, type RunStats } from '../domain/run-stats';
import { BASELINE_DEFAULTS, historyRunsToRead } from '../domain/statistics/history-baseline';
import { maxStoredHeads, measureFreshness } from '../domain/freshness';
import {
  computeVerdict,
  verdictRanks,
  type BaselineInput,
  type EndpointBatchLimit,
  type FreshnessWatchInput,
  type RegionInput,
  type SweepInput,
  type VerdictInput,
  type VerdictValue,
} from '../domain/verdict';
import { findUnavailableRegions } from '../db/vantage';
import { countHeadArrivals, findHeadArrivals, findWatchSegments } from '../db/head-arrivals';
import { mayNameAnswerContext, renderParams, runPlanOf, type RunPlan } from '../chains/registry';
import { runSettingsOf, targetsByRole, type RunSettings } from '../domain/run-plan';

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

/** A listed mismatch: the call, the candidate that answered it and the recorded fingerprints. */
export interface MismatchToExplain {
  targetId: string;
  /** The candidate's sample (its explanation is stored under target and seq). */
  seq: number;
  method: string;
  params: unknown;
  candidateHash: string;
  referenceHash: string;
}

export type MismatchExplanation = Required<Pick<CorrectnessMismatch, 'differences' | 'more_differences' | 'differences_status'>>;

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

/**
 * Methods whose answers may differ between two endpoints because the head moved. Samples
 * store the method name, not the params, so a method counts as head-dependent when any workload
 * entry of that name is (isHeadDependent on its params as sent, i.e. templated: without a pinned
 * block "{{pinned_block}}" becomes "latest").
 */
export function headDependentMethods({ chain, workload, pinnedBlock, pinnedContext }: RunPlan): Set<string> {
  return new Set(
    workload.methods
      .filter((m) => chain.isHeadDependent(m.method, renderParams(chain, m.params, pinnedBlock, pinnedContext)))
      .map((m) => m.method),
  );
}

/**
 * What the baseline check compares with. Baseline ids come from the tenant (trigger body, suite
 * config): they are looked up within the run's tenant, so a suite stored before the API checked
 * them cannot read another tenant's run; the history and the previous run are the tenant's too,
 * and only runs whose verdict passed qualify.
 */
async function resolveBaseline(sql: Queryable, run: RunRow, config: RunSettings['baseline']): Promise<BaselineInput | null> {
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
  const lookback = await findPassingHistory(sql, run, historyRunsToRead(window));
  const history = lookback.slice(0, window);
  // Below min_runs the newest passing run of the history is compared sample by sample.
  const newest = history.length > 0 && history.length < minRuns ? await findRunOfTenant(sql, history[0]!.run_id, run.tenant_id) : undefined;
  return { mode: 'history', minRuns, window, history, lookback, previous: newest?.stats ? await baselineRun(sql, newest) : null };
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
  run: RunRow,
  candidates: RunTargetRow[],
  reference: RunTargetRow,
): Promise<CorrectnessTally> {
  const counts = await compareWithReference(sql, run.id, candidates.map((t) => t.id), reference.id);
  const { chain, workload } = runPlanOf(run);
  // Pairs answered at different answer contexts: only workloads whose answers may name one.
  const atSlots = !mayNameAnswerContext(chain, workload) ? [] : await answerContextPairs(sql, run.id, candidates.map((t) => t.id), reference.id);
  // A side answering "beyond my ledger" while the other answers a value: history depth, not a failure to compare.
  const historyCodes = chain.comparison.historyErrorCodes;
  const shortHistory = await historyDepthPairs(sql, run.id, candidates.map((t) => t.id), reference.id, historyCodes);
  if (counts.every((c) => c.differing === 0) && atSlots.every((c) => c.confirmed === 0)) return tallyFromCounts(counts, [], [], atSlots, shortHistory);
  const { classified, listed } = await listMismatches(sql, run, runPlanOf(run), candidates, reference);
  const stored = await storedExplanations(sql, run.id);
  // Scalar answers (eth_blockNumber, net_version) carry their recorded values: both are shown even
  // when the nodes, asked again, answer something else (the explanation step's 'changed').
  const scalars = await recordedScalars(sql, run.id, reference.id, listed);
  const unexplained: MismatchExplanation = { differences: [], more_differences: false, differences_status: 'unavailable' };
  const examples: CorrectnessMismatch[] = listed.map((m) => {
    const key = explanationKey(m.targetId, m.seq);
    const e = stored.get(key);
    const scalar = scalars.get(key);
    // Explained for these very answers (a re-check stored since would change the hashes listed).
    const explained: MismatchExplanation = scalar
      ? { differences: boundedDifferences([{ path: '$', candidate: scalar.candidate, reference: scalar.reference }]), more_differences: false, differences_status: 'shown' }
      : e && e.candidate_hash === m.candidateHash && e.reference_hash === m.referenceHash
        ? { differences: boundedDifferences(e.differences), more_differences: e.more_differences || e.differences.length > MAX_DIFFERENCES, differences_status: e.differences_status }
        : unexplained;
    return {
      method: m.method,
      params: m.params,
      candidate_hash: m.candidateHash,
      reference_hash: m.referenceHash,
      occurrences: m.occurrences,
      ...explained,
    };
  });
  return tallyFromCounts(counts, classified.counts, examples, atSlots, shortHistory);
}

/**
 * Classifies the run's differing pairs (with the re-checks stored so far) and picks the listed
 * mismatches, with their params replanned. Reads matches_reference, so it runs after
 * compareWithReference in the same transaction. Finalize lists these; the explanation step asks
 * the endpoints about exactly these.
 */
export async function listMismatches(
  sql: postgres.TransactionSql,
  run: RunRow,
  plan: RunPlan,
  candidates: readonly RunTargetRow[],
  reference: RunTargetRow,
): Promise<{ classified: Awaited<ReturnType<typeof classifyDifferingSamples>>; listed: (MismatchToExplain & { occurrences: number })[] }> {
  const ids = candidates.map((t) => t.id);
  const classified = await classifyDifferingSamples(sql, run.id, ids, reference.id, {
    headDependentMethods: [...headDependentMethods(plan)],
    limit: MAX_LISTED_MISMATCHES,
  });
  // Pairs at different answer contexts whose re-ask at one context still differed are mismatches too.
  const atOneSlot = !mayNameAnswerContext(plan.chain, plan.workload) ? [] : await contextConfirmedExamples(sql, run.id, ids, reference.id, MAX_LISTED_MISMATCHES);
  // Samples keep no params: the request at a seq is a pure function of (seed, seq), so replan it.
  // A difference its re-check confirmed is listed as re-sent: the params with the block pinned
  // (a call that takes no pin as it was).
  const listed = spreadMismatches([...classified.examples, ...atOneSlot]).map((d) => ({
    targetId: d.target_id,
    seq: d.seq,
    method: d.method,
    params: (d.recheck ? plan.chain.pinForRecheck(d.method, plan.requestAt(d.seq).params, BigInt(d.recheck.block)) : null) ?? plan.requestAt(d.seq).params,
    candidateHash: d.recheck?.candidate_hash ?? d.candidate_hash,
    referenceHash: d.recheck?.reference_hash ?? d.reference_hash,
    occurrences: d.occurrences,
  }));
  return { classified, listed };
}

/**
 * The candidates' head lag behind the reference in blocks (slots on Solana) and in ms: the lag
 * times the reference's measured head interval over the run (ms per block or slot, from its first
 * and last head reads). The ms figure is an estimate from head reads made every probe chunk; the
 * freshness watch (config.freshness) measures arrival lag per head directly.
 */
async function headLag(sql: Queryable, runId: string, primaryIds: readonly string[], referenceId: string) {
  const headLagBlocks = await medianHeadLag(sql, runId, primaryIds, referenceId);
  const interval = headLagBlocks === null ? null : await headIntervalMs(sql, runId, referenceId);
  return { headLagBlocks, headLagMs: headLagBlocks === null || interval === null ? null : Math.round(headLagBlocks * interval) };
}

/** Each target's last head read with the block height beside it; none when no head read names a height (the head is the height). */
async function lastHeadsOf(sql: Queryable, runId: string, targets: readonly RunTargetRow[]) {
  const heads = await lastHeads(sql, runId, targets.map((t) => t.id));
  if (heads.every((h) => h.height === null)) return undefined;
  return targets.flatMap((t) => {
    const h = heads.find((x) => x.target_id === t.id);
    return h ? [{ endpoint_name: t.endpoint_name, role: t.role, head: h.head, block_height: h.height }] : [];
  });
}

/** The run's head watch measured from its stored arrivals; undefined when the suite watches no heads. */
async function freshnessOfRun(
  sql: postgres.TransactionSql,
  run: RunRow,
  candidates: readonly RunTargetRow[],
  reference: RunTargetRow,
): Promise<FreshnessWatchInput | undefined> {
  const config = runSettingsOf(run).freshness;
  if (!config) return undefined;
  const perTarget = maxStoredHeads(config.duration_s, runPlanOf(run).watchChain.fastestHeadIntervalMs);
  const [arrivals, segments, stored] = [await findHeadArrivals(sql, run.id, perTarget), await findWatchSegments(sql, run.id), await countHeadArrivals(sql, run.id)];
  // Rows beyond the bound (stored before it) are a flood too: counted as not stored, never read.
  const excess = (targetId: string, segment: number) =>
    segments.find((s) => s.target_id === targetId)?.segment === segment ? Math.max(0, (stored.get(targetId) ?? 0) - perTarget) : 0;
  const measured = measureFreshness({
    referenceTargetId: reference.id,
    candidateTargetIds: candidates.map((t) => t.id),
    arrivals: arrivals.map((a) => ({ targetId: a.target_id, number: Number(a.number), hash: a.hash, arrivalMs: a.arrival_ms, segment: a.segment })),
    segments: segments.map((s) => ({
      targetId: s.target_id,
      segment: s.segment,
      startedMs: s.started_ms,
      liveFromMs: s.live_from_ms,
      lastSeenMs: s.last_seen_ms,
      reconnects: s.reconnects,
      disconnects: s.disconnects,
      duplicates: s.duplicates,
      dropped: s.dropped,
      notStored: s.not_stored + excess(s.target_id, s.segment),
      outOfRange: s.out_of_range,
    })),
    via: config.via,
    graceMs: config.grace_ms,
    lateMs: config.late_ms,
  });
  const endpoints = Object.fromEntries([...candidates, reference].map((t) => [t.id, { endpoint_id: t.endpoint_id, endpoint_name: t.endpoint_name }]));
  return { ...config, measured, endpoints };
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

/**
 * The verdict input restricted to each vantage point's samples (the run's checks are judged per
 * region on these). What judges the run as a whole — baseline, correctness, the head watch, the
 * per-method and pairing figures — is not repeated per region.
 */
async function regionInputs(
  sql: postgres.TransactionSql,
  runId: string,
  vantagePoints: readonly string[],
  run: VerdictInput,
  t: { primaryDone: readonly RunTargetRow[]; reference: RunTargetRow | undefined; targets: readonly RunTargetRow[] },
): Promise<RegionInput[]> {
  const primaryIds = t.primaryDone.map((p) => p.id);
  const unavailable = await findUnavailableRegions(sql, runId);
  const names = new Map(t.targets.map((target) => [target.id, target.endpoint_name]));
  const out: RegionInput[] = [];
  for (const region of vantagePoints) {
    const measured = await aggregateLatency(sql, runId, primaryIds, region);
    const targetLatencies = [];
    for (const p of t.primaryDone) {
      targetLatencies.push({
        endpoint_id: p.endpoint_id,
        endpoint_name: p.endpoint_name,
        stats: (await aggregateLatency(sql, runId, [p.id], region)).calls,
        latencies: await successfulOrderStatistics(sql, runId, [p.id], verdictRanks, region),
      });
    }
    const ref = t.reference;
    out.push({
      region,
      unavailableEndpoints: (unavailable.get(region) ?? []).map((id) => names.get(id) ?? id),
      input: {
        ...run,
        candidate: { ...measured, tests: run.candidate.tests },
        candidateLatencies: await successfulOrderStatistics(sql, runId, primaryIds, verdictRanks, region),
        targets: targetLatencies,
        candidateAnsweredShare: await answeredSecondShare(sql, runId, primaryIds, region),
        reference:
          ref && run.reference
            ? {
                endpoint_id: ref.endpoint_id,
                endpoint_name: ref.endpoint_name,
                stats: { ...emptyStats(), ...(await aggregateLatency(sql, runId, [ref.id], region)) },
                latencies: await successfulOrderStatistics(sql, runId, [ref.id], verdictRanks, region),
                answeredShare: await answeredSecondShare(sql, runId, [ref.id], region),
              }
            : null,
      },
    });
  }
  return out;
}

/** A sweep run's steps as measured per endpoint (candidates, then the reference); undefined when the run swept nothing. */
async function sweepOfRun(sql: postgres.TransactionSql, run: RunRow, settings: RunSettings, targets: readonly RunTargetRow[]): Promise<SweepInput | undefined> {
  const plan = sweepPlanOf(settings.workload.sweep);
  if (!plan) return undefined;
  const ordered = [...targets.filter((t) => t.role === 'primary'), ...targets.filter((t) => t.role === 'reference')];
  const rows = await sweepStepRows(sql, run.id, ordered.map((t) => t.id), verdictRanks);
  return {
    step_s: plan.stepS,
    warmup_s: plan.warmupS,
    rates: plan.steps.map((s) => s.rate),
    endpoints: ordered.map((t) => ({
      endpoint_id: t.endpoint_id,
      endpoint_name: t.endpoint_name,
      role: t.role,
      steps: (rows.get(t.id) ?? []).map((r) => ({ ...r, rate: plan.steps[r.step]?.rate ?? 0 })),
    })),
  };
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
  const baseline = input.status === 'success' ? await resolveBaseline(sql, run, settings.baseline) : null;
  const { thresholds } = settings;
  const primaryIds = primaries.map((t) => t.id);
  // Only a successful run is judged: a failed or cancelled one gets an error verdict, no checks.
  const judgedAtAll = input.status === 'success';
  const judged = judgedAtAll && reference !== undefined;
  const openLoop = Boolean(settings.workload.rate_per_second);
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
  const freshness = judged ? await freshnessOfRun(sql, run, primaries, reference) : undefined;
  const sweep = judgedAtAll ? await sweepOfRun(sql, run, settings, targets) : undefined;
  const prober = judgedAtAll ? await proberHealthOfRun(sql, run.id) : undefined;
  const verdictInput: VerdictInput = {
    run: { id: run.id, status: input.status, failure_reason: input.failureReason },
    suiteName: settings.suiteName,
    source: { branch: run.branch, commit: run.commit_sha, baselineBranch: baselineBranchOfRun(run) },
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
          ...(judged ? await headLag(sql, run.id, primaryIds, reference.id) : { headLagBlocks: null, headLagMs: null }),
          ...(judged ? { lastHeads: await lastHeadsOf(sql, run.id, [...primaries, reference]) } : {}),
          pairing: judged ? await loadPairing(sql, { runId: run.id, openLoop, candidateTargetIds: primaryIds, referenceTargetId: reference.id }) : undefined,
        }
      : null,
    baseline,
    correctness:
      judged && thresholds.correctness_enabled ? await tallyCorrectness(sql, run, primaries, reference) : undefined,
    ...(freshness ? { freshness } : {}),
    batchLimits: batchLimitsOf(finishedTargets),
    ...(sweep ? { sweep } : {}),
    ...(prober ? { prober } : {}),
  };
  const regions = judgedAtAll && settings.vantagePoints ? await regionInputs(sql, run.id, settings.vantagePoints, verdictInput, { primaryDone, reference, targets }) : undefined;
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
