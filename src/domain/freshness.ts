/*
 * Freshness from a run's stored head arrivals: for every head the reference announced, when each
 * candidate announced it. Pure: the arrivals and the observer's segments come from the database
 * (db/head-arrivals.ts), the verdict check (verdict/freshness-vs-reference.ts) judges the result.
 *
 * Times are ms from the watch's start. Within one segment (one activity attempt, one process) they
 * are on one monotonic clock, so a lag is only ever taken between two arrivals of the same segment.
 * Between segments the observer itself was gone (a worker lost): what happened then is the
 * observer's gap, and a reference head whose grace window the observer did not see whole is not
 * judged, never counted as missed.
 */

export interface HeadArrival {
  targetId: string;
  number: number;
  /** Null when the head read names no hash (EVM's eth_blockNumber, when polling). */
  hash: string | null;
  arrivalMs: number;
  /** The observer segment (activity attempt) that saw it. */
  segment: number;
}

/** One observer segment's view of one endpoint: when it watched, and the endpoint's connection counts then. */
export interface WatchSegment {
  targetId: string;
  segment: number;
  startedMs: number;
  /** The last time the observer was known alive (its last flush): the segment ends here. */
  lastSeenMs: number;
  /**
   * When the endpoint's watch first came up in this segment (subscribed, or its first poll
   * answered); null: it never did. A subscription only brings heads announced after it, so a
   * reference head before then says nothing of the endpoint: not judged. Never up is the endpoint's
   * fault: its heads are judged (and missed).
   */
  liveFromMs: number | null;
  reconnects: number;
  disconnects: number;
  /** Announcements of a head the endpoint had already announced (same height and hash). */
  duplicates: number;
  /** Heads the observer was too slow to take (its bounded queue): the observer's, shown apart. */
  dropped: number;
  /** Distinct heads not stored: the endpoint announced more than maxStoredHeads allows (flooding). */
  notStored: number;
  /** Heads announced with a number outside 0 … 2^63 − 1: not stored, the endpoint's finding. */
  outOfRange: number;
}

export interface FreshnessInput {
  referenceTargetId: string;
  candidateTargetIds: readonly string[];
  arrivals: readonly HeadArrival[];
  segments: readonly WatchSegment[];
  via: 'subscribe' | 'poll';
  graceMs: number;
  lateMs: number;
}

export interface EndpointHeads {
  targetId: string;
  /** Distinct heads (height and hash) the endpoint announced. */
  announced: number;
  /** Heights announced with more than one hash: reorgs the endpoint went through. */
  reorgs: number;
  duplicates: number;
  reconnects: number;
  disconnects: number;
  dropped: number;
  /** The endpoint announced more distinct heads than its family's block rate allows (notStored > 0). */
  flooding: boolean;
  notStored: number;
  outOfRange: number;
  /** Longest time without a new (higher) head while the observer watched, ms. */
  longestStallMs: number;
}

export interface CandidateFreshness extends EndpointHeads {
  /** Reference heads whose grace window the observer saw whole. */
  judged: number;
  /** Of those, not announced by the candidate within grace. */
  missed: number;
  /** Announced more than late_ms after the reference (within grace). */
  late: number;
  /**
   * Reference heads not judged: their grace window fell in an observer gap or after the watch, or
   * they came before this endpoint's watch was up.
   */
  unjudged: number;
  /** Arrival lags (candidate − reference), µs, sorted: heads announced within grace, both seen in one segment. */
  lagsUs: Float64Array;
}

export interface Freshness {
  reference: EndpointHeads & { heads: number };
  candidates: CandidateFreshness[];
  /** When the observer was gone between two segments, ms from the watch's start. */
  observerGaps: { fromMs: number; toMs: number }[];
}

/** Head numbers are stored as bigint: a number above this is the endpoint's finding, never written. */
export const MAX_HEAD_NUMBER = 2n ** 63n - 1n;

/** Room above the family's fastest block rate: reorgs announce a height twice, a resumed watch sees some heads again. */
export const HEAD_RATE_MARGIN = 2;
/** Heads any watch may store per endpoint whatever its length (the backlog a subscription may start with). */
export const HEAD_SLACK = 1_000;

/**
 * The most distinct heads a watch stores per endpoint: what the family's fastest honest block rate
 * announces over the watch, times HEAD_RATE_MARGIN, plus HEAD_SLACK. An endpoint announcing more is
 * flooding: its excess is counted (notStored), not stored, so a run's head rows — and what finalize
 * reads of them — stay bounded by targets × this.
 */
export function maxStoredHeads(durationS: number, fastestHeadIntervalMs: number): number {
  return Math.ceil(((durationS * 1000) / fastestHeadIntervalMs) * HEAD_RATE_MARGIN) + HEAD_SLACK;
}

const headKey = (a: { number: number; hash: string | null }) => `${a.number}:${a.hash ?? ''}`;

function byTarget<T extends { targetId: string }>(items: readonly T[], targetId: string): T[] {
  return items.filter((i) => i.targetId === targetId);
}

/** Per-endpoint counts that need no reference. */
function endpointHeads(targetId: string, arrivals: readonly HeadArrival[], segments: readonly WatchSegment[]): EndpointHeads {
  const hashesAt = new Map<number, Set<string>>();
  for (const a of arrivals) {
    if (a.hash === null) continue;
    const set = hashesAt.get(a.number) ?? new Set<string>();
    set.add(a.hash);
    hashesAt.set(a.number, set);
  }
  let longestStallMs = 0;
  for (const segment of segments) {
    const times = arrivals.filter((a) => a.segment === segment.segment).sort((x, y) => x.arrivalMs - y.arrivalMs);
    let last = segment.startedMs;
    let highest = -Infinity;
    for (const a of times) {
      if (a.number <= highest) continue;
      highest = a.number;
      longestStallMs = Math.max(longestStallMs, a.arrivalMs - last);
      last = a.arrivalMs;
    }
    longestStallMs = Math.max(longestStallMs, segment.lastSeenMs - last);
  }
  const sum = (field: 'reconnects' | 'disconnects' | 'duplicates' | 'dropped' | 'notStored' | 'outOfRange') => segments.reduce((n, s) => n + s[field], 0);
  return {
    targetId,
    announced: new Set(arrivals.map(headKey)).size,
    reorgs: [...hashesAt.values()].filter((s) => s.size > 1).length,
    duplicates: sum('duplicates'),
    reconnects: sum('reconnects'),
    disconnects: sum('disconnects'),
    dropped: sum('dropped'),
    flooding: sum('notStored') > 0,
    notStored: sum('notStored'),
    outOfRange: sum('outOfRange'),
    longestStallMs: Math.round(longestStallMs),
  };
}

/**
 * Whether the candidate's arrival announces the reference's head. By subscription every head is
 * announced, so only that height (and hash, when both name one) counts; a poll sees the newest
 * head at each instant, so a higher one announces the heights below it too.
 */
function announces(via: FreshnessInput['via'], candidate: HeadArrival, reference: HeadArrival): boolean {
  if (via === 'poll') return candidate.number >= reference.number;
  if (candidate.number !== reference.number) return false;
  return candidate.hash === null || reference.hash === null || candidate.hash === reference.hash;
}

export function measureFreshness(input: FreshnessInput): Freshness {
  const { referenceTargetId, via, graceMs, lateMs } = input;
  const referenceSegments = byTarget(input.segments, referenceTargetId).sort((a, b) => a.segment - b.segment);
  const segmentEnd = new Map(referenceSegments.map((s) => [s.segment, s.lastSeenMs]));
  const referenceArrivals = byTarget(input.arrivals, referenceTargetId).sort((a, b) => a.arrivalMs - b.arrivalMs);
  // The first announcement of each reference head is the yardstick.
  const seen = new Set<string>();
  const referenceHeads = referenceArrivals.filter((a) => {
    const key = headKey(a);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });

  const candidates = input.candidateTargetIds.map((targetId): CandidateFreshness => {
    const arrivals = byTarget(input.arrivals, targetId).sort((a, b) => a.arrivalMs - b.arrivalMs);
    // By subscription only the same height announces a head: look it up, not scan (a flooding candidate stores thousands).
    const atHeight = new Map<number, HeadArrival[]>();
    for (const a of arrivals) {
      const same = atHeight.get(a.number);
      if (same) same.push(a);
      else atHeight.set(a.number, [a]);
    }
    const liveFrom = new Map(byTarget(input.segments, targetId).map((s) => [s.segment, s.liveFromMs]));
    const lags: number[] = [];
    let judged = 0;
    let missed = 0;
    let late = 0;
    let unjudged = 0;
    for (const head of referenceHeads) {
      // Judged only when the observer saw the whole grace window in the head's own segment.
      if ((segmentEnd.get(head.segment) ?? -Infinity) < head.arrivalMs + graceMs) {
        unjudged++;
        continue;
      }
      const candidateUpAt = liveFrom.get(head.segment);
      if (candidateUpAt !== undefined && candidateUpAt !== null && head.arrivalMs < candidateUpAt) {
        unjudged++;
        continue;
      }
      judged++;
      const match = (via === 'poll' ? arrivals : (atHeight.get(head.number) ?? [])).find((a) => announces(via, a, head));
      if (match === undefined || (match.segment === head.segment && match.arrivalMs - head.arrivalMs > graceMs) || (match.segment > head.segment)) {
        missed++;
        continue;
      }
      // Announced in an earlier segment (before the observer's gap): announced, but on another clock.
      if (match.segment !== head.segment) continue;
      const lagMs = match.arrivalMs - head.arrivalMs;
      if (lagMs > lateMs) late++;
      lags.push(Math.round(lagMs * 1000));
    }
    return {
      ...endpointHeads(targetId, arrivals, byTarget(input.segments, targetId)),
      judged,
      missed,
      late,
      unjudged,
      lagsUs: Float64Array.from(lags).sort(),
    };
  });

  const observerGaps = referenceSegments.slice(1).map((s, i) => ({ fromMs: referenceSegments[i]!.lastSeenMs, toMs: s.startedMs }));
  return {
    reference: { ...endpointHeads(referenceTargetId, referenceArrivals, referenceSegments), heads: referenceHeads.length },
    candidates,
    observerGaps,
  };
}
