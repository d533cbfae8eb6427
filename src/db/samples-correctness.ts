import type postgres from 'postgres';
import { RPC_ERROR_REASONS } from '../domain/sample-outcome';
import type { AnswerContextTotals, DifferingTotals, HistoryDepthTotals, MethodPairTotals } from '../domain/correctness';

/*
 * The correctness SQL: candidate samples compared with the reference sample of the same seq, the
 * differing pairs classified (a moving head, a re-check) and picked for a re-check, entirely in
 * Postgres. The tally built from these counts is pure (domain/correctness.ts tallyFromCounts).
 */

/** A candidate sample whose answer differs from the reference's at the same seq. */
export interface DifferingSample {
  seq: number;
  method: string;
  candidate_hash: string;
  reference_hash: string;
}

/**
 * Two answers are compared only when they were read at the same answer context (DESIGN.md §11,
 * AnswerComparison.answerContext), or when either names none. `c` the candidate sample, `r` the
 * reference's. The column run_samples.context_slot holds the answer context: its name is
 * migration 024's, kept (renaming it would buy nothing but a rewrite of every query).
 */
const SAME_CONTEXT = 'not (c.context_slot is not null and r.context_slot is not null and c.context_slot <> r.context_slot)';

/**
 * Compares every candidate sample with the reference sample of the same seq — the same request,
 * since the request at a seq is a pure function of the run's seed — entirely in Postgres (a run
 * may hold a million samples per target). Sets `matches_reference` on the candidate samples
 * (true: both ok, equal hash; false: both ok, different hash; null: either side not ok, or no
 * reference sample, or answers read at different answer contexts: see answerContextPairs) and returns
 * the candidate samples counted per method. Idempotent. Runs in
 * the caller's transaction (finalize's, which holds the run's finalize lock).
 */
export async function compareWithReference(
  sql: postgres.TransactionSql,
  runId: string,
  candidateTargetIds: readonly string[],
  referenceTargetId: string,
): Promise<MethodPairTotals[]> {
  const candidates = candidateTargetIds as string[];
  // The planner has no statistics for a run written seconds ago (autovacuum has not analysed
  // it), estimates one row per side and picks a nested loop whose inner index scan seeks
  // (run_id, target_id) and *filters* seq: quadratic, 100 s at 40k samples per target. A hash
  // join is linear whatever the estimates; this holds for the rest of the transaction, which
  // classifyDifferingSamples needs too.
  await sql`set local enable_nestloop = off`;
  await sql`
    update run_samples c
    set matches_reference = case when c.ok and r.ok and ${sql.unsafe(SAME_CONTEXT)} then c.response_hash = r.response_hash end
    from run_samples r
    where c.run_id = ${runId} and c.target_id = any(${candidates}::uuid[])
      and r.run_id = c.run_id and r.target_id = ${referenceTargetId}::uuid and r.seq = c.seq and r.region = c.region and r.method = c.method
      and c.matches_reference is distinct from (case when c.ok and r.ok and ${sql.unsafe(SAME_CONTEXT)} then c.response_hash = r.response_hash end)`;
  return sql<MethodPairTotals[]>`
    select method,
      (count(*) filter (where matches_reference))::int as matched,
      (count(*) filter (where not matches_reference))::int as differing,
      (count(*) filter (where matches_reference is null))::int as skipped
    from run_samples
    where run_id = ${runId} and target_id = any(${candidates}::uuid[])
    group by method order by method`;
}

/** A listed mismatch; `recheck` when it is a head-moved difference its re-check confirmed. */
export interface ClassifiedMismatch extends DifferingSample {
  /** The candidate target that answered. */
  target_id: string;
  /** The block the re-check pinned and the hashes of its answers. */
  recheck: { block: string; candidate_hash: string; reference_hash: string } | null;
  /** Mismatches of the method with the same two answers as shown (the same hash pair); this one is the first by seq. */
  occurrences: number;
}

/**
 * The candidate samples whose answers differ from the reference's at the same seq, with whether
 * a moving head may explain them (`head_moved`): the method is in `headDependentMethods` **and**
 * the recorded head (run_heads) of the candidate's target or of the reference moved in the
 * observation window in which that side's sample started: between the last head read at or
 * before the sample and the first one after it (heads are read at the start and at the end of
 * every probe chunk). No head read after the sample, or equal heads around it, is no evidence of
 * a move. The head windows are materialised once (a few rows per chunk), not recomputed per
 * differing sample. `differs` picks the differing pairs (`c` candidate, `r` reference sample).
 */
function differingPairs(
  sql: postgres.TransactionSql,
  runId: string,
  candidateTargetIds: readonly string[],
  referenceTargetId: string,
  headDependentMethods: readonly string[],
  differs: postgres.PendingQuery<postgres.Row[]>,
) {
  return sql`
    heads as materialized (
      select target_id, observed_at as from_at, head,
        lead(observed_at) over w as to_at, lead(head) over w as next_head
      from run_heads where run_id = ${runId}
      window w as (partition by target_id order by observed_at)
    ),
    moved as materialized (
      select target_id, from_at, to_at from heads where next_head is not null and next_head <> head
    ),
    differing as (
      select c.seq, c.target_id, c.method, c.started_at, r.started_at as reference_started_at,
        c.response_hash as candidate_hash, r.response_hash as reference_hash,
        -- Two answers read at the same answer context (both name one) differ whatever the heads did.
        (c.context_slot is null or r.context_slot is null) and c.method = any(${headDependentMethods as string[]}::text[]) and exists (
          select 1 from moved m
          where (m.target_id = c.target_id and c.started_at >= m.from_at and c.started_at < m.to_at)
            or (m.target_id = r.target_id and r.started_at >= m.from_at and r.started_at < m.to_at)
        ) as head_moved
      from run_samples c
      join run_samples r on r.run_id = c.run_id and r.target_id = ${referenceTargetId}::uuid and r.seq = c.seq and r.region = c.region
      where c.run_id = ${runId} and c.target_id = any(${candidateTargetIds as string[]}::uuid[])
        and ${differs}
    )`;
}

/**
 * Classifies the candidate samples that differ from the reference (`matches_reference = false`,
 * set by compareWithReference in the same transaction, whose planner setting keeps these joins
 * hash joins). A differing pair is excused (`head_moved`, see differingPairs) only when a
 * recorded head moved around it, and even then not when its re-check at a fixed block
 * (run_rechecks, written by the head re-check before) still differed: that one is `confirmed`
 * and counts as a mismatch.
 *
 * Returns the counts per method and up to `limit` example mismatches per method, from window
 * functions: only counts and a few rows come back however many samples differ. Examples are
 * distinct: mismatches of a method with the same two answers as shown (the same pair of hashes —
 * a candidate that answers one call wrongly every time) are one example, the first by seq, with
 * their number in `occurrences`. spreadMismatches picks the listed ones from those.
 */
export async function classifyDifferingSamples(
  sql: postgres.TransactionSql,
  runId: string,
  candidateTargetIds: readonly string[],
  referenceTargetId: string,
  options: { headDependentMethods: readonly string[]; limit: number },
): Promise<{ counts: DifferingTotals[]; examples: ClassifiedMismatch[] }> {
  type Row = DifferingSample & Omit<DifferingTotals, 'method' | 'history_depth'> & {
    history_depth: number;
    moved_head: boolean;
    mismatch: boolean;
    target_id: string;
    occurrences: number;
    block: string | null;
    recheck_candidate_hash: string | null;
    recheck_reference_hash: string | null;
  };
  const pairs = differingPairs(sql, runId, candidateTargetIds, referenceTargetId, options.headDependentMethods, sql`c.matches_reference = false`);
  const rows = await sql<Row[]>`
    with ${pairs},
    classified as materialized (
      select d.seq, d.target_id, d.method, d.candidate_hash, d.reference_hash, d.head_moved as moved_head,
        rc.outcome as recheck, rc.block::text as block,
        rc.candidate_hash as recheck_candidate_hash, rc.reference_hash as recheck_reference_hash,
        -- A history list re-asked (selectRecheckPairs' historyListMethods) whose shorter answer was a
        -- strict prefix of the longer: not comparable for history depth, whether a head moved or not.
        coalesce(rc.outcome = 'not_comparable', false) as history,
        (not d.head_moved or coalesce(rc.outcome = 'confirmed', false)) and not coalesce(rc.outcome = 'not_comparable', false) as mismatch,
        -- The answers an example shows: a confirmed re-check's when there is one.
        case when d.head_moved and rc.block is not null then rc.candidate_hash else d.candidate_hash end as shown_candidate_hash,
        case when d.head_moved and rc.block is not null then rc.reference_hash else d.reference_hash end as shown_reference_hash
      from differing d
      left join run_rechecks rc on rc.run_id = ${runId} and rc.target_id = d.target_id and rc.seq = d.seq
    ),
    counted as (
      select cl.*,
        row_number() over (partition by method, mismatch, shown_candidate_hash, shown_reference_hash order by seq, target_id) as pair_rank,
        (count(*) over (partition by method, mismatch, shown_candidate_hash, shown_reference_hash))::int as occurrences,
        (count(*) filter (where mismatch) over m)::int as mismatched,
        (count(*) filter (where not mismatch and not history) over m)::int as head_moved,
        (count(*) filter (where history) over m)::int as history_depth,
        (count(*) filter (where moved_head and recheck = 'confirmed') over m)::int as confirmed,
        (count(*) filter (where moved_head and recheck = 'resolved') over m)::int as resolved,
        (count(*) filter (where moved_head and recheck = 'failed') over m)::int as recheck_failed
      from classified cl
      window m as (partition by method)
    )
    select * from (
      select c.*, row_number() over (partition by method, mismatch order by seq, target_id) as rank
      from counted c where pair_rank = 1
    ) ranked
    where rank = 1 or (mismatch and rank <= ${options.limit})
    order by method, seq, target_id`;
  const counts = new Map<string, DifferingTotals>();
  const examples: ClassifiedMismatch[] = [];
  for (const row of rows) {
    const { method, mismatched, head_moved, confirmed, resolved, recheck_failed, history_depth } = row;
    // history_depth only where there is one (a family without history lists never has any).
    if (!counts.has(method)) counts.set(method, { method, mismatched, head_moved, confirmed, resolved, recheck_failed, ...(history_depth > 0 ? { history_depth } : {}) });
    if (!row.mismatch) continue;
    const confirmedRecheck = row.moved_head && row.block !== null;
    examples.push({
      seq: row.seq,
      target_id: row.target_id,
      occurrences: row.occurrences,
      method,
      candidate_hash: row.candidate_hash,
      reference_hash: row.reference_hash,
      recheck: confirmedRecheck
        ? { block: row.block!, candidate_hash: row.recheck_candidate_hash!, reference_hash: row.recheck_reference_hash! }
        : null,
    });
  }
  return { counts: [...counts.values()], examples };
}

/** A head-moved difference to re-send: the candidate sample's key and the block to pin. */
export interface RecheckPair {
  target_id: string;
  seq: number;
  method: string;
  /**
   * The lower of the two sides' last recorded heads at or before their samples (a block both
   * had when they answered); null when neither side had a head read before its sample.
   */
  block: string | null;
}

/**
 * Up to `limit` head-moved differences (differingPairs with `headDependentMethods`), and differences
 * of `historyListMethods` whether a head moved or not (AnswerComparison.isHistoryList: a shorter list may
 * be history depth, told apart only with both answers in hand), to re-send,
 * spread over methods round-robin (the first of every method by seq, then the second, …), so
 * the same pairs are picked on every call: a retried finalize asks for the same set. Reads
 * `matches_reference = false`, so it runs after compareWithReference in the same transaction
 * (as classifyDifferingSamples does): only the differing rows are joined, not the whole run.
 */
export async function selectRecheckPairs(
  sql: postgres.TransactionSql,
  runId: string,
  candidateTargetIds: readonly string[],
  referenceTargetId: string,
  options: { headDependentMethods: readonly string[]; historyListMethods?: readonly string[]; limit: number },
): Promise<RecheckPair[]> {
  const historyLists = (options.historyListMethods ?? []) as string[];
  if ((options.headDependentMethods.length === 0 && historyLists.length === 0) || options.limit <= 0) return [];
  const pairs = differingPairs(sql, runId, candidateTargetIds, referenceTargetId, options.headDependentMethods, sql`c.matches_reference = false`);
  return sql<RecheckPair[]>`
    with ${pairs}
    select p.target_id, p.seq, p.method, least(
        (select h.head from run_heads h
          where h.run_id = ${runId} and h.target_id = p.target_id and h.observed_at <= p.started_at
          order by h.observed_at desc limit 1),
        (select h.head from run_heads h
          where h.run_id = ${runId} and h.target_id = ${referenceTargetId}::uuid and h.observed_at <= p.reference_started_at
          order by h.observed_at desc limit 1)
      )::text as block
    from (
      select d.*, row_number() over (partition by method order by seq, target_id) as rank
      from differing d where head_moved or method = any(${historyLists}::text[])
    ) p
    order by p.rank, p.method, p.seq, p.target_id
    limit ${options.limit}`;
}

/** A pair of answers read at different answer contexts (both ok): the candidate sample and the context to re-ask both at. */
export interface AnswerContextPair {
  target_id: string;
  seq: number;
  method: string;
  /** The higher of the two answer contexts (bigint as text): the context the re-ask asks for. */
  block: string;
}

/**
 * Up to `limit` pairs answered at different answer contexts (both sides ok, both naming one) not
 * re-asked yet, spread over methods round-robin like selectRecheckPairs (the same pairs on every
 * call), each with the higher of the two slots.
 */
export async function selectAnswerContextPairs(
  sql: postgres.TransactionSql,
  runId: string,
  candidateTargetIds: readonly string[],
  referenceTargetId: string,
  limit: number,
): Promise<AnswerContextPair[]> {
  if (limit <= 0) return [];
  return sql<AnswerContextPair[]>`
    select target_id, seq, method, block from (
      select c.target_id, c.seq, c.method, greatest(c.context_slot, r.context_slot)::text as block,
        row_number() over (partition by c.method order by c.seq, c.target_id) as rank
      from run_samples c
      join run_samples r on r.run_id = c.run_id and r.target_id = ${referenceTargetId}::uuid and r.seq = c.seq and r.region = c.region and r.method = c.method
      where c.run_id = ${runId} and c.target_id = any(${candidateTargetIds as string[]}::uuid[])
        and c.ok and r.ok and c.context_slot <> r.context_slot
    ) p
    order by rank, method, seq, target_id
    limit ${limit}`;
}

/**
 * Per method, the pairs answered at different answer contexts (counted as `skipped` by
 * compareWithReference, whose matches_reference is null for them) and what their re-asks
 * (run_rechecks) found: both sides at one context with equal answers (`resolved`) or different ones
 * (`confirmed`); everything else — never re-asked, a side failed, or never at one slot — is
 * `not_comparable`. Only methods with such pairs are returned.
 */
export async function answerContextPairs(
  sql: postgres.TransactionSql,
  runId: string,
  candidateTargetIds: readonly string[],
  referenceTargetId: string,
): Promise<AnswerContextTotals[]> {
  return sql<AnswerContextTotals[]>`
    select c.method,
      (count(*) filter (where rc.outcome = 'resolved'))::int as resolved,
      (count(*) filter (where rc.outcome = 'confirmed'))::int as confirmed,
      (count(*) filter (where rc.outcome is null or rc.outcome not in ('resolved', 'confirmed')))::int as not_comparable,
      (count(*) filter (where rc.outcome is not null))::int as rechecked
    from run_samples c
    join run_samples r on r.run_id = c.run_id and r.target_id = ${referenceTargetId}::uuid and r.seq = c.seq and r.region = c.region and r.method = c.method
    left join run_rechecks rc on rc.run_id = c.run_id and rc.target_id = c.target_id and rc.seq = c.seq
    where c.run_id = ${runId} and c.target_id = any(${candidateTargetIds as string[]}::uuid[])
      and c.ok and r.ok and c.context_slot <> r.context_slot
    group by c.method order by c.method`;
}

/**
 * Examples of pairs at different answer contexts whose re-ask at one context still differed
 * (run_rechecks `confirmed`): distinct per method and pair of re-asked answers (the first by seq,
 * with their number in `occurrences`), up to `limit` per method, shaped as classifyDifferingSamples'
 * examples with the re-ask as their `recheck` (the context asked at and the re-asked answers' hashes).
 */
export async function contextConfirmedExamples(
  sql: postgres.TransactionSql,
  runId: string,
  candidateTargetIds: readonly string[],
  referenceTargetId: string,
  limit: number,
): Promise<ClassifiedMismatch[]> {
  const rows = await sql<(DifferingSample & { target_id: string; occurrences: number; block: string; recheck_candidate_hash: string; recheck_reference_hash: string })[]>`
    select seq, target_id, method, candidate_hash, reference_hash, occurrences, block, recheck_candidate_hash, recheck_reference_hash from (
      select p.*, row_number() over (partition by method order by seq, target_id) as rank from (
        select c.seq, c.target_id, c.method, c.response_hash as candidate_hash, r.response_hash as reference_hash, rc.block::text as block,
          rc.candidate_hash as recheck_candidate_hash, rc.reference_hash as recheck_reference_hash,
          row_number() over (partition by c.method, rc.candidate_hash, rc.reference_hash order by c.seq, c.target_id) as pair_rank,
          (count(*) over (partition by c.method, rc.candidate_hash, rc.reference_hash))::int as occurrences
        from run_rechecks rc
        join run_samples c on c.run_id = rc.run_id and c.target_id = rc.target_id and c.seq = rc.seq
        join run_samples r on r.run_id = c.run_id and r.target_id = ${referenceTargetId}::uuid and r.seq = c.seq and r.region = c.region and r.method = c.method
        where rc.run_id = ${runId} and rc.outcome = 'confirmed' and c.target_id = any(${candidateTargetIds as string[]}::uuid[])
          and c.ok and r.ok and c.context_slot <> r.context_slot
      ) p where pair_rank = 1
    ) ranked
    where rank <= ${limit}
    order by method, seq, target_id`;
  return rows.map((row) => ({
    seq: row.seq,
    target_id: row.target_id,
    method: row.method,
    candidate_hash: row.candidate_hash,
    reference_hash: row.reference_hash,
    occurrences: row.occurrences,
    recheck: { block: row.block, candidate_hash: row.recheck_candidate_hash, reference_hash: row.recheck_reference_hash },
  }));
}

/**
 * Per method, the pairs where one side answered a value and the other an RPC error its family read
 * as "beyond my history" (ChainAdapter.rpcErrorOutcome `history_depth`, stored as reason
 * RPC_ERROR_REASONS.historyDepth): counted as `skipped` by compareWithReference (a side failed),
 * they are `not_comparable` for history depth instead. Either side may be the shorter one. Only
 * methods with such pairs.
 */
export async function historyDepthPairs(
  sql: postgres.TransactionSql,
  runId: string,
  candidateTargetIds: readonly string[],
  referenceTargetId: string,
): Promise<HistoryDepthTotals[]> {
  const beyond = RPC_ERROR_REASONS.historyDepth;
  return sql<HistoryDepthTotals[]>`
    select c.method, count(*)::int as not_comparable
    from run_samples c
    join run_samples r on r.run_id = c.run_id and r.target_id = ${referenceTargetId}::uuid and r.seq = c.seq and r.region = c.region and r.method = c.method
    where c.run_id = ${runId} and c.target_id = any(${candidateTargetIds as string[]}::uuid[])
      and ((c.ok and not r.ok and r.outcome = 'rpc_error' and r.reason = ${beyond})
        or (r.ok and not c.ok and c.outcome = 'rpc_error' and c.reason = ${beyond}))
    group by c.method order by c.method`;
}
