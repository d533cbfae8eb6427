import { describe, expect, it } from 'vitest';
import { maxStoredHeads, measureFreshness, type HeadArrival, type WatchSegment } from '../../src/domain/freshness';

const REF = 'ref';
const CAND = 'cand';

const segment = (targetId: string, over: Partial<WatchSegment> = {}): WatchSegment => ({
  targetId,
  segment: 0,
  startedMs: 0,
  lastSeenMs: 10_000,
  liveFromMs: 0,
  reconnects: 0,
  disconnects: 0,
  duplicates: 0,
  dropped: 0,
  notStored: 0,
  outOfRange: 0,
  ...over,
});

/** Heads 1..n every second from 1 s on, on the reference, and the candidate `lagMs` later. */
function heads(targetId: string, numbers: number[], lagMs = 0, seg = 0): HeadArrival[] {
  return numbers.map((n) => ({ targetId, number: n, hash: `0x${n}`, arrivalMs: n * 1000 + lagMs, segment: seg }));
}

const base = { referenceTargetId: REF, candidateTargetIds: [CAND], via: 'subscribe' as const, graceMs: 2_000, lateMs: 500 };
const range = (a: number, b: number) => Array.from({ length: b - a + 1 }, (_, i) => a + i);

describe('measureFreshness', () => {
  it.each([
    {
      name: 'a candidate 300 ms behind: every judged head lags 300 ms, nothing missed',
      arrivals: [...heads(REF, range(1, 9)), ...heads(CAND, range(1, 9), 300)],
      expected: { judged: 8, missed: 0, late: 0, unjudged: 1, lags: [300_000] },
    },
    {
      name: 'a head the candidate never announced is missed',
      arrivals: [...heads(REF, range(1, 8)), ...heads(CAND, [1, 2, 4, 5, 7, 8], 100)],
      expected: { judged: 8, missed: 2, late: 0, unjudged: 0, lags: [100_000] },
    },
    {
      name: 'announced after the grace window: missed, not a lag',
      arrivals: [...heads(REF, [1]), ...heads(CAND, [1], 2_500)],
      expected: { judged: 1, missed: 1, late: 0, unjudged: 0, lags: [] },
    },
    {
      name: 'announced after late_ms but within grace: late, and a lag',
      arrivals: [...heads(REF, [1, 2]), ...heads(CAND, [1], 800), ...heads(CAND, [2], 100)],
      expected: { judged: 2, missed: 0, late: 1, unjudged: 0, lags: [100_000, 800_000] },
    },
    {
      name: 'a candidate ahead of the reference has a negative lag',
      arrivals: [...heads(REF, [1, 2]), ...heads(CAND, [1, 2], -150)],
      expected: { judged: 2, missed: 0, late: 0, unjudged: 0, lags: [-150_000] },
    },
    {
      name: 'the same height with another hash does not announce the reference head',
      arrivals: [...heads(REF, [1]), { targetId: CAND, number: 1, hash: '0xother', arrivalMs: 1_100, segment: 0 }],
      expected: { judged: 1, missed: 1, late: 0, unjudged: 0, lags: [] },
    },
    {
      name: 'reference heads before the candidate’s subscription was up are not judged (a subscription brings only later heads)',
      arrivals: [...heads(REF, range(1, 5)), ...heads(CAND, range(3, 5), 100)],
      candidateLiveFromMs: 2_500,
      expected: { judged: 3, missed: 0, late: 0, unjudged: 2, lags: [100_000] },
    },
    {
      name: 'a candidate whose watch never came up misses every head',
      arrivals: heads(REF, range(1, 3)),
      candidateLiveFromMs: null,
      expected: { judged: 3, missed: 3, late: 0, unjudged: 0, lags: [] },
    },
  ])('$name', ({ arrivals, expected, candidateLiveFromMs }) => {
    const candidate = segment(CAND, candidateLiveFromMs === undefined ? {} : { liveFromMs: candidateLiveFromMs });
    const result = measureFreshness({ ...base, arrivals, segments: [segment(REF), candidate] });
    const c = result.candidates[0]!;
    expect({ judged: c.judged, missed: c.missed, late: c.late, unjudged: c.unjudged }).toEqual({
      judged: expected.judged,
      missed: expected.missed,
      late: expected.late,
      unjudged: expected.unjudged,
    });
    expect([...new Set(c.lagsUs)]).toEqual(expected.lags);
  });

  it('a poll sees a higher head as announcing the heights below it', () => {
    const arrivals = [
      ...heads(REF, [1, 2, 3]).map((a) => ({ ...a, hash: null })),
      { targetId: CAND, number: 1, hash: null, arrivalMs: 1_250, segment: 0 },
      { targetId: CAND, number: 3, hash: null, arrivalMs: 3_250, segment: 0 },
    ];
    const c = measureFreshness({ ...base, via: 'poll', arrivals, segments: [segment(REF), segment(CAND)] }).candidates[0]!;
    expect(c.missed).toBe(0);
    expect([...c.lagsUs]).toEqual([250_000, 250_000, 1_250_000]);
  });

  it('counts reorgs (a height with two hashes), duplicates and reconnects of the endpoint', () => {
    const arrivals = [...heads(REF, [1, 2]), ...heads(CAND, [1, 2], 10), { targetId: CAND, number: 2, hash: '0xreorg', arrivalMs: 2_500, segment: 0 }];
    const result = measureFreshness({
      ...base,
      arrivals,
      segments: [segment(REF), segment(CAND, { duplicates: 3, reconnects: 2, disconnects: 2 })],
    });
    expect(result.candidates[0]).toMatchObject({ announced: 3, reorgs: 1, duplicates: 3, reconnects: 2, disconnects: 2 });
    expect(result.reference).toMatchObject({ heads: 2, reorgs: 0 });
  });

  it('the longest stall runs from the last new head to the end of the watch, or between heads', () => {
    const arrivals = [...heads(REF, range(1, 9)), ...heads(CAND, [1, 2, 7, 8, 9], 0)];
    const result = measureFreshness({ ...base, arrivals, segments: [segment(REF), segment(CAND)] });
    expect(result.candidates[0]!.longestStallMs).toBe(5_000);
    expect(result.reference.longestStallMs).toBe(1_000);
  });

  it('an observer gap is the observer\'s: heads whose grace window it cut are not judged, never missed', () => {
    // Segment 0 watched until 4.5 s, the worker was lost, segment 1 watched from 7 s on.
    const segments = [
      segment(REF, { lastSeenMs: 4_500 }),
      segment(CAND, { lastSeenMs: 4_500 }),
      segment(REF, { segment: 1, startedMs: 7_000, lastSeenMs: 12_000 }),
      segment(CAND, { segment: 1, startedMs: 7_000, lastSeenMs: 12_000 }),
    ];
    const arrivals = [...heads(REF, [1, 2, 3, 4]), ...heads(CAND, [1, 2, 3, 4], 200), ...heads(REF, [7, 8, 9, 10], 0, 1), ...heads(CAND, [7, 8, 9, 10], 200, 1)];
    const result = measureFreshness({ ...base, arrivals, segments });
    const c = result.candidates[0]!;
    // 3 and 4 (their grace ends after 4.5 s) are not judged; 5 and 6 fell in the gap, seen by nobody.
    expect({ judged: c.judged, missed: c.missed, unjudged: c.unjudged }).toEqual({ judged: 6, missed: 0, unjudged: 2 });
    expect(result.observerGaps).toEqual([{ fromMs: 4_500, toMs: 7_000 }]);
    // The stall is measured inside segments only: the gap is nobody's stall.
    expect(c.longestStallMs).toBeLessThan(2_500);
  });

  it('a head announced by the candidate before the gap and by the reference after it is announced, with no lag across clocks', () => {
    const segments = [segment(REF, { lastSeenMs: 2_000 }), segment(REF, { segment: 1, startedMs: 3_000, lastSeenMs: 10_000 }), segment(CAND, { lastSeenMs: 2_000 }), segment(CAND, { segment: 1, startedMs: 3_000, lastSeenMs: 10_000 })];
    const arrivals = [{ targetId: CAND, number: 5, hash: '0x5', arrivalMs: 1_900, segment: 0 }, { targetId: REF, number: 5, hash: '0x5', arrivalMs: 3_100, segment: 1 }];
    const c = measureFreshness({ ...base, arrivals, segments }).candidates[0]!;
    expect({ judged: c.judged, missed: c.missed, lags: c.lagsUs.length }).toEqual({ judged: 1, missed: 0, lags: 0 });
  });

  it('sums what was not stored and the out-of-range heads per endpoint, and names a flood', () => {
    const segments = [segment(REF), segment(CAND, { notStored: 7, outOfRange: 1 }), segment(CAND, { segment: 1, notStored: 3 })];
    const c = measureFreshness({ ...base, arrivals: [...heads(REF, range(1, 5)), ...heads(CAND, range(1, 5), 100)], segments }).candidates[0]!;
    expect({ flooding: c.flooding, notStored: c.notStored, outOfRange: c.outOfRange }).toEqual({ flooding: true, notStored: 10, outOfRange: 1 });
  });
});

describe('maxStoredHeads', () => {
  it.each([
    { durationS: 60, intervalMs: 50, max: 3_400 },
    { durationS: 10, intervalMs: 50, max: 1_400 },
    { durationS: 3_600, intervalMs: 100, max: 73_000 },
    { durationS: 1, intervalMs: 30_000, max: 1_001 },
  ])('$durationS s at $intervalMs ms: $max', ({ durationS, intervalMs, max }) => {
    expect(maxStoredHeads(durationS, intervalMs)).toBe(max);
  });
});
