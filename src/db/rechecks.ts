import type { RecheckOutcome } from '../domain/correctness';
import type { Queryable } from './client';

/** The stored outcome of one head-moved difference re-sent at a fixed block (migration 012). */
export interface RecheckRow {
  run_id: string;
  target_id: string;
  seq: number;
  method: string;
  /** The block the re-sent call was pinned to (bigint as text). */
  block: string;
  outcome: RecheckOutcome;
  /** Fingerprints of the re-sent answers; null for a side whose call failed. */
  candidate_hash: string | null;
  reference_hash: string | null;
}

/** Keys (`target_id:seq`) of the run's re-checks already stored: a retried finalize reuses them. */
export async function storedRecheckKeys(sql: Queryable, runId: string): Promise<Set<string>> {
  const rows = await sql<{ target_id: string; seq: number }[]>`select target_id, seq from run_rechecks where run_id = ${runId}`;
  return new Set(rows.map((r) => recheckKey(r.target_id, r.seq)));
}

export const recheckKey = (targetId: string, seq: number): string => `${targetId}:${seq}`;

/**
 * Stores re-check outcomes. The first outcome of a pair wins (`on conflict do nothing`): two
 * finalize attempts working at once may both re-send a pair, and the one stored first is the one
 * every later tally reads.
 */
export async function insertRechecks(sql: Queryable, rows: readonly RecheckRow[]): Promise<void> {
  if (rows.length === 0) return;
  await sql`
    insert into run_rechecks ${sql(
      rows.map((r) => ({ ...r })),
      'run_id',
      'target_id',
      'seq',
      'method',
      'block',
      'outcome',
      'candidate_hash',
      'reference_hash',
    )}
    on conflict (run_id, target_id, seq) do nothing`;
}
