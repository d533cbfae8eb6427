import type { Queryable } from '../src/db/client';
import { findEndpoint } from '../src/db/endpoints';
import { explanationKey, insertExplanations, storedExplanations, type ExplanationRow } from '../src/db/mismatch-explanations';
import type { RunTargetRow } from '../src/db/run-targets';
import { compareWithReference, answerContextPairs } from '../src/db/samples-correctness';
import { answerDifferences } from '../src/domain/answer-diff';
import { fingerprintAnswer, mayNameAnswerContext, type RunPlan } from '../src/chains/registry';
import type { JsonRpcClient } from '../src/probe/json-rpc-client';
import { listMismatches, type MismatchExplanation, type MismatchToExplain } from '../src/services/check-inputs/correctness';
import { openEndpointClient } from './endpoint-client';
import { heartbeating } from './heartbeating';
import { runEndingStep } from './run-ending-step';
import { loadJudgedRun, type RecheckDeps } from './recheck-head-moved';

/** Calls asked at once (each to both sides). */
const EXPLAIN_CONCURRENCY = 4;
/** No call starts later than this after the first: the run waits for nothing longer. */
const EXPLAIN_BUDGET_MS = 20_000;

const UNAVAILABLE: MismatchExplanation = { differences: [], more_differences: false, differences_status: 'unavailable' };

/** The side's answer to the call; undefined when it failed (timeout, error, refused address). */
async function answerOf(client: JsonRpcClient | null, m: MismatchToExplain): Promise<{ result: unknown } | undefined> {
  if (client === null) return undefined;
  try {
    return { result: await client.result(m.method, Array.isArray(m.params) ? m.params : []) };
  } catch {
    return undefined;
  }
}

/**
 * The run step after the re-check and before finalize (its own activity: finalize does no
 * network I/O): lists the mismatches exactly as finalize will — same classification, with the
 * re-checks now stored — in a short transaction, then asks the endpoints about those not
 * explained yet, outside any transaction, and stores what came back in
 * run_mismatch_explanations. Retried, it asks only about mismatches without a stored explanation.
 */
export async function explainRunMismatches(deps: RecheckDeps, input: { runId: string }): Promise<{ explained: number }> {
  // Its worker lost too often: the mismatches are listed unexplained (runEndingStep).
  return runEndingStep(() => explainRunMismatchesOnce(deps, input), async () => ({ explained: 0 }));
}

async function explainRunMismatchesOnce(deps: RecheckDeps, input: { runId: string }): Promise<{ explained: number }> {
  return heartbeating(async () => {
    const judged = await loadJudgedRun(deps.sql, input.runId);
    if (!judged) return { explained: 0 };
    const { run, plan, candidates, reference } = judged;
    const listed = await deps.sql.begin(async (tx) => {
      const counts = await compareWithReference(tx, run.id, candidates.map((t) => t.id), reference.id);
      // Mismatches are differing samples, or pairs at different answer contexts their re-ask confirmed.
      const atSlots = !mayNameAnswerContext(plan.chain, plan.workload) ? [] : await answerContextPairs(tx, run.id, candidates.map((t) => t.id), reference.id);
      if (counts.every((c) => c.differing === 0) && atSlots.every((c) => c.confirmed === 0)) return [];
      return (await listMismatches(tx, run, plan, candidates, reference)).listed;
    });
    const stored = await storedExplanations(deps.sql, run.id);
    const todo = listed.filter((m) => !stored.has(explanationKey(m.targetId, m.seq)));
    if (todo.length === 0) return { explained: 0 };
    const explanations = await explainMismatches(deps, deps.sql, plan, candidates, reference, todo);
    const rows: ExplanationRow[] = todo.flatMap((m, i) => {
      const e = explanations[i];
      // A call that failed is not stored: finalize says 'unavailable', a retry may ask again.
      if (!e || e.differences_status === 'unavailable') return [];
      return [
        {
          run_id: run.id,
          target_id: m.targetId,
          seq: m.seq,
          candidate_hash: m.candidateHash,
          reference_hash: m.referenceHash,
          differences_status: e.differences_status,
          differences: e.differences,
          more_differences: e.more_differences,
        },
      ];
    });
    await insertExplanations(deps.sql, rows);
    return { explained: rows.length };
  });
}

/**
 * Samples keep fingerprints, not answers: to show what differs in a listed mismatch, both sides
 * are asked the same call once more (at most MAX_LISTED_MISMATCHES calls per side, within
 * EXPLAIN_BUDGET_MS). Only when both answers still have the fingerprints on record are their
 * differences shown — then they are exactly the recorded answers' differences; an answer that
 * changed since (a moving head, a node that answers differently) is said so instead. The values
 * go through answerDifferences (bounded, URLs redacted); requests go through the probe client
 * (address guard, timeouts, response caps), the endpoint's secrets decrypted here only.
 */
export async function explainMismatches(
  deps: RecheckDeps,
  tx: Queryable,
  { workload, chain }: RunPlan,
  candidates: readonly RunTargetRow[],
  reference: RunTargetRow,
  mismatches: readonly MismatchToExplain[],
): Promise<MismatchExplanation[]> {
  const clients = new Map<string, JsonRpcClient | null>();
  const open = async (target: RunTargetRow): Promise<void> => {
    const endpoint = await findEndpoint(tx, target.endpoint_id);
    try {
      clients.set(target.id, endpoint ? openEndpointClient(deps, endpoint, { timeoutMs: workload.timeout_ms, connections: EXPLAIN_CONCURRENCY, chain }) : null);
    } catch {
      clients.set(target.id, null);
    }
  };
  const explanations: MismatchExplanation[] = mismatches.map(() => UNAVAILABLE);
  const deadlineMs = Date.now() + EXPLAIN_BUDGET_MS;
  try {
    await open(reference);
    for (const target of candidates) if (mismatches.some((m) => m.targetId === target.id)) await open(target);
    let next = 0;
    const worker = async () => {
      while (next < mismatches.length && Date.now() < deadlineMs) {
        const index = next++;
        const m = mismatches[index]!;
        const [candidate, ref] = await Promise.all([answerOf(clients.get(m.targetId) ?? null, m), answerOf(clients.get(reference.id) ?? null, m)]);
        if (!candidate || !ref) continue;
        if (
          fingerprintAnswer(chain, m.method, candidate.result) !== m.candidateHash ||
          fingerprintAnswer(chain, m.method, ref.result) !== m.referenceHash
        ) {
          explanations[index] = { differences: [], more_differences: false, differences_status: 'changed' };
          continue;
        }
        const diff = answerDifferences(chain.normalize, m.method, candidate.result, ref.result);
        explanations[index] = { differences: diff.differences, more_differences: diff.more, differences_status: 'shown' };
      }
    };
    await Promise.all(Array.from({ length: Math.min(EXPLAIN_CONCURRENCY, mismatches.length) }, worker));
  } finally {
    await Promise.all([...clients.values()].map((c) => c?.close()));
  }
  return explanations;
}
