import type postgres from 'postgres';
import type { SecretBox } from '../src/crypto/secret-box';
import type { Queryable, Sql } from '../src/db/client';
import { findEndpoint, type EndpointRow } from '../src/db/endpoints';
import { insertRechecks, recheckKey, storedRecheckKeys, type RecheckRow } from '../src/db/rechecks';
import { findRun, type RunRow } from '../src/db/runs';
import { findRunTargets, type RunTargetRow } from '../src/db/run-targets';
import { compareWithReference, selectAnswerContextPairs, selectRecheckPairs, type RecheckPair } from '../src/db/samples-correctness';
import { mayNameAnswerContext, renderParams, type RunPlan } from '../src/chains/registry';
import { fingerprintWith, MAX_RECHECKS_PER_RUN } from '../src/domain/correctness';
import type { ChainAdapter } from '../src/chains/types';
import { runSettingsOf, targetsByRole } from '../src/domain/run-plan';
import type { JsonRpcClient } from '../src/probe/json-rpc-client';
import { recheckAll, recheckAllAnswers, recheckAllAtOneSlot, type RecheckAnswer, type RecheckCall, type SlotRecheckCall } from '../src/probe/head-recheck';
import { openEndpointClient } from './endpoint-client';
import { heartbeating } from './heartbeating';
import { runEndingStep } from './run-ending-step';
import { runPlanOrFail } from './run-plan';

export interface RecheckDeps {
  sql: Sql;
  box: SecretBox;
  allowPrivateTargets: boolean;
}

/** Pairs re-sent at once (each to both sides): a handful of connections per endpoint. */
const RECHECK_CONCURRENCY = 8;
/**
 * No re-check starts later than this after the first: 200 pairs against endpoints at the 60 s
 * timeout could otherwise hold finalize for 25 minutes. Pairs not sent in time stay inconclusive
 * (and are not stored, so a retried re-check may still send them).
 */
const RECHECK_BUDGET_MS = 120_000;
/** Outcomes are stored per batch, so a re-check that dies half-way keeps what it learnt. */
const STORE_EVERY = 20;

/** The head-dependent methods of which some workload entry can be asked at a fixed block. */
function pinnableMethods({ chain, workload, pinnedBlock, pinnedContext }: RunPlan): string[] {
  return [
    ...new Set(
      workload.methods
        .filter((m) => {
          const params = renderParams(chain, m.params, pinnedBlock, pinnedContext);
          return chain.isHeadDependent(m.method, params) && chain.pinForRecheck(m.method, params, 0) !== null;
        })
        .map((m) => m.method),
    ),
  ];
}

/** The workload's methods whose differences may be a shorter history (AnswerComparison.isHistoryList), re-asked whether a head moved or not. */
function historyListMethods({ chain, workload }: RunPlan): string[] {
  return [...new Set(workload.methods.map((m) => m.method).filter((method) => chain.comparison.isHistoryList(method)))];
}

/**
 * How a re-asked history list is judged with both answers in hand: fingerprints as the probes take
 * them (equal: `resolved`); different and one a strict prefix of the other: `not_comparable`
 * (history depth); else `confirmed`. An answer too deep or too large to fingerprint: `failed`.
 */
function judgeHistoryList(chain: ChainAdapter, method: string) {
  return (candidate: unknown, reference: unknown): RecheckAnswer => {
    const [candidateHash, referenceHash] = [fingerprintWith(chain.normalize, method, candidate), fingerprintWith(chain.normalize, method, reference)];
    if (candidateHash === null || referenceHash === null) return { outcome: 'failed', candidateHash, referenceHash };
    if (candidateHash === referenceHash) return { outcome: 'resolved', candidateHash, referenceHash };
    const shorter = chain.comparison.isShorterHistory(method, candidate, reference);
    return { outcome: shorter ? 'not_comparable' : 'confirmed', candidateHash, referenceHash };
  };
}

/** A successful run judged for correctness (a reference, correctness on), not yet finalized. */
export interface JudgedRun {
  run: RunRow;
  plan: RunPlan;
  candidates: RunTargetRow[];
  reference: RunTargetRow;
}

/**
 * The run as the steps between probing and finalize see it; null when they have nothing to do:
 * the run is gone (finalize reports that), already finished (a replayed or late step), has no
 * reference, or does not check correctness.
 */
export async function loadJudgedRun(sql: Queryable, runId: string): Promise<JudgedRun | null> {
  const run = await findRun(sql, runId);
  if (!run || run.verdict || !runSettingsOf(run).thresholds.correctness_enabled) return null;
  const { candidates, reference } = targetsByRole(await findRunTargets(sql, runId));
  if (!reference) return null;
  return { run, plan: runPlanOrFail(run), candidates, reference };
}

/**
 * A pair to re-send, with its block and pinned params. `atOneSlot`: a pair answered at different
 * answer contexts, re-asked until both sides answer at one context (recheckAtOneSlot); `block` is the
 * higher context and `params` the call's own (pinned per ask).
 */
type PlannedRecheck = RecheckPair & { block: string; params: unknown[]; atOneSlot?: boolean };

/**
 * The run step between probing and finalize (its own activity, so the history shows it and
 * finalize does no network I/O): compares the samples with the reference's in a short
 * transaction (matches_reference, as finalize does; idempotent), picks the head-moved pairs to
 * re-send and commits, then re-sends them outside any transaction, heartbeating. A re-check
 * retried after a worker died re-sends only what is not stored yet, so nothing is counted twice.
 */
export async function recheckHeadMoved(deps: RecheckDeps, input: { runId: string }): Promise<{ rechecked: number }> {
  // Its worker lost too often: the differences keep the head-moved rule (runEndingStep).
  return runEndingStep(() => recheckHeadMovedOnce(deps, input), async () => ({ rechecked: 0 }));
}

async function recheckHeadMovedOnce(deps: RecheckDeps, input: { runId: string }): Promise<{ rechecked: number }> {
  return heartbeating(async () => {
    const judged = await loadJudgedRun(deps.sql, input.runId);
    if (!judged) return { rechecked: 0 };
    const { run, plan, candidates, reference } = judged;
    // Nothing the workload asks can be pinned, and no answer may name a context: no comparison
    // here (the explanation step and finalize compare anyway; on a million samples each pass
    // costs seconds).
    if (pinnableMethods(plan).length === 0 && !mayNameAnswerContext(plan.chain, plan.workload)) return { rechecked: 0 };
    const planned = await deps.sql.begin(async (tx) => {
      await compareWithReference(tx, run.id, candidates.map((t) => t.id), reference.id);
      return planRechecks(tx, run, plan, candidates, reference);
    });
    return { rechecked: await sendRechecks(deps, run, plan, candidates, reference, planned) };
  });
}

/**
 * Re-sends head-moved differences once to both sides with the head tag replaced by a fixed
 * block (DESIGN.md §7) and stores each outcome in run_rechecks, where classifyDifferingSamples
 * reads it: a difference that survives counts as a mismatch, one that resolves — or whose
 * re-check fails — stays inconclusive. At most MAX_RECHECKS_PER_RUN pairs, spread over methods
 * (selectRecheckPairs), started within RECHECK_BUDGET_MS; the rest keep the head-moved rule.
 * The block is the lower of the two sides' recorded heads before their calls (a block both
 * had), else the run's pinned block.
 *
 * Idempotent: pairs already stored are not re-sent (a retried re-check reuses their outcome,
 * since the nodes could answer differently a second time). `tx` is read from only, after
 * compareWithReference (the differing pairs are read from matches_reference); outcomes are
 * written through the pool, committed at once. Requests go through the probe client (address
 * guard, timeouts, response caps) with the endpoint's secrets decrypted here only.
 */
export async function recheckHeadMovedDifferences(
  deps: RecheckDeps,
  tx: postgres.TransactionSql,
  run: RunRow,
  candidates: readonly RunTargetRow[],
  reference: RunTargetRow,
): Promise<void> {
  const plan = runPlanOrFail(run);
  await sendRechecks(deps, run, plan, candidates, reference, await planRechecks(tx, run, plan, candidates, reference));
}

/** The pairs still to re-send, and the endpoints to send them to (read in the same transaction). */
async function planRechecks(
  tx: postgres.TransactionSql,
  run: RunRow,
  plan: RunPlan,
  candidates: readonly RunTargetRow[],
  reference: RunTargetRow,
): Promise<{ todo: PlannedRecheck[]; endpoints: Map<string, EndpointRow | undefined> }> {
  const endpoints = new Map<string, EndpointRow | undefined>();
  const methods = pinnableMethods(plan);
  const historyLists = historyListMethods(plan);
  const ids = candidates.map((t) => t.id);
  const pairs =
    methods.length === 0 && historyLists.length === 0
      ? []
      : await selectRecheckPairs(tx, run.id, ids, reference.id, { headDependentMethods: methods, historyListMethods: historyLists, limit: MAX_RECHECKS_PER_RUN });
  // Pairs at different answer contexts share the per-run bound with the head-moved ones.
  const slotPairs =
    !mayNameAnswerContext(plan.chain, plan.workload) ? [] : await selectAnswerContextPairs(tx, run.id, ids, reference.id, MAX_RECHECKS_PER_RUN - pairs.length);
  if (pairs.length === 0 && slotPairs.length === 0) return { todo: [], endpoints };
  const stored = await storedRecheckKeys(tx, run.id);
  const { chain } = plan;
  const headMoved: PlannedRecheck[] = pairs.flatMap((pair) => {
    const block = pair.block ?? run.pinned_block;
    if (stored.has(recheckKey(pair.target_id, pair.seq)) || block === null) return [];
    const planned = plan.requestAt(pair.seq);
    const params = planned.method === pair.method ? chain.pinForRecheck(pair.method, planned.params, BigInt(block)) : null;
    return params === null ? [] : [{ ...pair, block, params }];
  });
  const atOneSlot: PlannedRecheck[] = slotPairs.flatMap((pair) => {
    const planned = plan.requestAt(pair.seq);
    if (stored.has(recheckKey(pair.target_id, pair.seq)) || planned.method !== pair.method) return [];
    return [{ ...pair, params: planned.params, atOneSlot: true }];
  });
  const todo = [...headMoved, ...atOneSlot];
  if (todo.length === 0) return { todo, endpoints };
  for (const target of [reference, ...candidates]) {
    if (target === reference || todo.some((p) => p.target_id === target.id)) endpoints.set(target.id, await findEndpoint(tx, target.endpoint_id));
  }
  return { todo, endpoints };
}

/** Sends the planned re-checks (no transaction held) and stores their outcomes; how many were sent. */
async function sendRechecks(
  deps: RecheckDeps,
  run: RunRow,
  { workload, chain }: RunPlan,
  candidates: readonly RunTargetRow[],
  reference: RunTargetRow,
  planned: { todo: PlannedRecheck[]; endpoints: Map<string, EndpointRow | undefined> },
): Promise<number> {
  const { todo, endpoints } = planned;
  if (todo.length === 0) return 0;
  const clients = new Map<string, JsonRpcClient | null>();
  const open = (target: RunTargetRow): void => {
    const endpoint = endpoints.get(target.id);
    try {
      clients.set(
        target.id,
        endpoint
          ? openEndpointClient(deps, endpoint, { timeoutMs: workload.timeout_ms, connections: RECHECK_CONCURRENCY, chain, fingerprintResults: true })
          : null,
      );
    } catch {
      // A refused address (or an endpoint gone since): its re-checks fail, the pairs stay inconclusive.
      clients.set(target.id, null);
    }
  };
  const deadlineMs = Date.now() + RECHECK_BUDGET_MS;
  let sent = 0;
  try {
    open(reference);
    for (const target of candidates) if (endpoints.has(target.id)) open(target);
    for (let from = 0; from < todo.length && Date.now() < deadlineMs; from += STORE_EVERY) {
      const batch = todo.slice(from, from + STORE_EVERY);
      const sides = (p: PlannedRecheck) => ({ candidate: clients.get(p.target_id) ?? null, reference: clients.get(reference.id) ?? null });
      const isHistoryList = (p: PlannedRecheck) => !p.atOneSlot && chain.comparison.isHistoryList(p.method);
      const plainOnes = batch.filter((p) => !p.atOneSlot && !isHistoryList(p));
      const historyOnes = batch.filter(isHistoryList);
      const calls: RecheckCall[] = plainOnes.map((p) => ({ seq: p.seq, method: p.method, params: p.params, ...sides(p) }));
      const historyCalls = historyOnes.map((p) => ({ seq: p.seq, method: p.method, params: p.params, ...sides(p), judge: judgeHistoryList(chain, p.method) }));
      const slotCalls: SlotRecheckCall[] = batch
        .filter((p) => p.atOneSlot)
        .map((p) => ({
          seq: p.seq,
          method: p.method,
          slot: Number(p.block),
          // A call that takes no minContextSlot (getSignatureStatuses) is re-asked as it was.
          paramsAt: (slot: number) => chain.pinForRecheck(p.method, p.params, slot) ?? p.params,
          ...sides(p),
        }));
      const [plain, history, atSlot] = await Promise.all([
        recheckAll(calls, RECHECK_CONCURRENCY, deadlineMs),
        recheckAllAnswers(historyCalls, RECHECK_CONCURRENCY, deadlineMs),
        recheckAllAtOneSlot(slotCalls, RECHECK_CONCURRENCY, deadlineMs),
      ]);
      const answerOf = new Map<PlannedRecheck, RecheckAnswer | undefined>([
        ...plainOnes.map((p, i) => [p, plain[i]] as const),
        ...historyOnes.map((p, i) => [p, history[i]] as const),
        ...batch.filter((p) => p.atOneSlot).map((p, i) => [p, atSlot[i]] as const),
      ]);
      const answers = batch.map((p) => answerOf.get(p));
      const rows: RecheckRow[] = batch.flatMap((p, i) => {
        const answer = answers[i];
        if (!answer) return [];
        const row: RecheckRow = {
          run_id: run.id,
          target_id: p.target_id,
          seq: p.seq,
          method: p.method,
          block: p.block,
          outcome: answer.outcome,
          candidate_hash: answer.candidateHash,
          reference_hash: answer.referenceHash,
        };
        return [row];
      });
      await insertRechecks(deps.sql, rows);
      sent += rows.length;
    }
  } finally {
    await Promise.all([...clients.values()].map((c) => c?.close()));
  }
  return sent;
}
