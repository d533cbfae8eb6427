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

/**
 * The one rounding rule of every interval, whatever its unit: at `decimals` places, the lower
 * bound down and the upper up (null: unbounded), so the rounded interval covers the computed one.
 * Intervals are stored in the verdict this way (ms, percent) and shown this way (displayMsInterval,
 * showPctRange; the dashboard's interval.js), so no surface narrows one by rounding.
 */
export function roundOutwards(lower: number, upper: number, decimals: number): { lower: number; upper: number };
export function roundOutwards(lower: number, upper: number | null, decimals: number): { lower: number; upper: number | null };
export function roundOutwards(lower: number, upper: number | null, decimals: number): { lower: number; upper: number | null } {
  const scale = 10 ** decimals;
  return {
    lower: Math.floor(lower * scale + EPSILON) / scale || 0,
    upper: upper === null ? null : Math.ceil(upper * scale - EPSILON) / scale || 0,
  };
}

export function displayMsInterval(p: PointInterval): DisplayedInterval {
  const decimals = Math.abs(p.point) >= 10 ? 0 : 1;
  const scale = 10 ** decimals;
  const text = (v: number) => String(v / scale || 0);
  const point = Math.round(p.point * scale);
  const bounds = roundOutwards(p.lower, p.upper, decimals);
  const lower = Math.min(Math.round(bounds.lower * scale), point);
  const upper = bounds.upper === null ? null : Math.max(Math.round(bounds.upper * scale), point);
  return { point: text(point), lower: text(lower), upper: upper === null ? '∞' : text(upper) };
}

/**
 * "98.9–100" (percent, no unit): a percent interval at `decimals` places, rounded outwards;
 * `signed` writes a plus before a positive bound (a relative difference: "+3.1…+12.5"), and then
 * the bounds are joined with an ellipsis as the verdict's relative intervals are.
 */
export function showPctRange(i: { lower: number; upper: number | null }, decimals: number, signed = false): string {
  const r = roundOutwards(i.lower, i.upper, decimals);
  if (!signed) return `${r.lower}–${r.upper === null ? '∞' : r.upper}`;
  const text = (v: number | null) => (v === null ? '∞' : `${v > 0 ? '+' : ''}${v}%`);
  return `${text(r.lower)}…${text(r.upper)}`;
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
