import {
  judgeCorrectness,
  MAX_LISTED_MISMATCHES,
  spreadMismatches,
  tallyFromCounts,
  type CorrectnessMismatch,
  type CorrectnessSummary,
  type CorrectnessTally,
  type DifferingTotals,
  type MethodPairTotals,
  type RecheckOutcome,
} from '../../src/domain/correctness';

/** One candidate/reference answer pair as a test builds it (production keeps them as sample rows). */
export interface Pair {
  method: string;
  params: unknown;
  /** Fingerprint of the candidate's answer; null when its call failed. */
  candidateHash: string | null;
  referenceHash: string | null;
  /** A head-dependent call answered while a recorded head moved. */
  headDependent: boolean;
  /** Its re-check at a fixed block, when it was re-sent (headDependent pairs only). */
  recheck?: { outcome: RecheckOutcome; params: unknown; candidateHash: string | null; referenceHash: string | null };
}

/**
 * Counts pairs per method the way finalize's SQL does (compareWithReference,
 * classifyDifferingSamples), then hands the counts to the production tally (tallyFromCounts):
 * tests judge with the code that runs, on pairs small enough to write by hand.
 */
export function tallyOfPairs(pairs: readonly Pair[]): CorrectnessTally {
  const totals = new Map<string, MethodPairTotals>();
  const differing = new Map<string, DifferingTotals>();
  const examples: CorrectnessMismatch[] = [];
  for (const pair of pairs) {
    let t = totals.get(pair.method);
    if (!t) totals.set(pair.method, (t = { method: pair.method, matched: 0, skipped: 0, differing: 0 }));
    if (pair.candidateHash === null || pair.referenceHash === null) {
      t.skipped++;
      continue;
    }
    if (pair.candidateHash === pair.referenceHash) {
      t.matched++;
      continue;
    }
    t.differing++;
    let d = differing.get(pair.method);
    if (!d) differing.set(pair.method, (d = { method: pair.method, mismatched: 0, head_moved: 0, confirmed: 0, resolved: 0, recheck_failed: 0 }));
    const recheck = pair.headDependent ? pair.recheck : undefined;
    if (pair.headDependent && recheck?.outcome !== 'confirmed') {
      d.head_moved++;
      if (recheck?.outcome === 'resolved') d.resolved++;
      if (recheck?.outcome === 'failed') d.recheck_failed++;
      continue;
    }
    d.mismatched++;
    if (recheck) d.confirmed++;
    // As the SQL: at most MAX_LISTED_MISMATCHES examples per method, then spread over methods.
    if (d.mismatched <= MAX_LISTED_MISMATCHES) {
      examples.push({
        method: pair.method,
        params: recheck ? recheck.params : pair.params,
        candidate_hash: recheck?.candidateHash ?? pair.candidateHash,
        reference_hash: recheck?.referenceHash ?? pair.referenceHash,
      });
    }
  }
  return tallyFromCounts([...totals.values()], [...differing.values()], spreadMismatches(examples));
}

/** The `correctness` check of these pairs: judgeCorrectness(tallyOfPairs(pairs), minPct). */
export function judgePairs(pairs: readonly Pair[], minPct: number): CorrectnessSummary {
  return judgeCorrectness(tallyOfPairs(pairs), minPct);
}
