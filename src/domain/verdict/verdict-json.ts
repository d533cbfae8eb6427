import type { CheckJson, VerdictJson } from './check-module';

/*
 * Reading a verdict's JSON (check-module.ts VerdictJson) where any field may be missing: each
 * reader answers null, or an empty list, for what it cannot read.
 */

export interface PercentileJson {
  point: number;
  lower: number;
  upper: number | null;
}

export type IntervalsJson = Partial<Record<'p50' | 'p95' | 'p99', PercentileJson>>;

export function isIntervals(value: unknown): value is IntervalsJson {
  const p95 = (value as IntervalsJson | null | undefined)?.p95;
  return typeof p95?.point === 'number' && typeof p95.lower === 'number';
}

export const num = (value: unknown): number | null => (typeof value === 'number' && Number.isFinite(value) ? value : null);

/** ms as "41.0 s", or '–'. */
export const seconds1 = (ms: unknown) => (num(ms) === null ? '–' : `${(num(ms)! / 1000).toFixed(1)} s`);

export function checksOf(verdict: VerdictJson): CheckJson[] {
  return Array.isArray(verdict.checks) ? (verdict.checks as CheckJson[]) : [];
}
