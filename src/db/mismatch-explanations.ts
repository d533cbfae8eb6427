import type { CorrectnessMismatch } from '../domain/correctness';
import type { Queryable } from './client';

/** A stored explanation of one listed mismatch (migration 019). */
export interface ExplanationRow {
  run_id: string;
  target_id: string;
  seq: number;
  candidate_hash: string;
  reference_hash: string;
  differences_status: 'shown' | 'changed';
  differences: NonNullable<CorrectnessMismatch['differences']>;
  more_differences: boolean;
}

export const explanationKey = (targetId: string, seq: number): string => `${targetId}:${seq}`;

/** The run's stored explanations by `target_id:seq`. */
export async function storedExplanations(sql: Queryable, runId: string): Promise<Map<string, ExplanationRow>> {
  const rows = await sql<ExplanationRow[]>`
    select run_id, target_id, seq, candidate_hash, reference_hash, differences_status, differences, more_differences
    from run_mismatch_explanations where run_id = ${runId}`;
  return new Map(rows.map((r) => [explanationKey(r.target_id, r.seq), r]));
}

/** Stores explanations; the first one of a mismatch wins, as with re-checks (two attempts at once). */
export async function insertExplanations(sql: Queryable, rows: readonly ExplanationRow[]): Promise<void> {
  if (rows.length === 0) return;
  await sql`
    insert into run_mismatch_explanations ${sql(
      rows.map((r) => ({ ...r, differences: sql.json(r.differences as never) })),
      'run_id',
      'target_id',
      'seq',
      'candidate_hash',
      'reference_hash',
      'differences_status',
      'differences',
      'more_differences',
    )}
    on conflict (run_id, target_id, seq) do nothing`;
}

/** Both recorded values of a listed mismatch of scalar answers (run_samples.scalar_answer, migration 033). */
export interface RecordedScalars {
  candidate: string;
  reference: string;
}

/**
 * The recorded scalar values of the listed mismatches' pairs, by `target_id:seq`: only pairs whose
 * two samples hold the listed fingerprints (a re-checked pair lists the re-check's answers, which
 * were not stored) and both answered a scalar. At most a few pairs: finalize lists a few mismatches.
 */
export async function recordedScalars(
  sql: Queryable,
  runId: string,
  referenceTargetId: string,
  pairs: readonly { targetId: string; seq: number; candidateHash: string; referenceHash: string }[],
): Promise<Map<string, RecordedScalars>> {
  if (pairs.length === 0) return new Map();
  const rows = await sql<{ target_id: string; seq: number; candidate: string; reference: string }[]>`
    select c.target_id, c.seq, c.scalar_answer as candidate, r.scalar_answer as reference
    from jsonb_to_recordset(${sql.json(pairs.map((p) => ({ target_id: p.targetId, seq: p.seq, candidate_hash: p.candidateHash, reference_hash: p.referenceHash })) as never)})
      as p(target_id uuid, seq integer, candidate_hash text, reference_hash text)
    join run_samples c on c.run_id = ${runId} and c.target_id = p.target_id and c.seq = p.seq and c.response_hash = p.candidate_hash
    join run_samples r on r.run_id = ${runId} and r.target_id = ${referenceTargetId} and r.seq = p.seq and r.region = c.region
      and r.response_hash = p.reference_hash
    where c.scalar_answer is not null and r.scalar_answer is not null`;
  return new Map(rows.map((r) => [explanationKey(r.target_id, r.seq), { candidate: r.candidate, reference: r.reference }]));
}
