import type postgres from 'postgres';
import type { RunRow } from '../../db/runs';
import type { RunTargetRow } from '../../db/run-targets';
import type { VerdictInput } from '../../domain/verdict';
import type { RunSettings } from '../../domain/run-plan';

/*
 * A check's input loader (STYLE rule 18): what finalize reads from the database for that one
 * check. The check's judgement and presentation are its domain module (src/domain/verdict/, pure);
 * its loader does I/O, so it sits here, registered by the check's name in index.ts.
 */

/** What a loader reads with: the run, its settings and its targets, inside finalize's transaction. */
export interface CheckInputContext {
  sql: postgres.TransactionSql;
  run: RunRow;
  settings: RunSettings;
  targets: readonly RunTargetRow[];
  candidates: readonly RunTargetRow[];
  reference: RunTargetRow | undefined;
}

/** The part of the verdict input a loader fills in; its reference fields join the reference finalize measured. */
export type CheckInput = Partial<Omit<VerdictInput, 'reference'>> & { reference?: Partial<NonNullable<VerdictInput['reference']>> };

/**
 * Reads what one check judges, for a successful run only (a failed or cancelled run gets an error
 * verdict and no checks). Nothing when the check does not apply to the run (no reference, no sweep …).
 */
export type CheckInputLoader = (context: CheckInputContext) => Promise<CheckInput>;
