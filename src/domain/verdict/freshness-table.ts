import { showMsInterval } from '../interval-display';
import type { VerdictJson } from './check-module';
import type { TableBlock } from './table-block';
import type { FreshnessComparison } from './types';
import { num, seconds1, type IntervalsJson } from './verdict-json';

/** The head watch in the Markdown: one row per candidate, the reference's own heads and any observer gap. */
export function freshnessMarkdownTable(f: FreshnessComparison, escape: (text: string) => string): TableBlock {
  const resolution = f.resolution_ms === null ? '' : ` (polled every ${f.resolution_ms} ms: arrival times are known to within that)`;
  return {
    intro: `Head arrivals over ${f.duration_s} s via ${f.via}${resolution}; the reference (${escape(f.reference.endpoint_name)}) announced ${f.reference.heads} heads.`,
    header: ['Endpoint', 'Lag p50 [95% interval]', 'Lag p95 [95% interval]', 'Missed', 'Late', 'Reorgs', 'Longest stall', 'Reconnects'],
    rows: f.candidates.map((c) => {
      const lag = (p: 'p50' | 'p95') => (c.lag_ms === null ? '–' : showMsInterval(c.lag_ms[p]));
      const missed = `${c.missed} of ${c.judged}${c.missed_pct === null ? '' : ` (${c.missed_pct}%)`}`;
      return [c.endpoint_name, lag('p50'), lag('p95'), missed, String(c.late), String(c.reorgs), `${(c.longest_stall_ms / 1000).toFixed(1)} s`, String(c.reconnects)];
    }),
    notes: f.observer_gaps.map((g) => `The observer was gone from ${(g.from_ms / 1000).toFixed(1)} s to ${(g.to_ms / 1000).toFixed(1)} s (a worker lost): heads then were not judged.`),
  };
}

/** A candidate of the verdict's freshness_comparison, as far as `rvs` reads it (an older service may omit any of it). */
export interface FreshnessCandidateJson {
  endpoint_id?: unknown;
  endpoint_name?: unknown;
  judged?: unknown;
  missed?: unknown;
  missed_pct?: unknown;
  late?: unknown;
  duplicates?: unknown;
  reorgs?: unknown;
  reconnects?: unknown;
  longest_stall_ms?: unknown;
  lag_ms?: unknown;
}

interface FreshnessJson {
  via?: unknown;
  duration_s?: unknown;
  resolution_ms?: unknown;
  reference?: { endpoint_name?: unknown; heads?: unknown };
  candidates: FreshnessCandidateJson[];
  observer_gaps?: unknown;
}

export function freshnessOf(verdict: VerdictJson): FreshnessJson | null {
  const f = verdict.freshness_comparison as FreshnessJson | null | undefined;
  return f && Array.isArray(f.candidates) ? f : null;
}

/** "2 of 70 (2.9%)" ("2 of 70 (2.9%; limit 1%)" with a limit), or what of it the verdict holds. */
export function missedText(c: { missed?: unknown; judged?: unknown; missed_pct?: unknown }, limit = ''): string {
  const inside = [num(c.missed_pct) === null ? null : `${num(c.missed_pct)}%`, limit || null].filter((x) => x !== null).join('; ');
  const count = num(c.missed) === null || num(c.judged) === null ? null : `${num(c.missed)} of ${num(c.judged)}`;
  if (count === null) return inside === '' ? '–' : inside;
  return inside === '' ? count : `${count} (${inside})`;
}

/**
 * The head watch in `rvs` text, when the run had one: each candidate's arrival lag behind the
 * reference (p50 / p95 with intervals), missed, late, longest stall, reorgs, duplicates and reconnects.
 */
export function freshnessTextTable(verdict: VerdictJson): TableBlock | null {
  const f = freshnessOf(verdict);
  if (!f || f.candidates.length === 0) return null;
  const resolution = num(f.resolution_ms) === null ? '' : ` (polled every ${num(f.resolution_ms)} ms: arrivals are known to within that)`;
  const lag = (c: FreshnessCandidateJson, p: 'p50' | 'p95') => {
    const q = (c.lag_ms as IntervalsJson | null | undefined)?.[p];
    return q && typeof q.point === 'number' ? showMsInterval(q) : '–';
  };
  const gaps = Array.isArray(f.observer_gaps) ? (f.observer_gaps as { from_ms?: unknown; to_ms?: unknown }[]) : [];
  return {
    intro: `Head arrivals over ${String(f.duration_s)} s via ${String(f.via)}${resolution}; the reference ${String(f.reference?.endpoint_name)} announced ${String(f.reference?.heads)} heads. Lag behind it, p50 / p95 [95% confidence interval]:`,
    header: ['endpoint', 'lag p50', 'lag p95', 'missed', 'late', 'longest stall', 'reorgs', 'duplicates', 'reconnects'],
    rows: f.candidates.map((c) => [
      String(c.endpoint_name),
      lag(c, 'p50'),
      lag(c, 'p95'),
      missedText(c),
      String(num(c.late) ?? '–'),
      seconds1(c.longest_stall_ms),
      String(num(c.reorgs) ?? '–'),
      String(num(c.duplicates) ?? '–'),
      String(num(c.reconnects) ?? '–'),
    ]),
    notes: gaps.map((g) => `The observer was gone from ${seconds1(g.from_ms)} to ${seconds1(g.to_ms)} (a worker lost): heads then were not judged.`),
  };
}
