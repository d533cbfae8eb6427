import type { LatencySummary, RunStats } from '../domain/stats';
import { once } from 'node:events';
import { finished } from 'node:stream/promises';
import type postgres from 'postgres';
import type { Queryable, Sql } from './client';
import type { TargetRole } from '../domain/run-model';
import type { SampleOutcome } from '../domain/sample-outcome';

export interface SampleRow {
  run_id: string;
  target_id: string;
  seq: number;
  role: TargetRole;
  method: string;
  started_at: Date;
  latency_us: number;
  ok: boolean;
  outcome: SampleOutcome;
  http_status: number | null;
  rpc_error_code: number | null;
  response_hash: string | null;
  matches_reference: boolean | null;
  /** invalid_response only: a fixed text from the probe (INVALID_REASONS), never answer bytes. */
  reason?: string | null;
  /** Paired open loop only: actual send time − intended instant, µs (migration 014); else null. */
  send_lag_us?: number | null;
}

export const SAMPLE_COLUMNS = [
  'run_id',
  'target_id',
  'seq',
  'role',
  'method',
  'started_at',
  'latency_us',
  'ok',
  'outcome',
  'http_status',
  'rpc_error_code',
  'response_hash',
  'matches_reference',
  'reason',
  'send_lag_us',
] as const;

// COPY text format: tab-separated, \N for NULL; backslash, tab and line breaks escaped.
function copyField(value: unknown): string {
  if (value === null || value === undefined) return '\\N';
  // Fast paths first: numbers never need escaping, and most strings hold nothing to escape.
  if (typeof value === 'number') return String(value);
  if (typeof value === 'boolean') return value ? 't' : 'f';
  if (value instanceof Date) return value.toISOString();
  const text = typeof value === 'string' ? value : String(value);
  if (!/[\\\t\n\r]/.test(text)) return text;
  return text.replace(/[\\\t\n\r]/g, (c) => (c === '\\' ? '\\\\' : c === '\t' ? '\\t' : c === '\n' ? '\\n' : '\\r'));
}

/**
 * Writes the samples of one chunk — seq in [fromSeq, toSeq) of one target — with COPY (about four
 * times faster than a multi-row INSERT). Idempotent: the chunk's range is deleted first in the same
 * transaction, so a retried chunk replaces its rows and nothing is ever counted twice.
 */
export async function writeSampleChunk(
  sql: Sql,
  chunk: { runId: string; targetId: string; fromSeq: number; toSeq: number },
  samples: readonly SampleRow[],
): Promise<void> {
  await sql.begin(async (tx) => {
    await tx`
      delete from run_samples
      where run_id = ${chunk.runId} and target_id = ${chunk.targetId} and seq >= ${chunk.fromSeq} and seq < ${chunk.toSeq}`;
    if (samples.length === 0) return;
    const stream = await tx`copy run_samples (${tx.unsafe(SAMPLE_COLUMNS.join(', '))}) from stdin`.writable();
    let buffer = '';
    for (const s of samples) {
      // One template literal per row (in SAMPLE_COLUMNS order) instead of map/join: no per-row arrays.
      buffer +=
        `${copyField(s.run_id)}\t${copyField(s.target_id)}\t${copyField(s.seq)}\t${copyField(s.role)}\t` +
        `${copyField(s.method)}\t${copyField(s.started_at)}\t${copyField(s.latency_us)}\t${copyField(s.ok)}\t` +
        `${copyField(s.outcome)}\t${copyField(s.http_status)}\t${copyField(s.rpc_error_code)}\t` +
        `${copyField(s.response_hash)}\t${copyField(s.matches_reference)}\t${copyField(s.reason)}\t${copyField(s.send_lag_us)}\n`;
      if (buffer.length > 256 * 1024) {
        if (!stream.write(buffer)) await once(stream, 'drain');
        buffer = '';
      }
    }
    stream.end(buffer);
    await finished(stream);
  });
}

interface StatsRow {
  total: number;
  successful: number;
  s_avg: number;
  s_p50: number;
  s_p95: number;
  s_p99: number;
  a_avg: number;
  a_p50: number;
  a_p95: number;
  a_p99: number;
}

/**
 * Aggregates the samples of the given targets in Postgres. percentile_disc is nearest-rank:
 * the first value whose cumulative share reaches the fraction.
 */
export async function aggregateLatency(
  sql: Queryable,
  runId: string,
  targetIds: readonly string[],
): Promise<Pick<RunStats, 'calls' | 'latency'>> {
  const [row] = await sql<StatsRow[]>`
    select
      count(*)::int as total,
      (count(*) filter (where ok))::int as successful,
      coalesce(round(avg(latency_us) filter (where ok) / 1000.0), 0)::int as s_avg,
      coalesce(round((percentile_disc(0.50) within group (order by latency_us) filter (where ok)) / 1000.0), 0)::int as s_p50,
      coalesce(round((percentile_disc(0.95) within group (order by latency_us) filter (where ok)) / 1000.0), 0)::int as s_p95,
      coalesce(round((percentile_disc(0.99) within group (order by latency_us) filter (where ok)) / 1000.0), 0)::int as s_p99,
      coalesce(round(avg(latency_us) / 1000.0), 0)::int as a_avg,
      coalesce(round((percentile_disc(0.50) within group (order by latency_us)) / 1000.0), 0)::int as a_p50,
      coalesce(round((percentile_disc(0.95) within group (order by latency_us)) / 1000.0), 0)::int as a_p95,
      coalesce(round((percentile_disc(0.99) within group (order by latency_us)) / 1000.0), 0)::int as a_p99
    from run_samples
    where run_id = ${runId} and target_id = any(${targetIds as string[]}::uuid[])`;
  const r = row!;
  const summary = (avg: number, p50: number, p95: number, p99: number, n: number): LatencySummary => ({
    avg_ms: avg,
    p50_ms: p50,
    p95_ms: p95,
    p99_ms: p99,
    sample_count: n,
  });
  return {
    calls: { total: r.total, successful: r.successful, failed: r.total - r.successful },
    latency: {
      successful: summary(r.s_avg, r.s_p50, r.s_p95, r.s_p99, r.successful),
      all: summary(r.a_avg, r.a_p50, r.a_p95, r.a_p99, r.total),
    },
  };
}

export async function countRunSamples(sql: Queryable, runId: string): Promise<number> {
  const [row] = await sql<{ n: number }[]>`select count(*)::int as n from run_samples where run_id = ${runId}`;
  return row!.n;
}

export async function listSamples(
  sql: Queryable,
  runId: string,
  filter: { targetId: string | null; method: string | null; outcome: SampleOutcome | null; limit: number; offset: number },
): Promise<{ rows: SampleRow[]; total: number }> {
  const where = sql`
    where run_id = ${runId}
    ${filter.targetId ? sql`and target_id = ${filter.targetId}` : sql``}
    ${filter.method ? sql`and method = ${filter.method}` : sql``}
    ${filter.outcome ? sql`and outcome = ${filter.outcome}` : sql``}`;
  const rows = await sql<SampleRow[]>`
    select * from run_samples ${where} order by target_id, seq limit ${filter.limit} offset ${filter.offset}`;
  const [count] = await sql<{ n: number }[]>`select count(*)::int as n from run_samples ${where}`;
  return { rows, total: count!.n };
}

export async function countSamplesOfRuns(sql: Queryable, runIds: readonly string[]): Promise<Map<string, number>> {
  const rows = await sql<{ run_id: string; n: number }[]>`
    select run_id, count(*)::int as n from run_samples where run_id = any(${runIds as string[]}::uuid[]) group by run_id`;
  return new Map(rows.map((r) => [r.run_id, r.n]));
}

/** Candidate samples of one method, by how they compare with the reference sample of their seq. */
export interface MethodPairCounts {
  method: string;
  /** Both sides ok with equal response hashes. */
  matched: number;
  /** Both sides ok with different response hashes. */
  differing: number;
  /** Either side not ok, or no reference sample at that seq: nothing to compare. */
  skipped: number;
}

/** A candidate sample whose answer differs from the reference's at the same seq. */
export interface DifferingSample {
  seq: number;
  method: string;
  candidate_hash: string;
  reference_hash: string;
}

/**
 * Compares every candidate sample with the reference sample of the same seq — the same request,
 * since the request at a seq is a pure function of the run's seed — entirely in Postgres (a run
 * may hold a million samples per target). Sets `matches_reference` on the candidate samples
 * (true: both ok, equal hash; false: both ok, different hash; null: either side not ok, or no
 * reference sample) and returns the candidate samples counted per method. Idempotent. Runs in
 * the caller's transaction (finalize's, which holds the run's finalize lock).
 */
export async function compareWithReference(
  sql: postgres.TransactionSql,
  runId: string,
  candidateTargetIds: readonly string[],
  referenceTargetId: string,
): Promise<MethodPairCounts[]> {
  const candidates = candidateTargetIds as string[];
  // The planner has no statistics for a run written seconds ago (autovacuum has not analysed
  // it), estimates one row per side and picks a nested loop whose inner index scan seeks
  // (run_id, target_id) and *filters* seq: quadratic, 100 s at 40k samples per target. A hash
  // join is linear whatever the estimates; this holds for the rest of the transaction, which
  // classifyDifferingSamples needs too.
  await sql`set local enable_nestloop = off`;
  await sql`
    update run_samples c
    set matches_reference = case when c.ok and r.ok then c.response_hash = r.response_hash end
    from run_samples r
    where c.run_id = ${runId} and c.target_id = any(${candidates}::uuid[])
      and r.run_id = c.run_id and r.target_id = ${referenceTargetId}::uuid and r.seq = c.seq and r.method = c.method
      and c.matches_reference is distinct from (case when c.ok and r.ok then c.response_hash = r.response_hash end)`;
  return sql<MethodPairCounts[]>`
    select method,
      (count(*) filter (where matches_reference))::int as matched,
      (count(*) filter (where not matches_reference))::int as differing,
      (count(*) filter (where matches_reference is null))::int as skipped
    from run_samples
    where run_id = ${runId} and target_id = any(${candidates}::uuid[])
    group by method order by method`;
}

/** Per method: candidate samples that differ from the reference, by how they count. */
export interface DifferingCounts {
  method: string;
  /** Differing pairs that count as mismatches: not excused by a moving head, or confirmed by their re-check. */
  mismatched: number;
  /** Differing pairs of head-dependent methods answered while a recorded head moved, not confirmed by a re-check. */
  head_moved: number;
  /** Head-moved pairs whose re-check (run_rechecks) still differed: counted in `mismatched`. */
  confirmed: number;
  /** Head-moved pairs whose re-check matched: counted in `head_moved`. */
  resolved: number;
  /** Head-moved pairs whose re-check failed on a side: counted in `head_moved`. */
  recheck_failed: number;
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
        c.method = any(${headDependentMethods as string[]}::text[]) and exists (
          select 1 from moved m
          where (m.target_id = c.target_id and c.started_at >= m.from_at and c.started_at < m.to_at)
            or (m.target_id = r.target_id and r.started_at >= m.from_at and r.started_at < m.to_at)
        ) as head_moved
      from run_samples c
      join run_samples r on r.run_id = c.run_id and r.target_id = ${referenceTargetId}::uuid and r.seq = c.seq
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
): Promise<{ counts: DifferingCounts[]; examples: ClassifiedMismatch[] }> {
  type Row = DifferingSample & Omit<DifferingCounts, 'method'> & {
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
        not d.head_moved or coalesce(rc.outcome = 'confirmed', false) as mismatch,
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
        (count(*) filter (where not mismatch) over m)::int as head_moved,
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
  const counts = new Map<string, DifferingCounts>();
  const examples: ClassifiedMismatch[] = [];
  for (const row of rows) {
    const { method, mismatched, head_moved, confirmed, resolved, recheck_failed } = row;
    if (!counts.has(method)) counts.set(method, { method, mismatched, head_moved, confirmed, resolved, recheck_failed });
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
 * Up to `limit` head-moved differences (differingPairs with `headDependentMethods`) to re-send,
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
  options: { headDependentMethods: readonly string[]; limit: number },
): Promise<RecheckPair[]> {
  if (options.headDependentMethods.length === 0 || options.limit <= 0) return [];
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
      from differing d where head_moved
    ) p
    order by p.rank, p.method, p.seq, p.target_id
    limit ${options.limit}`;
}

/**
 * The successful latencies (µs) of the given targets as a sparse sorted sample: `length` is the
 * number of successful calls, and only the order statistics the verdict reads are present (each
 * percentile's nearest rank and the ranks of its 95 % interval, from `ranksFor(n)`). A run may
 * hold a million samples per target, so Postgres sorts and only those few values come back.
 */
export async function successfulOrderStatistics(
  sql: Queryable,
  runId: string,
  targetIds: readonly string[],
  ranksFor: (n: number) => readonly number[],
): Promise<ArrayLike<number>> {
  const ids = targetIds as string[];
  const [count] = await sql<{ n: number }[]>`
    select count(*)::int as n from run_samples where run_id = ${runId} and target_id = any(${ids}::uuid[]) and ok`;
  const n = count!.n;
  const sample: { length: number; [rank: number]: number } = { length: n };
  const ranks = [...new Set(ranksFor(n))].filter((r) => r >= 1 && r <= n);
  if (ranks.length === 0) return sample;
  const rows = await sql<{ rank: number; latency_us: number }[]>`
    select rank::int, latency_us from (
      select latency_us, row_number() over (order by latency_us) as rank
      from run_samples where run_id = ${runId} and target_id = any(${ids}::uuid[]) and ok
    ) ordered
    where rank = any(${ranks}::bigint[])`;
  for (const r of rows) sample[r.rank - 1] = Number(r.latency_us);
  return sample;
}

/**
 * Share of the 1 s buckets between the first and the last sample of the given targets in which
 * at least one call succeeded (empty seconds count); null when there is no sample.
 */
export async function answeredSecondShare(sql: Queryable, runId: string, targetIds: readonly string[]): Promise<number | null> {
  const [row] = await sql<{ answered: number; seconds: number | null }[]>`
    select (count(distinct date_trunc('second', started_at)) filter (where ok))::int as answered,
      (extract(epoch from date_trunc('second', max(started_at)) - date_trunc('second', min(started_at))))::int + 1 as seconds
    from run_samples where run_id = ${runId} and target_id = any(${targetIds as string[]}::uuid[])`;
  if (!row || row.seconds === null) return null;
  return row.answered / row.seconds;
}
