import { readFileSync } from 'node:fs';
import path from 'node:path';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { displayMsInterval, showMsInterval, showMsRange, type DisplayedInterval, type PointInterval } from '../../src/domain/interval-display';

/** The dashboard's copy of the rule (a browser script), loaded as the page loads it. */
function dashboardDisplay(): (p: PointInterval) => DisplayedInterval {
  const window: { RvsInterval?: { display: (p: PointInterval) => DisplayedInterval } } = {};
  runInNewContext(readFileSync(path.resolve('src/dashboard/interval.js'), 'utf8'), { window });
  return window.RvsInterval!.display;
}

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
