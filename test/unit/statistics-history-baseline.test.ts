import { describe, expect, it } from 'vitest';
import {
  chooseBaselineModel,
  historyBand,
  historyRunsToRead,
  judgeAgainstHistory,
  judgePersisting,
  PERSISTING_LIMIT_SD,
  PERSISTING_LOOKBACK,
  PERSISTING_SINGLE_ALLOWANCE_SD,
  type BaselineModel,
  type HistoryDecision,
  type PersistingDecision,
} from '../../src/domain/statistics/history-baseline';
import { studentTQuantile } from '../../src/domain/statistics/distributions';

describe('chooseBaselineModel (window 10, min_runs 5)', () => {
  it.each<[number, boolean, number | undefined, BaselineModel]>([
    [0, false, undefined, 'none'],
    [0, true, undefined, 'previous_run'],
    [1, true, undefined, 'previous_run'],
    [4, true, undefined, 'previous_run'],
    [4, false, undefined, 'none'],
    [5, true, undefined, 'history'],
    [5, false, undefined, 'history'],
    [10, true, undefined, 'history'],
    [3, true, 3, 'history'],
    [1, true, 1, 'previous_run'], // a band needs two runs, whatever min_runs says
    [2, true, 1, 'history'],
  ])('%s passing runs, previous run %s, min_runs %s → %s', (historyRuns, hasPreviousRun, minRuns, model) => {
    expect(chooseBaselineModel({ historyRuns, hasPreviousRun, minRuns })).toBe(model);
  });
});

// Ten per-run p95s (µs) around 80 ms, as ten unchanged runs with ~10 % drift gave in bench:verdict.
const TEN = [80_000, 74_000, 88_000, 79_000, 83_000, 71_000, 90_000, 77_000, 85_000, 81_000];

describe('historyBand', () => {
  it('ten runs: the median, and a one-sided 99 % t prediction limit on the log scale', () => {
    const band = historyBand(TEN, 0.99);
    const logs = TEN.map(Math.log);
    const mean = logs.reduce((a, b) => a + b) / 10;
    const sd = Math.sqrt(logs.reduce((a, b) => a + (b - mean) ** 2, 0) / 9);
    expect(band.runs).toBe(10);
    expect(band.median_us).toBe(80_500);
    expect(band.log_sd).toBeCloseTo(sd, 12);
    expect(band.upper_us).toBeCloseTo(Math.exp(mean + 2.821438 * sd * Math.sqrt(1.1)), 0);
    expect(band.lower_us).toBeCloseTo(Math.exp(mean - 2.821438 * sd * Math.sqrt(1.1)), 0);
  });

  it('by default one-sided 99.5 %: the band leaves half the 1 % false-fail budget to the sequential rule', () => {
    const logs = TEN.map(Math.log);
    const mean = logs.reduce((a, b) => a + b) / 10;
    const sd = Math.sqrt(logs.reduce((a, b) => a + (b - mean) ** 2, 0) / 9);
    const band = historyBand(TEN);
    expect(band.upper_boundary).toBe(0.995);
    expect(band.upper_us).toBeCloseTo(Math.exp(mean + 3.249836 * sd * Math.sqrt(1.1)), 0); // t₉ at 99.5 %
  });

  it('five runs: a wider t (4 degrees of freedom)', () => {
    const five = historyBand(TEN.slice(0, 5));
    const ten = historyBand(TEN);
    expect(five.upper_us / five.geometric_mean_us).toBeGreaterThan(ten.upper_us / ten.geometric_mean_us);
  });

  it('constant history: zero spread, the band is the value itself', () => {
    const band = historyBand(Array(10).fill(50_000));
    expect([band.log_sd, band.upper_us, band.lower_us, band.median_us]).toEqual([0, 50_000, 50_000, 50_000]);
  });

  it.each([[[]], [[80_000]]])('refuses a history of %j runs', (history) => {
    expect(() => historyBand(history)).toThrow(RangeError);
  });
});

describe('judgeAgainstHistory (max 20 %, floor 5 ms)', () => {
  const judge = (candidateP95Us: number, history: readonly number[], candidateSamples = 2000) =>
    judgeAgainstHistory({ candidateP95Us, candidateSamples, historyP95sUs: history, maxPct: 20, floorMs: 5 });

  it.each<[string, number, readonly number[], HistoryDecision['status'], HistoryDecision['reason']]>([
    ['unchanged', 82_000, TEN, 'pass', 'within_band'],
    ['+30 % over a quiet history', 105_000, TEN, 'fail', 'above_band'],
    ['just inside the band', Math.floor(historyBand(TEN).upper_us), TEN, 'pass', 'within_band'],
    ['+60 % over the median', 128_800, TEN, 'fail', 'above_band'],
    ['5 runs, +60 %', 128_800, TEN.slice(0, 5), 'fail', 'above_band'],
    // A drifted history (the endpoint got 40 % slower over ten runs, each passing): the band is wide,
    // the median has moved, and the run at the top of the drift is inside it — but
    // the band is wider than max_pct, so it could not have caught the regression asked about.
    ['drifted history, run continues the drift', 115_000, [70_000, 74_000, 78_000, 82_000, 86_000, 90_000, 94_000, 98_000, 102_000, 106_000], 'inconclusive', 'band_too_wide'],
    ['constant history, +10 %: above the band but under max_pct', 55_000, Array(10).fill(50_000), 'pass', 'under_pct'],
    ['constant history, +30 %', 65_000, Array(10).fill(50_000), 'fail', 'above_band'],
    ['constant history, +30 % of 10 ms is under the floor', 13_000, Array(10).fill(10_000), 'pass', 'under_floor'],
    ['constant history, exactly max_pct over the median', 60_000, Array(10).fill(50_000), 'pass', 'under_pct'],
    ['constant history, exactly the floor over the median', 20_000, Array(10).fill(15_000), 'pass', 'under_floor'],
  ])('%s → %s (%s)', (_name, candidate, history, status, reason) => {
    const decision = judge(candidate, history);
    expect(decision.status).toBe(status);
    expect(decision.reason).toBe(reason);
  });

  it('a band too wide to catch max_pct never passes: 5 noisy runs, a 6.8× regression inside the band is inconclusive (issue 32)', () => {
    const noisy = [50_000, 150_000, 70_000, 200_000, 90_000];
    const decision = judge(90_000 * 6.8, noisy);
    expect(decision.band.upper_us).toBeGreaterThan(90_000 * 6.8);
    expect(decision).toMatchObject({ status: 'inconclusive', reason: 'band_too_wide', runs_needed: null });
    expect(decision.band_span).toBeCloseTo(decision.band.upper_us / 90_000, 10);
    // The same run at the median is no pass either: the band says nothing about a +20 % change.
    expect(judge(90_000, noisy)).toMatchObject({ status: 'inconclusive', reason: 'band_too_wide' });
  });

  it('a band too wide says how many runs would do; at that many runs of the same spread the check judges', () => {
    const five = [95_000, 105_000, 100_000, 110_000, 90_000];
    const decision = judge(100_000, five);
    expect(decision).toMatchObject({ status: 'inconclusive', reason: 'band_too_wide' });
    const needed = decision.runs_needed!;
    expect(needed).toBeGreaterThan(5);
    // The formula's two limits at `needed` runs (same sd and centre): one of them is under the regression.
    const band = decision.band;
    const room = Math.log((band.median_us * 1.2) / band.geometric_mean_us);
    const bandCatches = (n: number) => studentTQuantile(0.995, n - 1) * band.log_sd * Math.sqrt(1 + 1 / Math.min(n, 10)) <= room;
    const ruleCatches = (n: number) =>
      n - 2 >= 8 && (Math.sqrt(3) * room) / (band.log_sd * (studentTQuantile(0.99, Math.min(n - 2, 100) - 1) / studentTQuantile(0.99, 99))) > 2.86;
    expect(bandCatches(needed) || ruleCatches(needed)).toBe(true);
    expect(bandCatches(needed - 1) || ruleCatches(needed - 1)).toBe(false);
    // A history that long, repeating the same five values, is judged: the run passes.
    const long = Array.from({ length: needed }, (_, i) => five[i % 5]!);
    expect(judgeAgainstHistory({ candidateP95Us: 100_000, candidateSamples: 2000, historyP95sUs: long.slice(0, 10), spreadP95sUs: long, maxPct: 20, floorMs: 5 }).status).toBe('pass');
  });

  it('a band wider than max_pct but narrower than the floor judges: the floor decides', () => {
    // 2 ms p95s drifting ±10 %: the band reaches past +20 % but not past the 5 ms floor.
    expect(judge(2_100, [2_000, 2_200, 1_800, 2_100, 1_900])).toMatchObject({ status: 'pass', reason: 'within_band' });
  });

  it('a candidate with no successful sample is inconclusive (availability judges that run)', () => {
    const decision = judge(0, TEN, 0);
    expect(decision.status).toBe('inconclusive');
    expect(decision.vs_median_pct).toBeNaN();
  });

  it('reports the percentage and the ms over the history median', () => {
    const decision = judge(96_600, TEN);
    expect(decision.vs_median_pct).toBeCloseTo(20, 10);
    expect(decision.difference_ms).toBeCloseTo(16.1, 10);
  });

  it('a higher upper boundary widens the band', () => {
    const strict = judgeAgainstHistory({ candidateP95Us: 100_000, candidateSamples: 2000, historyP95sUs: TEN, maxPct: 20, floorMs: 5, upperBoundary: 0.95 });
    const lenient = judgeAgainstHistory({ candidateP95Us: 100_000, candidateSamples: 2000, historyP95sUs: TEN, maxPct: 20, floorMs: 5, upperBoundary: 0.999 });
    expect(strict.band.upper_us).toBeLessThan(lenient.band.upper_us);
  });
});

describe('historyBand with a longer lookback for its spread', () => {
  it('centres on the window and takes the spread (and the t degrees of freedom) from the lookback', () => {
    const lookback = [...TEN, ...TEN.map((v) => v + 1_000), ...TEN.map((v) => v - 1_000)];
    const band = historyBand(TEN, 0.99, lookback);
    const logs = lookback.map(Math.log);
    const m = logs.reduce((a, b) => a + b) / 30;
    const sd = Math.sqrt(logs.reduce((a, b) => a + (b - m) ** 2, 0) / 29);
    const centre = TEN.map(Math.log).reduce((a, b) => a + b) / 10;
    expect(band.runs).toBe(10);
    expect(band.spread_runs).toBe(30);
    expect(band.median_us).toBe(80_500);
    expect(band.log_sd).toBeCloseTo(sd, 12);
    expect(band.upper_us).toBeCloseTo(Math.exp(centre + studentTQuantile(0.99, 29) * sd * Math.sqrt(1.1)), 0);
    // Narrower than the window alone, whose t has 9 degrees of freedom.
    expect(band.upper_us).toBeLessThan(historyBand(TEN).upper_us);
  });

  it('a lookback no longer than the window changes nothing', () => {
    expect(historyBand(TEN, 0.99, TEN)).toEqual(historyBand(TEN, 0.99));
    expect(historyBand(TEN, 0.99, TEN.slice(0, 5))).toEqual(historyBand(TEN, 0.99));
  });
});

describe('judgePersisting (sequential rule: the windows of the last 1, 2 and 3 runs against up to 100 earlier runs)', () => {
  const EARLIER = [...TEN, ...TEN, ...TEN]; // 30 earlier runs around 80 ms
  const judge = (candidate: number, recent: number[], earlier = EARLIER) =>
    judgePersisting({ candidateP95Us: candidate, historyP95sUs: [...recent, ...earlier], maxPct: 20, floorMs: 5 });
  const logs = EARLIER.map(Math.log);
  const mean = logs.reduce((a, b) => a + b) / logs.length;
  // Thirty earlier runs estimate the sd less well than a full lookback: the scale widens by t(29)/t(99).
  const sd =
    Math.sqrt(logs.reduce((a, b) => a + (b - mean) ** 2, 0) / (logs.length - 1)) *
    (studentTQuantile(0.99, 29) / studentTQuantile(0.99, PERSISTING_LOOKBACK - 1));
  const z = (us: number) => (Math.log(us) - mean) / sd;

  it.each<[string, number, number[], number[], PersistingDecision['status'], PersistingDecision['reason'], number]>([
    ['three runs ~27 % slower than thirty before: the longest failing window is shown', 104_000, [100_000, 102_000], EARLIER, 'fail', 'persisting', 3],
    ['two slow runs after a normal one: the window of two', 104_000, [102_000, 80_000], EARLIER, 'fail', 'persisting', 2],
    ['three runs 21 % slower, none unusual enough alone', 97_000, [97_000, 97_000], EARLIER, 'fail', 'persisting', 3],
    ['the candidate alone 24 % slower, judged against the long lookback', 100_000, [80_000, 81_000], EARLIER, 'fail', 'persisting', 1],
    ['the candidate alone 18 % slower: under its limit', 95_000, [80_000, 81_000], EARLIER, 'pass', 'within_limit', 1],
    ['the candidate back to normal ends a regression', 78_000, [100_000, 102_000], EARLIER, 'pass', 'not_slower', 3],
    ['three runs 11 % slower: under h', 89_000, [89_000, 89_000], EARLIER, 'pass', 'within_limit', 3],
    ['two runs 16 % slower after a normal one: under h', 93_000, [93_000, 80_000], EARLIER, 'pass', 'within_limit', 2],
    ['three runs 23 % slower but with 8 noisy runs before: within the widened scale', 99_000, [98_000, 100_000], [60_000, 110_000, 70_000, 95_000, 60_000, 110_000, 70_000, 95_000], 'pass', 'within_limit', 3],
    ['fewer than 8 earlier runs: no rule', 104_000, [100_000, 102_000], TEN.slice(0, 7), 'pass', 'too_few_runs', 1],
    ['no earlier passing run besides the window', 104_000, [100_000], [], 'pass', 'too_few_runs', 1],
  ])('%s → %s (%s)', (_name, candidate, recent, earlier, status, reason, runs) => {
    const d = judge(candidate, recent, earlier);
    expect(d.reason).toBe(reason);
    expect(d.status).toBe(status);
    expect(d.runs).toBe(runs);
  });

  it('a window of k runs is Σz/√k against h; the candidate alone against h − the single-run allowance', () => {
    const three = judge(97_000, [97_000, 97_000]);
    expect(three.t).toBeCloseTo((3 * z(97_000)) / Math.sqrt(3), 9);
    expect(three.limit).toBe(PERSISTING_LIMIT_SD);
    const one = judge(100_000, [80_000, 81_000]);
    expect(one.t).toBeCloseTo(z(100_000), 9);
    expect(one.limit).toBeCloseTo(PERSISTING_LIMIT_SD - PERSISTING_SINGLE_ALLOWANCE_SD, 12);
    // Just under h passes, just over fails: the same runs judged with h on either side of the statistic.
    const at = (limitSd: number) => judgePersisting({ candidateP95Us: 97_000, historyP95sUs: [97_000, 97_000, ...EARLIER], maxPct: 20, floorMs: 5, limitSd });
    expect(at(three.t + 1e-6).reason).toBe('within_limit');
    expect(at(three.t - 1e-6).reason).toBe('persisting');
  });

  it('a slow window under max_pct or the floor passes however unusual', () => {
    const flat = Array.from({ length: 30 }, (_, i) => 80_000 + (i % 3) * 100);
    expect(judge(90_000, [90_000, 90_000], flat).reason).toBe('under_pct');
    const fast = Array.from({ length: 30 }, (_, i) => 2_000 + (i % 3) * 10);
    expect(judgePersisting({ candidateP95Us: 4_000, historyP95sUs: [4_000, 4_000, ...fast], maxPct: 20, floorMs: 5 }).reason).toBe('under_floor');
  });

  it('compares with at most 100 earlier runs and names how many', () => {
    const d = judge(104_000, [100_000, 102_000], [...EARLIER, ...EARLIER, ...EARLIER, ...EARLIER]);
    expect(d.runs).toBe(3);
    expect(d.reference_runs).toBe(PERSISTING_LOOKBACK);
    expect(PERSISTING_LOOKBACK).toBe(100);
  });

  it('reads enough passing runs for both rules', () => {
    expect(historyRunsToRead(10)).toBe(102);
    expect(historyRunsToRead(150)).toBe(150);
  });
});
