import { emptyTally, judgeCorrectness, type CorrectnessSummary } from '../correctness';
import type { VerdictCheck } from './types';

/** The correctness check as judgeCorrectness gives it (its details: CorrectnessDetails). */
export type CorrectnessCheck = CorrectnessSummary;

/**
 * The candidates' answers against the reference's: when the suite has a reference and
 * thresholds.correctness_enabled. An omitted tally counts as nothing compared.
 */
export const correctness: VerdictCheck<CorrectnessCheck> = (input) =>
  input.reference && input.thresholds.correctness_enabled
    ? { check: judgeCorrectness(input.correctness ?? emptyTally(), input.thresholds.correctness_min_pct) }
    : null;
