import { readFileSync } from 'node:fs';
import path from 'node:path';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { displayMsInterval, roundOutwards, showMsInterval, showMsRange, showPctRange, type DisplayedInterval, type PointInterval } from '../../src/domain/interval-display';

/** The dashboard's copy of the rule (a browser script), loaded as the page loads it. */
function dashboardDisplay(): (p: PointInterval) => DisplayedInterval {
  const window: { RvsInterval?: { display: (p: PointInterval) => DisplayedInterval } } = {};
  runInNewContext(readFileSync(path.resolve('src/dashboard/interval.js'), 'utf8'), { window });
  return window.RvsInterval!.display;
}

type PctRange = (i: { lower: number; upper: number | null }, decimals: number, signed?: boolean) => string;

function dashboardPctRange(): PctRange {
  const window: { RvsInterval?: { pctRange: PctRange } } = {};
  runInNewContext(readFileSync(path.resolve('src/dashboard/interval.js'), 'utf8'), { window });
  return window.RvsInterval!.pctRange;
}

/** Percent intervals (availability, relative differences): the same outward rule at a fixed precision. */
const PCT_TABLE: { i: { lower: number; upper: number | null }; decimals: number; signed: boolean; shown: string }[] = [
  // Availability's Wilson interval, two decimals: 98.996 is not shown as 99 (narrower than judged).
  { i: { lower: 98.996, upper: 99.9951 }, decimals: 2, signed: false, shown: '98.99–100' },
  { i: { lower: 0, upper: 100 }, decimals: 2, signed: false, shown: '0–100' },
  { i: { lower: 97.5, upper: 99.25 }, decimals: 2, signed: false, shown: '97.5–99.25' },
  // A relative difference, one decimal, signed.
  { i: { lower: 3.14, upper: 12.41 }, decimals: 1, signed: true, shown: '+3.1%…+12.5%' },
  { i: { lower: -7.06, upper: 0.01 }, decimals: 1, signed: true, shown: '-7.1%…+0.1%' },
  { i: { lower: -100, upper: null }, decimals: 1, signed: true, shown: '-100%…∞' },
  // Float noise does not move an exact bound a whole step.
  { i: { lower: 0.1 + 0.2, upper: 0.7 }, decimals: 1, signed: false, shown: '0.3–0.7' },
];

describe('percent intervals: rounded outwards, in both implementations', () => {
  const implementations = [
    ['verdict and CLI (domain)', showPctRange],
    ['dashboard (interval.js)', dashboardPctRange()],
  ] as const;
  for (const [name, range] of implementations) {
    it.each(PCT_TABLE)(`${name}: %o`, ({ i, decimals, signed, shown }) => {
      expect(range(i, decimals, signed)).toBe(shown);
    });
  }

  it('roundOutwards never narrows an interval', () => {
    for (let k = 0; k < 2000; k++) {
      const lower = (k * 7.919) % 100;
      const upper = lower + ((k * 3.137) % 10);
      for (const decimals of [0, 1, 2]) {
        const r = roundOutwards(lower, upper, decimals);
        expect(r.lower).toBeLessThanOrEqual(lower + 1e-9);
        expect(r.upper).toBeGreaterThanOrEqual(upper - 1e-9);
      }
    }
  });
});

const TABLE: { p: PointInterval; shown: string }[] = [
  // The report: a point just over a half, bounds one decimal apart.
  { p: { point: 1.55, lower: 1.5, upper: 1.6 }, shown: '1.6 ms [1.5–1.6]' },
  { p: { point: 1.6, lower: 1.5, upper: 1.6 }, shown: '1.6 ms [1.5–1.6]' },
  // Whole ms from 10 ms up: bounds rounded outwards, the point to the nearest.
  { p: { point: 120.4, lower: 111.6, upper: 130.2 }, shown: '120 ms [111–131]' },
  { p: { point: 10.4, lower: 10.2, upper: 10.4 }, shown: '10 ms [10–11]' },
  { p: { point: 10.5, lower: 10.5, upper: 10.5 }, shown: '11 ms [10–11]' },
  // The precision follows the point: a one-decimal point keeps one-decimal bounds above 10.
  { p: { point: 9.9, lower: 9.5, upper: 10.4 }, shown: '9.9 ms [9.5–10.4]' },
  { p: { point: 9.96, lower: 9.91, upper: 9.97 }, shown: '10 ms [9.9–10]' },
  // Float noise does not move an exact bound a whole step.
  { p: { point: 0.3, lower: 0.3, upper: 0.3 }, shown: '0.3 ms [0.3–0.3]' },
  { p: { point: 0.7, lower: 0.1 + 0.2, upper: 0.7 }, shown: '0.7 ms [0.3–0.7]' },
  { p: { point: 0, lower: 0, upper: 0.1 }, shown: '0 ms [0–0.1]' },
  // No upper bound (too few samples).
  { p: { point: 112, lower: 108, upper: null }, shown: '112 ms [108–∞]' },
  { p: { point: 4.04, lower: 3.96, upper: null }, shown: '4 ms [3.9–∞]' },
  // A point from another computation (a whole-ms statistic beside one-decimal bounds) widens the interval.
  { p: { point: 2, lower: 1.5, upper: 1.6 }, shown: '2 ms [1.5–2]' },
  { p: { point: 87, lower: 88.2, upper: 93 }, shown: '87 ms [87–93]' },
];

describe('interval display: the point stays inside its own interval', () => {
  const implementations = [
    ['verdict and CLI (domain)', displayMsInterval],
    ['dashboard (interval.js)', dashboardDisplay()],
  ] as const;

  for (const [name, display] of implementations) {
    it.each(TABLE)(`${name}: %o`, ({ p, shown }) => {
      const d = display(p);
      expect(`${d.point} ms [${d.lower}–${d.upper}]`).toBe(shown);
      const [point, lower] = [Number(d.point), Number(d.lower)];
      expect(lower).toBeLessThanOrEqual(point);
      if (d.upper !== '∞') expect(point).toBeLessThanOrEqual(Number(d.upper));
    });
  }

  it('holds for every consistent triple on a grid of values, in both implementations', () => {
    const dashboard = dashboardDisplay();
    const values = Array.from({ length: 260 }, (_, i) => Math.round(i * 0.7 * 10) / 10);
    for (const lower of values) {
      for (const point of values.filter((v) => v >= lower && v <= lower + 12)) {
        for (const upper of [point, point + 0.1, point + 0.5, point + 3.3, null]) {
          for (const d of [displayMsInterval({ point, lower, upper }), dashboard({ point, lower, upper })]) {
            expect(Number(d.lower)).toBeLessThanOrEqual(Number(d.point));
            if (upper !== null) expect(Number(d.point)).toBeLessThanOrEqual(Number(d.upper));
            // The shown interval covers the computed one.
            expect(Number(d.lower)).toBeLessThanOrEqual(lower);
            if (upper !== null) expect(Number(d.upper)).toBeGreaterThanOrEqual(Math.round(upper * 10) / 10 - 1e-9);
          }
        }
      }
    }
  });

  it('writes the range alone and the point with its unit', () => {
    expect(showMsRange({ point: 1.55, lower: 1.5, upper: 1.6 })).toBe('[1.5–1.6]');
    expect(showMsInterval({ point: 45.2, lower: 44.1, upper: 46.3 })).toBe('45 ms [44–47]');
  });
});
