import { roundOutwards, showMsInterval, showPctRange } from '../interval-display';
import { percentileIntervals, type QuantileInterval, type SortedSamples } from '../statistics/quantile-interval';
import type { RelativeDifference } from '../statistics/relative-difference';
import type { IntervalPct, PercentileIntervalsMs, PercentileMs } from './types';

/*
 * How the verdict writes its figures, in its details and in its sentences alike: µs to ms with one
 * decimal, 95 % intervals, percentages with their sign.
 */

/** Percent drift of `value` against `base`, one decimal; a base of 0 ms counts as 1 ms. */
export function driftPct(value: number, base: number): number {
  // `|| 0` turns -0 into 0 so a tiny improvement never prints as "-0%".
  return Math.round(((value - base) / Math.max(base, 1)) * 1000) / 10 || 0;
}

/** What a side without successful calls (or an input that omits them) is judged on. */
export const EMPTY: SortedSamples = [];

export const round1 = (x: number) => Math.round(x * 10) / 10 || 0;
export const usToMs = (us: number) => round1(us / 1000);

/** The point to the nearest 0.1 ms, its bounds outwards (roundOutwards: the rule of every interval). */
export function percentileMs(q: QuantileInterval): PercentileMs {
  const bounds = roundOutwards(q.lower / 1000, q.upper === Infinity ? null : q.upper / 1000, 1);
  return { point: Number.isNaN(q.point) ? 0 : usToMs(q.point), lower: bounds.lower, upper: bounds.upper };
}

export function intervalsMs(sorted: SortedSamples): PercentileIntervalsMs {
  const q = percentileIntervals(sorted);
  return { p50: percentileMs(q.p50), p95: percentileMs(q.p95), p99: percentileMs(q.p99) };
}

export function intervalPct(diff: RelativeDifference): IntervalPct {
  return roundOutwards(diff.lower_pct, diff.upper_pct === Infinity ? null : diff.upper_pct, 1);
}

/** "120 ms [112–131]": whole ms from 10 ms up, one decimal below. */
export function showMs(ms: number | null): string {
  if (ms === null) return '∞';
  return ms >= 10 ? String(Math.round(ms)) : String(round1(ms));
}

/**
 * A percentile with its interval, as measured: the interval's own point (the same order statistic
 * as its bounds, one decimal). The run's whole-ms statistic beside one-decimal bounds could fall
 * outside them ("2 ms [1.5–1.6]"); it is shown only where there were no samples to bound.
 */
export function showPercentile(p: PercentileMs, samples: number, statisticMs: number): string {
  return showMsInterval(samples > 0 ? p : { ...p, point: statisticMs });
}

export function showIntervalPct(i: IntervalPct): string {
  return showPctRange(i, 1, true);
}

export function showCalls(n: number | null): string {
  return n === null ? 'more calls would be needed to decide' : `about ${n.toLocaleString('en-US')} calls would decide`;
}

export function formatPct(pct: number): string {
  return `${pct > 0 ? '+' : ''}${pct}%`;
}
