import { createHash } from 'node:crypto';
import { canonicalJson, exceedsJsonDepth, jsonShape, MAX_RESULT_DEPTH, MAX_RESULT_VALUES } from './canonical-json';
import type { CheckStatus } from './run-model';

/*
 * Comparison of a candidate's answers with a reference's (DESIGN.md §6, §7) and the
 * family-neutral tally of the correctness check. Pure: no I/O. Two answers are "the same" when
 * their fingerprints are equal: a hash of the canonical JSON (key order ignored) of the result as
 * the chain family normalises it (src/chains/<family>/: the EVM rules are in src/chains/evm/answers.ts).
 */

export interface NormalizeOptions {
  /** Extra ignore paths, added to the family's defaults for the method (not replacing them). */
  ignorePaths?: string[];
}

/** A family's normalisation of a result at most MAX_RESULT_DEPTH deep (ChainAdapter.normalize). */
export type NormalizeResult = (method: string, result: unknown, options: NormalizeOptions) => unknown;

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function removePath(value: unknown, segments: readonly string[]): unknown {
  const [head, ...rest] = segments;
  if (head === undefined) return value;
  if (Array.isArray(value)) {
    if (head === '*') return rest.length === 0 ? [] : value.map((item) => removePath(item, rest));
    if (!/^\d+$/.test(head)) return value;
    const index = Number(head);
    if (index >= value.length) return value;
    if (rest.length === 0) return value.filter((_, i) => i !== index);
    return value.map((item, i) => (i === index ? removePath(item, rest) : item));
  }
  if (isRecord(value)) {
    const out: Record<string, unknown> = {};
    for (const [key, field] of Object.entries(value)) {
      if (head === '*' || head === key) {
        if (rest.length > 0) out[key] = removePath(field, rest);
      } else {
        out[key] = field;
      }
    }
    return out;
  }
  return value;
}

/**
 * Removes every ignore path from a value: dot paths relative to the result, `*` standing for every
 * element of an array (or every key of an object); an empty path removes nothing.
 */
export function removeIgnoredPaths(value: unknown, paths: readonly string[]): unknown {
  let out = value;
  for (const path of paths) {
    if (path === '') continue;
    out = removePath(out, path.split('.'));
  }
  return out;
}

/** A result nested deeper than MAX_RESULT_DEPTH: it cannot be compared (see normalizeResult). */
export class ResultTooDeepError extends Error {
  constructor() {
    super(`result nested deeper than ${MAX_RESULT_DEPTH} levels`);
    this.name = 'ResultTooDeepError';
  }
}


/**
 * Normalises one result with a family's rules so that semantically equal answers are deep-equal
 * (and so have equal canonical JSON). Does not modify its input. The normalisation recurses once
 * per level of nesting, so a result deeper than MAX_RESULT_DEPTH is refused up front with
 * ResultTooDeepError instead of overflowing the stack (fingerprintWith returns null for it).
 */
export function normalizeWith(normalize: NormalizeResult, method: string, result: unknown, options: NormalizeOptions = {}): unknown {
  if (exceedsJsonDepth(result, MAX_RESULT_DEPTH)) throw new ResultTooDeepError();
  return normalize(method, result, options);
}

/**
 * The response hash of a sample: sha256 hex (first 32 characters) of the canonical JSON of the
 * result normalised by the family's rules. Equal fingerprints ⇔ the answers match for the
 * correctness check. Null for a result nested deeper than MAX_RESULT_DEPTH or holding more than
 * MAX_RESULT_VALUES values: too deep or too costly to compare (never a throw, and bounded work on
 * a worker's event loop).
 */
export function fingerprintWith(normalize: NormalizeResult, method: string, result: unknown, options?: NormalizeOptions): string | null {
  if (jsonShape(result, MAX_RESULT_DEPTH, MAX_RESULT_VALUES) !== 'ok') return null;
  return createHash('sha256')
    .update(canonicalJson(normalize(method, result, options ?? {})))
    .digest('hex')
    .slice(0, 32);
}

/**
 * How the re-check of a head-dependent difference ended: `resolved` (the answers matched at the
 * fixed block: the head explained it), `confirmed` (they still differed: a mismatch) or `failed`
 * (a side's re-sent call failed: the pair stays inconclusive). A pair answered at different answer
 * contexts is re-asked until both sides answer at one context: `resolved` / `confirmed` as
 * above, or `not_comparable` when they never did within the bound.
 */
export type RecheckOutcome = 'resolved' | 'confirmed' | 'failed' | 'not_comparable';

/** At most this many head-dependent differences of a run are re-sent; the rest stay inconclusive. */
export const MAX_RECHECKS_PER_RUN = 200;

export interface RecheckCounts {
  resolved: number;
  confirmed: number;
  failed: number;
}

/** Where two answers part (domain/answer-diff.ts): a path and both values, truncated and redacted. */
export interface AnswerDifference {
  /** JSONPath-like: `$` is the result, `.key`, `[index]`. */
  path: string;
  /** The value at the path as canonical JSON, truncated and redacted; `(absent)` when the side has none. */
  candidate: string;
  reference: string;
}

/**
 * How the values of a listed mismatch are known. Samples keep fingerprints, not answers, so
 * finalize asks both sides the listed calls once more: `shown` when both answered with the
 * fingerprints on record (the differences are those of the recorded answers), `changed` when an
 * answer was no longer the recorded one (nothing shown: it would not be what was judged),
 * `unavailable` when a side failed or the re-asking was out of time.
 */
export type DifferencesStatus = 'shown' | 'changed' | 'unavailable';

export interface CorrectnessMismatch {
  method: string;
  params: unknown;
  candidate_hash: string;
  reference_hash: string;
  /** Differing pairs of this method with exactly these two answers (this hash pair); the listed one is the first by seq. */
  occurrences?: number;
  /** At most MAX_DIFFERENCES paths; empty unless differences_status is `shown`. */
  differences?: AnswerDifference[];
  more_differences?: boolean;
  differences_status?: DifferencesStatus;
}

/** One method's share of the correctness check: how many of its compared pairs differed. */
export interface MethodMismatchCount {
  method: string;
  mismatched: number;
  /** matched + mismatched pairs of this method (inconclusive and skipped ones are not compared). */
  compared: number;
}

export type CorrectnessDetails = {
  /** Pairs judged: matched + mismatched. */
  compared: number;
  matched: number;
  mismatched: number;
  /**
   * Head-dependent pairs that differed while a head moved and were not confirmed by their
   * re-check: neither a match nor a mismatch, excluded from the rate.
   */
  inconclusive: number;
  /**
   * Head-moved differences re-sent to both sides at a fixed block (at most recheck_limit):
   * recheck_resolved + recheck_confirmed + recheck_failed. Confirmed ones are counted in
   * `mismatched`; resolved and failed ones in `inconclusive`, with those never re-sent.
   */
  rechecked: number;
  recheck_resolved: number;
  recheck_confirmed: number;
  recheck_failed: number;
  recheck_limit: number;
  /** Pairs where the candidate or the reference failed (no hash): not compared. */
  skipped: number;
  /**
   * Pairs answered at different answer contexts (AnswerComparison.answerContext) that a bounded
   * re-ask never got both sides to answer at one context: neither a match nor a mismatch, excluded from the
   * rate (DESIGN.md §11). Pairs the re-ask resolved are in `matched`, those it confirmed in
   * `mismatched`. Absent from verdicts judged before the field existed; 0 on families whose
   * answers name no context. Since not_comparable_reasons, also the pairs not comparable for history depth
   * (the sum of both reasons).
   */
  not_comparable: number;
  /**
   * `not_comparable` by reason: `context_slot` (answered at different context slots, above) and
   * `history_depth` (one side answered a value, the other an error saying the history asked for is
   * beyond its ledger: ChainAdapter.rpcErrorOutcome `history_depth`). Absent from verdicts judged before it.
   */
  not_comparable_reasons: NotComparableReasons;
  /** Pairs at different context slots re-asked at one slot (context_resolved + context_confirmed + the re-asked ones still not comparable). */
  context_rechecked: number;
  context_resolved: number;
  context_confirmed: number;
  /** matched / compared × 100 truncated to one decimal; null when nothing was compared. */
  match_rate_pct: number | null;
  min_pct: number;
  /** At most MAX_LISTED_MISMATCHES mismatches, spread over the mismatching methods (spreadMismatches). */
  mismatches: CorrectnessMismatch[];
  /** Every method with at least one mismatch, most mismatches first (then by name). */
  mismatches_by_method: MethodMismatchCount[];
};

export interface CorrectnessSummary {
  name: 'correctness';
  status: CheckStatus;
  message: string;
  details: CorrectnessDetails;
}

export const MAX_LISTED_MISMATCHES = 10;

/**
 * What the correctness check judges: counts of pairs by kind, per-method mismatch counts and
 * example mismatches. Built from the counts computed in SQL at finalize (tallyFromCounts) and
 * judged by judgeCorrectness.
 */
export interface CorrectnessTally {
  matched: number;
  mismatched: number;
  inconclusive: number;
  skipped: number;
  /** Example mismatches, already spread over methods; only the first MAX_LISTED_MISMATCHES are kept. */
  mismatches: CorrectnessMismatch[];
  /** Methods with at least one mismatch (any order: judgeCorrectness sorts them). */
  mismatchesByMethod: MethodMismatchCount[];
  /** Re-checks of head-moved differences; `confirmed` ones are already in `mismatched`. */
  recheck: RecheckCounts;
  /** Pairs at different context slots: resolved ones are in `matched`, confirmed ones in `mismatched`. Absent: none. */
  context?: ContextCounts;
  /**
   * Pairs not comparable for history depth: a side's history error (HistoryDepthTotals, out of
   * `skipped`) or a shorter history list (DifferingTotals.history_depth). Absent: none.
   */
  historyDepth?: number;
}

export interface NotComparableReasons {
  context_slot: number;
  history_depth: number;
}

export interface ContextCounts {
  not_comparable: number;
  rechecked: number;
  resolved: number;
  confirmed: number;
}

export const emptyTally = (): CorrectnessTally => ({
  matched: 0,
  mismatched: 0,
  inconclusive: 0,
  skipped: 0,
  mismatches: [],
  mismatchesByMethod: [],
  recheck: { resolved: 0, confirmed: 0, failed: 0 },
});

/**
 * Picks at most `limit` examples spread over methods, round-robin: the first mismatch of every
 * method (methods by name), then the second of every method that has one, and so on, so each
 * method gets about ceil(limit / methods) and a method with fewer leaves its share to the
 * others. `mismatches` are in input order; within a method that order is kept. The SQL at
 * finalize picks the same way (row_number() over (partition by method), ordered by it, then
 * method).
 */
export function spreadMismatches<T extends { method: string }>(mismatches: readonly T[], limit = MAX_LISTED_MISMATCHES): T[] {
  const byMethod = new Map<string, T[]>();
  for (const m of mismatches) {
    const list = byMethod.get(m.method);
    if (list) list.push(m);
    else byMethod.set(m.method, [m]);
  }
  const methods = [...byMethod.keys()].sort();
  const picked: T[] = [];
  for (let round = 0; picked.length < limit; round++) {
    let any = false;
    for (const method of methods) {
      const m = byMethod.get(method)![round];
      if (m === undefined) continue;
      any = true;
      if (picked.length < limit) picked.push(m);
    }
    if (!any) break;
  }
  return picked;
}

/** Per method, the pairs answered at different answer contexts (db/samples-correctness.ts answerContextPairs); counted in MethodPairTotals.skipped. */
export interface AnswerContextTotals {
  method: string;
  /** Re-asked and answered at one slot with equal answers: a match. */
  resolved: number;
  /** Re-asked and answered at one slot with different answers: a mismatch. */
  confirmed: number;
  /** Never answered at one slot (not re-asked, a side failed, or still different slots). */
  not_comparable: number;
  rechecked: number;
}

/**
 * Per method, the pairs where one side answered a value and the other an error meaning the history
 * asked for is beyond its ledger (db/samples-correctness.ts historyDepthPairs); counted in
 * MethodPairTotals.skipped.
 */
export interface HistoryDepthTotals {
  method: string;
  not_comparable: number;
}

/** Per method, the candidate/reference pairs as counted in SQL (db/samples-correctness.ts compareWithReference). */
export interface MethodPairTotals {
  method: string;
  /** Both answered with equal fingerprints. */
  matched: number;
  /** Either side failed, or the reference has no sample at that seq. */
  skipped: number;
  /** Both answered with different fingerprints (classified by DifferingTotals). */
  differing: number;
}

/** Per method, how the differing pairs were classified (db/samples-correctness.ts classifyDifferingSamples). */
export interface DifferingTotals {
  method: string;
  /** Differences no moving head excuses, re-checked ones that still differed included. */
  mismatched: number;
  /** Head-dependent differences answered while a recorded head moved, not confirmed by a re-check: inconclusive. */
  head_moved: number;
  /** Head-moved differences whose re-check (run_rechecks) still differed: counted in `mismatched`. */
  confirmed: number;
  /** Head-moved differences whose re-check matched: counted in `head_moved`. */
  resolved: number;
  /** Head-moved differences whose re-check failed on a side: counted in `head_moved`. */
  recheck_failed: number;
  /** Differences of a history list whose re-ask found one answer a strict prefix of the other: not comparable (history depth). Absent: 0. */
  history_depth?: number;
}

/**
 * The correctness tally of a run from the counts Postgres computed at finalize (a run may hold a
 * million samples per target, so only counts and a few example mismatches come back):
 *  - matched and skipped pairs add up over methods;
 *  - differing pairs are mismatched (no moving head excuses them, or their re-check confirmed
 *    the difference) or inconclusive (a head moved and no re-check confirmed it);
 *  - each method with a mismatch gets {mismatched, compared = its matched + mismatched};
 *  - `examples` are the mismatches to list, already spread over methods (spreadMismatches).
 * This is the production path (services/finalize-run.ts) that judgeCorrectness judges.
 */
export function tallyFromCounts(
  pairs: readonly MethodPairTotals[],
  differing: readonly DifferingTotals[],
  examples: readonly CorrectnessMismatch[] = [],
  contextPairs: readonly AnswerContextTotals[] = [],
  historyPairs: readonly HistoryDepthTotals[] = [],
): CorrectnessTally {
  const tally = emptyTally();
  const contextOf = new Map(contextPairs.map((c) => [c.method, c]));
  for (const c of pairs) {
    const context = contextOf.get(c.method);
    tally.matched += c.matched + (context?.resolved ?? 0);
    // Pairs at different context slots have no matches_reference, so SQL counted them as skipped.
    tally.skipped += c.skipped - (context ? context.resolved + context.confirmed + context.not_comparable : 0);
  }
  if (contextPairs.length > 0) tally.context = { not_comparable: 0, rechecked: 0, resolved: 0, confirmed: 0 };
  for (const c of contextPairs) {
    tally.mismatched += c.confirmed;
    tally.context!.not_comparable += c.not_comparable;
    tally.context!.rechecked += c.rechecked;
    tally.context!.resolved += c.resolved;
    tally.context!.confirmed += c.confirmed;
  }
  const matchedOf = new Map(pairs.map((c) => [c.method, c.matched + (contextOf.get(c.method)?.resolved ?? 0)]));
  const confirmedOf = new Map(contextPairs.map((c) => [c.method, c.confirmed]));
  for (const d of differing) {
    const confirmedAtSlot = confirmedOf.get(d.method) ?? 0;
    confirmedOf.delete(d.method);
    tally.mismatched += d.mismatched;
    tally.inconclusive += d.head_moved;
    tally.recheck.confirmed += d.confirmed;
    tally.recheck.resolved += d.resolved;
    tally.recheck.failed += d.recheck_failed;
    const mismatched = d.mismatched + confirmedAtSlot;
    if (mismatched > 0) tally.mismatchesByMethod.push({ method: d.method, mismatched, compared: (matchedOf.get(d.method) ?? 0) + mismatched });
  }
  for (const [method, confirmed] of confirmedOf) {
    if (confirmed > 0) tally.mismatchesByMethod.push({ method, mismatched: confirmed, compared: (matchedOf.get(method) ?? 0) + confirmed });
  }
  if (historyPairs.length > 0) {
    // One side failed, so SQL counted them as skipped: history depth, not a failure to compare.
    const failedSide = historyPairs.reduce((sum, h) => sum + h.not_comparable, 0);
    tally.skipped -= failedSide;
    tally.historyDepth = failedSide;
  }
  // Shorter history lists: differing pairs, in neither mismatched nor inconclusive.
  const shorterLists = differing.reduce((sum, d) => sum + (d.history_depth ?? 0), 0);
  if (shorterLists > 0) tally.historyDepth = (tally.historyDepth ?? 0) + shorterLists;
  tally.mismatches = examples.slice(0, MAX_LISTED_MISMATCHES);
  return tally;
}

/** Most mismatches first, then by method name. */
function sortedByMethod(counts: readonly MethodMismatchCount[]): MethodMismatchCount[] {
  return counts
    .filter((c) => c.mismatched > 0)
    .map((c) => ({ method: c.method, mismatched: c.mismatched, compared: c.compared }))
    .sort((a, b) => b.mismatched - a.mismatched || (a.method < b.method ? -1 : a.method > b.method ? 1 : 0));
}

/**
 * The `correctness` check of the verdict (DESIGN.md §6) from a tally. Rules:
 *  - compared = matched + mismatched (inconclusive and skipped pairs are not compared);
 *  - pass when matched / compared × 100 ≥ minPct, judged on the exact ratio (being exactly at
 *    min_pct passes). match_rate_pct is truncated, not rounded, to one decimal so it never
 *    overstates: 100.0 means every compared pair matched;
 *  - nothing compared (no pairs, or all skipped / inconclusive) → fail with match_rate_pct
 *    null: a correctness check that judged nothing must not pass silently.
 */
export function judgeCorrectness(tally: CorrectnessTally, minPct: number): CorrectnessSummary {
  const { matched, mismatched, inconclusive, skipped } = tally;
  const mismatches = tally.mismatches.slice(0, MAX_LISTED_MISMATCHES);
  const byMethod = sortedByMethod(tally.mismatchesByMethod);
  const compared = matched + mismatched;
  const { resolved, confirmed, failed } = tally.recheck;
  const rechecked = resolved + confirmed + failed;
  const context = tally.context ?? { not_comparable: 0, rechecked: 0, resolved: 0, confirmed: 0 };
  const historyDepth = tally.historyDepth ?? 0;
  const extras = [
    inconclusive > 0 ? `${inconclusive} inconclusive (head moved)` : null,
    context.not_comparable > 0 ? `${context.not_comparable} not comparable (answered at different context slots)` : null,
    historyDepth > 0 ? `${historyDepth} not comparable (history depth: one side's ledger does not reach the data asked for)` : null,
    skipped > 0 ? `${skipped} skipped (a side failed)` : null,
  ].filter((part): part is string => part !== null);
  const recheckNote =
    rechecked > 0
      ? `; ${rechecked} head-moved ${rechecked === 1 ? 'difference' : 'differences'} re-checked at a fixed block: ${resolved} resolved, ${confirmed} confirmed${failed > 0 ? `, ${failed} failed` : ''}`
      : '';
  const contextNote =
    context.rechecked > 0
      ? `; ${context.rechecked} ${context.rechecked === 1 ? 'pair' : 'pairs'} at different context slots re-asked at one slot: ${context.resolved} resolved, ${context.confirmed} confirmed`
      : '';
  const suffix = `${extras.length > 0 ? `; ${extras.join(', ')}` : ''}${recheckNote}${contextNote}`;
  const recheckDetails = {
    rechecked,
    recheck_resolved: resolved,
    recheck_confirmed: confirmed,
    recheck_failed: failed,
    recheck_limit: MAX_RECHECKS_PER_RUN,
    not_comparable: context.not_comparable + historyDepth,
    not_comparable_reasons: { context_slot: context.not_comparable, history_depth: historyDepth },
    context_rechecked: context.rechecked,
    context_resolved: context.resolved,
    context_confirmed: context.confirmed,
  };

  if (compared === 0) {
    return {
      name: 'correctness',
      status: 'fail',
      message: `no response pairs could be compared with the reference, nothing to judge${suffix}`,
      details: { compared, matched, mismatched, inconclusive, skipped, ...recheckDetails, match_rate_pct: null, min_pct: minPct, mismatches, mismatches_by_method: byMethod },
    };
  }
  const rate = (matched * 100) / compared;
  const pass = rate >= minPct - 1e-9;
  const matchRatePct = Math.floor((matched * 1000) / compared) / 10;
  return {
    name: 'correctness',
    status: pass ? 'pass' : 'fail',
    message: `${matched} of ${compared} compared responses matched the reference (${matchRatePct}%, ${pass ? 'min' : 'below min'} ${minPct}%)${suffix}`,
    details: { compared, matched, mismatched, inconclusive, skipped, ...recheckDetails, match_rate_pct: matchRatePct, min_pct: minPct, mismatches, mismatches_by_method: byMethod },
  };
}
