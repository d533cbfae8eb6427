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
