import type postgres from 'postgres';
import { explanationKey, recordedScalars, storedExplanations } from '../../db/mismatch-explanations';
import type { RunRow } from '../../db/runs';
import type { RunTargetRow } from '../../db/run-targets';
import { classifyDifferingSamples, compareWithReference, contextConfirmedExamples, answerContextPairs, historyDepthPairs } from '../../db/samples-correctness';
import { mayNameAnswerContext, renderParams, runPlanOf, type RunPlan } from '../../chains/registry';
import { boundedDifferences, MAX_DIFFERENCES } from '../../domain/answer-diff';
import { MAX_LISTED_MISMATCHES, spreadMismatches, tallyFromCounts, type CorrectnessMismatch, type CorrectnessTally } from '../../domain/correctness';
import type { CheckInputLoader } from './check-input';

/** correctness: the candidates' answers tallied against the reference's, when the suite compares them. */
export const correctnessInput: CheckInputLoader = async ({ sql, run, settings, candidates, reference }) =>
  reference && settings.thresholds.correctness_enabled ? { correctness: await tallyCorrectness(sql, run, candidates, reference) } : {};

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
  candidates: readonly RunTargetRow[],
  reference: RunTargetRow,
): Promise<CorrectnessTally> {
  const counts = await compareWithReference(sql, run.id, candidates.map((t) => t.id), reference.id);
  const { chain, workload } = runPlanOf(run);
  // Pairs answered at different answer contexts: only workloads whose answers may name one.
  const atSlots = !mayNameAnswerContext(chain, workload) ? [] : await answerContextPairs(sql, run.id, candidates.map((t) => t.id), reference.id);
  // A side answering "beyond my ledger" while the other answers a value: history depth, not a failure to compare.
  const shortHistory = await historyDepthPairs(sql, run.id, candidates.map((t) => t.id), reference.id);
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

