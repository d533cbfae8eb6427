/*
 * How a percentile and its 95 % interval are written for a reader ("120 ms [112–131]"): the
 * verdict's messages and Markdown summary, the CLI. The dashboard's src/dashboard/interval.js is
 * the same rule for the browser; test/unit/interval-display.test.ts runs one table against both.
 *
 * The rule that matters: the point is never shown outside its own interval. Three numbers each
 * rounded on their own can break that ("2 ms [1.5–1.6]" when a whole-ms point met one-decimal
 * bounds), so the triple is rounded together:
 *  - one precision for all three, chosen by the point: whole ms from 10 ms up, one decimal below;
 *  - the bounds are rounded outwards (lower down, upper up), so the shown interval covers the
 *    computed one, and the point to the nearest; lower ≤ point ≤ upper then survives rounding;
 *  - a point outside its bounds (a caller mixing figures of two computations) widens the shown
 *    interval to it rather than printing a point outside its interval.
 */

/** A percentile, ms, with its 95 % interval; `upper` null when too few samples bound it. */
export interface PointInterval {
  point: number;
  lower: number;
  upper: number | null;
}

export interface DisplayedInterval {
  point: string;
  lower: string;
  /** '∞' when the interval is unbounded above. */
  upper: string;
}

/** Float noise (0.3 × 10 = 3.0000000000000004) must not push a bound up or down a whole step. */
const EPSILON = 1e-9;

export function displayMsInterval(p: PointInterval): DisplayedInterval {
  const decimals = Math.abs(p.point) >= 10 ? 0 : 1;
  const scale = 10 ** decimals;
  const text = (v: number) => String(v / scale || 0);
  const point = Math.round(p.point * scale);
  const lower = Math.min(Math.floor(p.lower * scale + EPSILON), point);
  const upper = p.upper === null ? null : Math.max(Math.ceil(p.upper * scale - EPSILON), point);
  return { point: text(point), lower: text(lower), upper: upper === null ? '∞' : text(upper) };
}

/** "[112–131]": the interval alone, as rounded with its point. */
export function showMsRange(p: PointInterval): string {
  const d = displayMsInterval(p);
  return `[${d.lower}–${d.upper}]`;
}

/** "120 ms [112–131]". */
export function showMsInterval(p: PointInterval): string {
  const d = displayMsInterval(p);
  return `${d.point} ms [${d.lower}–${d.upper}]`;
}
