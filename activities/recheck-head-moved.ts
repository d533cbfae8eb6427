import type postgres from 'postgres';
import type { SecretBox } from '../src/crypto/secret-box';
import type { Sql } from '../src/db/client';
import { findEndpoint } from '../src/db/endpoints';
import { insertRechecks, recheckKey, storedRecheckKeys, type RecheckRow } from '../src/db/rechecks';
import type { RunRow, RunTargetRow } from '../src/db/runs';
import { selectRecheckPairs } from '../src/db/samples';
import { planRequests, renderParams } from '../src/chains/registry';
import { MAX_RECHECKS_PER_RUN } from '../src/domain/correctness';
import type { JsonRpcClient } from '../src/probe/json-rpc-client';
import { recheckAll, type RecheckCall } from '../src/probe/head-recheck';
import { openEndpointClient } from './endpoint-client';
import { chainOfRunOrFail } from './run-chain';

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
 * (and are not stored, so a retried finalize may still send them).
 */
const RECHECK_BUDGET_MS = 120_000;
/** Outcomes are stored per batch, so a finalize that dies half-way keeps what it learnt. */
const STORE_EVERY = 20;

const pinnedBlockOf = (run: RunRow): number | null => (run.pinned_block === null ? null : Number(run.pinned_block));

/** The head-dependent methods of which some workload entry can be asked at a fixed block. */
function pinnableMethods(run: RunRow): string[] {
  const pinned = pinnedBlockOf(run);
  const chain = chainOfRunOrFail(run);
  return [
    ...new Set(
      run.config_snapshot.suite.config.workload.methods
        .filter((m) => {
          const params = renderParams(chain, m.params, pinned);
          return chain.isHeadDependent(m.method, params) && chain.pinForRecheck(m.method, params, 0) !== null;
        })
        .map((m) => m.method),
    ),
  ];
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
 * Idempotent: pairs already stored are not re-sent (a retried finalize reuses their outcome,
 * since the nodes could answer differently a second time). `tx` is finalize's transaction,
 * after compareWithReference (the differing pairs are read from matches_reference), read from
 * only; outcomes are written through the pool, committed at once, so they outlive a
 * finalize attempt that fails later. Requests go through the probe client (address guard,
 * timeouts, response caps) with the endpoint's secrets decrypted here only.
 */
export async function recheckHeadMovedDifferences(
  deps: RecheckDeps,
  tx: postgres.TransactionSql,
  run: RunRow,
  candidates: readonly RunTargetRow[],
  reference: RunTargetRow,
): Promise<void> {
  const methods = pinnableMethods(run);
  if (methods.length === 0) return;
  const pairs = await selectRecheckPairs(
    tx,
    run.id,
    candidates.map((t) => t.id),
    reference.id,
    { headDependentMethods: methods, limit: MAX_RECHECKS_PER_RUN },
  );
  if (pairs.length === 0) return;
  const stored = await storedRecheckKeys(tx, run.id);
  const workload = run.config_snapshot.suite.config.workload;
  const chain = chainOfRunOrFail(run);
  const plan = planRequests(chain, workload, Number(run.seed), pinnedBlockOf(run));
  const todo = pairs.flatMap((pair) => {
    const block = pair.block ?? run.pinned_block;
    if (stored.has(recheckKey(pair.target_id, pair.seq)) || block === null) return [];
    const planned = plan(pair.seq);
    const params = planned.method === pair.method ? chain.pinForRecheck(pair.method, planned.params, BigInt(block)) : null;
    return params === null ? [] : [{ ...pair, block, params }];
  });
  if (todo.length === 0) return;

  const clients = new Map<string, JsonRpcClient | null>();
  const open = async (target: RunTargetRow): Promise<void> => {
    const endpoint = await findEndpoint(tx, target.endpoint_id);
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
  try {
    await open(reference);
    for (const target of candidates) if (todo.some((p) => p.target_id === target.id)) await open(target);
    for (let from = 0; from < todo.length && Date.now() < deadlineMs; from += STORE_EVERY) {
      const batch = todo.slice(from, from + STORE_EVERY);
      const calls: RecheckCall[] = batch.map((p) => ({
        seq: p.seq,
        method: p.method,
        params: p.params,
        candidate: clients.get(p.target_id) ?? null,
        reference: clients.get(reference.id) ?? null,
      }));
      const answers = await recheckAll(calls, RECHECK_CONCURRENCY, deadlineMs);
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
    }
  } finally {
    await Promise.all([...clients.values()].map((c) => c?.close()));
  }
}
