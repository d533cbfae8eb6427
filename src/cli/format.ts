import { showMsInterval } from '../domain/interval-display';
import { capacityTable } from '../domain/verdict/capacity-table';
import { FRESHNESS_REASON_TEXT } from '../domain/verdict/freshness-vs-reference';
import type { CapacityComparison, FreshnessReason } from '../domain/verdict/types';
import type { Format } from './args';
import type { RunView, VerdictView } from './client';

/** What a verdict is formatted from: the verdict as the API returned it and, when known, its run. */
export interface VerdictReport {
  runId: string;
  verdict: VerdictView;
  run: RunView | null;
}

function suiteName(report: VerdictReport): string {
  return report.run?.suite?.name ?? `run ${report.runId}`;
}

function checks(report: VerdictReport) {
  return Array.isArray(report.verdict.checks) ? report.verdict.checks : [];
}

interface PercentileView {
  point: number;
  lower: number;
  upper: number | null;
}
type IntervalsView = Partial<Record<'p50' | 'p95' | 'p99', PercentileView>>;

function isIntervals(value: unknown): value is IntervalsView {
  const p95 = (value as IntervalsView | null | undefined)?.p95;
  return typeof p95?.point === 'number' && typeof p95.lower === 'number';
}

/**
 * "p50 / p95 / p99 [95% interval]" of each side the verdict measured: the candidates, each
 * candidate when there are several, the reference. Nothing for verdicts stored before intervals.
 */
function percentileLines(report: VerdictReport): string[] {
  const p95Check = checks(report).find((c) => c.name === 'latency_p95');
  const details = (p95Check?.details ?? {}) as { intervals_ms?: unknown; targets?: { endpoint_name?: unknown; intervals_ms?: unknown }[] };
  const reference = (report.verdict.reference_comparison as { endpoint_name?: unknown; latency?: { reference_intervals_ms?: unknown } } | null | undefined) ?? null;
  const rows: [string, IntervalsView][] = [];
  if (isIntervals(details.intervals_ms)) rows.push(['candidate', details.intervals_ms]);
  const targets = Array.isArray(details.targets) ? details.targets : [];
  if (targets.length > 1) {
    for (const target of targets) if (isIntervals(target.intervals_ms)) rows.push([`candidate ${String(target.endpoint_name)}`, target.intervals_ms]);
  }
  if (reference && isIntervals(reference.latency?.reference_intervals_ms)) rows.push([`reference ${String(reference.endpoint_name)}`, reference.latency.reference_intervals_ms]);
  if (rows.length === 0) return [];
  // As the verdict's messages write it: the point rounded together with its interval, never outside it.
  const cell = (q: PercentileView | undefined) => (q ? showMsInterval(q) : '–');
  const cells = rows.map(([name, q]) => [name, cell(q.p50), cell(q.p95), cell(q.p99)]);
  const widths = [0, 1, 2, 3].map((i) => Math.max(...cells.map((c) => c[i]!.length)));
  return [
    'Latency of successful calls, p50 / p95 / p99 [95% confidence interval]:',
    ...cells.map((c) => `  ${c[0]!.padEnd(widths[0]!)}  ${c.slice(1).map((v, i) => v.padEnd(widths[i + 1]!)).join('  ').trimEnd()}`),
  ];
}

/** A candidate of the verdict's freshness_comparison, as far as the CLI reads it (an older service may omit any of it). */
interface FreshnessCandidateView {
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

interface FreshnessView {
  via?: unknown;
  duration_s?: unknown;
  resolution_ms?: unknown;
  reference?: { endpoint_name?: unknown; heads?: unknown };
  candidates: FreshnessCandidateView[];
  observer_gaps?: unknown;
}

function freshnessOf(report: VerdictReport): FreshnessView | null {
  const f = report.verdict.freshness_comparison as FreshnessView | null | undefined;
  return f && Array.isArray(f.candidates) ? f : null;
}

const num = (value: unknown): number | null => (typeof value === 'number' && Number.isFinite(value) ? value : null);
const seconds1 = (stallMs: unknown) => (num(stallMs) === null ? '–' : `${(num(stallMs)! / 1000).toFixed(1)} s`);

/** "2 of 70 (2.9%)" ("2 of 70 (2.9%; limit 1%)" with a limit), or what of it the verdict holds. */
function missedText(c: { missed?: unknown; judged?: unknown; missed_pct?: unknown }, limit = ''): string {
  const inside = [num(c.missed_pct) === null ? null : `${num(c.missed_pct)}%`, limit || null].filter((x) => x !== null).join('; ');
  const count = num(c.missed) === null || num(c.judged) === null ? null : `${num(c.missed)} of ${num(c.judged)}`;
  if (count === null) return inside === '' ? '–' : inside;
  return inside === '' ? count : `${count} (${inside})`;
}

/**
 * The head watch, when the run had one: each candidate's arrival lag behind the reference
 * (p50 / p95 with intervals), missed, late, longest stall, reorgs, duplicates and reconnects.
 */
function freshnessLines(report: VerdictReport): string[] {
  const f = freshnessOf(report);
  if (!f || f.candidates.length === 0) return [];
  const resolution = num(f.resolution_ms) === null ? '' : ` (polled every ${num(f.resolution_ms)} ms: arrivals are known to within that)`;
  const lines = [
    `Head arrivals over ${String(f.duration_s)} s via ${String(f.via)}${resolution}; the reference ${String(f.reference?.endpoint_name)} announced ${String(f.reference?.heads)} heads. Lag behind it, p50 / p95 [95% confidence interval]:`,
  ];
  const lag = (c: FreshnessCandidateView, p: 'p50' | 'p95') => {
    const q = (c.lag_ms as IntervalsView | null | undefined)?.[p];
    return q && typeof q.point === 'number' ? showMsInterval(q) : '–';
  };
  const header = ['endpoint', 'lag p50', 'lag p95', 'missed', 'late', 'longest stall', 'reorgs', 'duplicates', 'reconnects'];
  const cells = [
    header,
    ...f.candidates.map((c) => [
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
  ];
  const widths = header.map((_, i) => Math.max(...cells.map((row) => row[i]!.length)));
  lines.push(...cells.map((row) => `  ${row.map((v, i) => v.padEnd(widths[i]!)).join('  ').trimEnd()}`));
  const gaps = Array.isArray(f.observer_gaps) ? (f.observer_gaps as { from_ms?: unknown; to_ms?: unknown }[]) : [];
  for (const g of gaps) {
    lines.push(`  The observer was gone from ${seconds1(g.from_ms)} to ${seconds1(g.to_ms)} (a worker lost): heads then were not judged.`);
  }
  return lines;
}

/**
 * The prober's own health (verdict.prober, DESIGN §17): one line, and a warning when it was
 * overloaded — its latencies then include its own lateness.
 */
function proberLines(report: VerdictReport): string[] {
  const p = report.verdict.prober as Record<string, unknown> | undefined;
  if (!p || typeof p !== 'object') return [];
  const lag = num(p.send_lag_p99_ms) === null ? '' : `, send lag p99 ${num(p.send_lag_p99_ms)} ms`;
  const health = `event-loop delay p99 ${num(p.loop_delay_p99_ms)} ms (max ${num(p.loop_delay_max_ms)} ms)${lag}, CPU ${Math.round(num(p.cpu_pct) ?? 0)} %`;
  return p.overloaded === true
    ? [`Prober OVERLOADED: ${health} — latency judged on these samples is inconclusive, and this run joins no baseline.`]
    : [`Prober: ${health}.`];
}

/** A capacity sweep's step table, the same rows as the Markdown's (capacityTable), in padded columns. */
function capacityLines(report: VerdictReport): string[] {
  const c = report.verdict.capacity as CapacityComparison | null | undefined;
  if (!c || !Array.isArray(c.endpoints)) return [];
  const table = capacityTable(c, 'text');
  const cells = [table.header, ...table.rows];
  const widths = table.header.map((_, i) => Math.max(...cells.map((row) => row[i]!.length)));
  return [table.intro, ...cells.map((row) => `  ${row.map((v, i) => v.padEnd(widths[i]!)).join('  ').trimEnd()}`), ...table.notes.map((n) => `  ${n}`)];
}

/** At most this many of the correctness check's listed mismatches are printed (the verdict lists them all). */
const TEXT_MISMATCHES = 5;

interface MismatchView {
  method: string;
  params?: unknown;
  occurrences?: number;
  candidate_hash: string;
  reference_hash: string;
  differences?: { path: string; candidate: string; reference: string }[];
  more_differences?: boolean;
  differences_status?: string;
}

/** The correctness check's listed mismatches as the Markdown writes them: each path with both values where known, else both fingerprints. */
function mismatchLines(report: VerdictReport): string[] {
  const check = checks(report).find((c) => c.name === 'correctness');
  const listed = (check?.details as { mismatches?: MismatchView[] } | undefined)?.mismatches;
  if (!Array.isArray(listed) || listed.length === 0) return [];
  const lines = ['Mismatches:'];
  for (const m of listed.slice(0, TEXT_MISMATCHES)) {
    const times = (m.occurrences ?? 1) > 1 ? ` (×${m.occurrences})` : '';
    const what =
      m.differences_status === 'shown' && m.differences && m.differences.length > 0
        ? m.differences.map((d) => `${d.path} candidate ${d.candidate} ≠ reference ${d.reference}`).join('; ') + (m.more_differences ? '; more paths differ' : '')
        : `candidate ${m.candidate_hash.slice(0, 12)} ≠ reference ${m.reference_hash.slice(0, 12)}`;
    lines.push(`  ${m.method} ${JSON.stringify(m.params ?? null).slice(0, 120)}${times}: ${what}`);
  }
  if (listed.length > TEXT_MISMATCHES) lines.push(`  … ${listed.length - TEXT_MISMATCHES} more (the verdict lists them)`);
  return lines;
}

/** Plain text for a terminal or a CI log: verdict line, summary, one line per check, dashboard link. */
export function formatText(report: VerdictReport): string {
  const { verdict } = report;
  const list = checks(report);
  const lines = [`${String(verdict.verdict).toUpperCase()}: ${suiteName(report)} (run ${report.runId}, exit code ${verdict.exit_code})`];
  if (verdict.summary) lines.push(verdict.summary);
  const width = Math.max(0, ...list.map((c) => c.name.length));
  // An inconclusive check stands out in its own column width, so a reader never takes it for a pass.
  const statusWidth = Math.max(4, ...list.map((c) => String(c.status).length));
  for (const check of list) {
    lines.push(`  ${String(check.status).toUpperCase().padEnd(statusWidth)}  ${check.name.padEnd(width)}  ${check.message}`);
  }
  if (list.length === 0) lines.push('  (no checks: the run did not finish successfully, so nothing was judged)');
  lines.push(...mismatchLines(report));
  lines.push(...percentileLines(report));
  lines.push(...freshnessLines(report));
  lines.push(...proberLines(report));
  lines.push(...capacityLines(report));
  if (verdict.dashboard_url) lines.push(`Dashboard: ${verdict.dashboard_url}`);
  return `${lines.join('\n')}\n`;
}

/** The verdict object exactly as the API returned it. */
export function formatJson(report: VerdictReport): string {
  return `${JSON.stringify(report.verdict, null, 2)}\n`;
}

/** The API's Markdown summary plus the dashboard link: fit for a pull-request comment or a step summary. */
export function formatMarkdown(report: VerdictReport): string {
  const { verdict } = report;
  const parts = [String(verdict.markdown_summary ?? verdict.summary ?? '').trimEnd()];
  if (verdict.dashboard_url) parts.push(`[Open run ${report.runId} in the dashboard](${verdict.dashboard_url})`);
  return `${parts.join('\n\n')}\n`;
}

// Characters XML 1.0 cannot carry at all, even escaped, and unpaired surrogates.
// eslint-disable-next-line no-control-regex
const INVALID_XML = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

const XML_ENTITIES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&apos;',
  '\r': '&#13;',
  '\n': '&#10;',
  '\t': '&#9;',
};

/**
 * Escapes for XML text or attribute values. Characters XML cannot represent become U+FFFD. In
 * attributes, quotes are escaped and newlines and tabs are written as character references so
 * parsers keep them; in text, a carriage return is (parsers would turn CR LF into LF).
 */
export function xmlEscape(value: string, where: 'text' | 'attribute' = 'attribute'): string {
  const special = where === 'attribute' ? /[&<>"'\r\n\t]/g : /[&<>\r]/g;
  return value.replace(INVALID_XML, '\uFFFD').replace(special, (c) => XML_ENTITIES[c]!);
}

function seconds(run: RunView | null): string {
  const start = run?.started_at ? Date.parse(run.started_at) : NaN;
  const end = run?.finished_at ? Date.parse(run.finished_at) : NaN;
  return Number.isFinite(start) && Number.isFinite(end) && end >= start ? ((end - start) / 1000).toFixed(3) : '0';
}

/** A JUnit testcase: a check, or one candidate of a check judged per candidate. */
interface CaseView {
  name: string;
  status: unknown;
  message: string;
  details?: unknown;
}

interface FreshnessDetailsView {
  head_lag_p95_max_ms?: unknown;
  missed_heads_max_pct?: unknown;
  stall_max_s?: unknown;
  candidates?: { endpoint_id?: unknown; endpoint_name?: unknown; status?: unknown; reason?: unknown; lag_p95_ms?: unknown; missed_pct?: unknown; longest_stall_s?: unknown }[];
}

/**
 * freshness_vs_reference judges each candidate on its own: one testcase per candidate, so a red
 * build names the endpoint and the figure that failed it ("lag p95 …", "missed 2 of 7", "longest
 * stall 41.0 s"), each beside its limit. A verdict without per-candidate details stays one testcase.
 */
function freshnessCases(check: CaseView, report: VerdictReport): CaseView[] | null {
  const details = (check.details ?? {}) as FreshnessDetailsView;
  if (!Array.isArray(details.candidates) || details.candidates.length === 0) return null;
  const counts = new Map((freshnessOf(report)?.candidates ?? []).map((c) => [c.endpoint_id, c]));
  return details.candidates.map((c) => {
    const measured = counts.get(c.endpoint_id) ?? {};
    const p95 = c.lag_p95_ms as PercentileView | null | undefined;
    const lag = p95 && typeof p95.point === 'number' ? `lag p95 ${showMsInterval(p95)}` : 'no lag measured';
    const stall = num(c.longest_stall_s) === null ? '–' : `${num(c.longest_stall_s)!.toFixed(1)} s`;
    const reason = FRESHNESS_REASON_TEXT[c.reason as FreshnessReason] ?? String(c.status);
    const message =
      `${String(c.endpoint_name)}: ${lag} (limit ${String(details.head_lag_p95_max_ms)} ms), ` +
      `missed ${missedText({ ...measured, missed_pct: c.missed_pct }, `limit ${String(details.missed_heads_max_pct)}%`)}, ` +
      `longest stall ${stall} (limit ${String(details.stall_max_s)} s) — ${reason}`;
    return { name: `${check.name}: ${String(c.endpoint_name)}`, status: c.status, message, details: { ...c, ...measured } };
  });
}

/**
 * A JUnit XML report: one testsuite named after the suite, one testcase per check (per candidate
 * for freshness_vs_reference), a <failure> per
 * failed check, a <skipped> with the reason per inconclusive one (a <failure> instead under
 * thresholds.fail_on_inconclusive, where it fails the verdict, so the red build names it). A verdict of `error` has no checks; it becomes one testcase with an <error>, so CI
 * shows a red test rather than an empty, green suite.
 */
export function formatJunit(report: VerdictReport): string {
  const { verdict, run } = report;
  const name = suiteName(report);
  const a = (value: unknown) => xmlEscape(String(value ?? ''), 'attribute');
  const t = (value: unknown) => xmlEscape(String(value ?? ''), 'text');
  const list = checks(report);
  const testcases: CaseView[] = list.flatMap((check) => (check.name === 'freshness_vs_reference' && freshnessCases(check, report)) || [check]);
  const cases: string[] = [];
  let failures = 0;
  let errors = 0;
  let skipped = 0;
  const thresholds = verdict.thresholds as { fail_on_inconclusive?: unknown } | undefined;
  const failsOnInconclusive = thresholds?.fail_on_inconclusive === true;
  for (const check of testcases) {
    const open = `    <testcase classname="${a(`rvs.${name}`)}" name="${a(check.name)}" time="0"`;
    if (check.status === 'pass') {
      cases.push(`${open}/>`);
      continue;
    }
    // Inconclusive: the run could not tell; CI shows it as skipped with the reason, not as a pass or a failure.
    if (check.status === 'inconclusive' && !failsOnInconclusive) {
      skipped += 1;
      cases.push(`${open}>`, `      <skipped message="${a(check.message)}"/>`, '    </testcase>');
      continue;
    }
    failures += 1;
    const body = [check.message, check.details ? JSON.stringify(check.details, null, 2) : ''].filter(Boolean).join('\n');
    cases.push(`${open}>`, `      <failure message="${a(check.message)}" type="${a(check.status)}">${t(body)}</failure>`, '    </testcase>');
  }
  if (list.length === 0) {
    const pass = verdict.verdict === 'pass';
    const open = `    <testcase classname="${a(`rvs.${name}`)}" name="run" time="${seconds(run)}"`;
    if (pass) {
      cases.push(`${open}/>`);
    } else {
      errors += 1;
      cases.push(`${open}>`, `      <error message="${a(verdict.summary)}" type="${a(verdict.verdict)}">${t(verdict.summary)}</error>`, '    </testcase>');
    }
  }
  const tests = Math.max(testcases.length, 1);
  const counts = `tests="${tests}" failures="${failures}" errors="${errors}" skipped="${skipped}"`;
  const timestamp = run?.started_at ? ` timestamp="${a(run.started_at)}"` : '';
  const properties = [
    ['run_id', report.runId],
    ['verdict', verdict.verdict],
    ['exit_code', verdict.exit_code],
    ['dashboard_url', verdict.dashboard_url],
  ]
    .filter(([, value]) => value !== undefined && value !== null && value !== '')
    .map(([key, value]) => `      <property name="${a(key)}" value="${a(value)}"/>`);
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="rvs" ${counts} time="${seconds(run)}">`,
    `  <testsuite name="${a(name)}" ${counts} time="${seconds(run)}"${timestamp}>`,
    '    <properties>',
    ...properties,
    '    </properties>',
    ...cases,
    `    <system-out>${t(verdict.summary)}</system-out>`,
    '  </testsuite>',
    '</testsuites>',
    '',
  ].join('\n');
}

export function formatVerdict(format: Format, report: VerdictReport): string {
  switch (format) {
    case 'json':
      return formatJson(report);
    case 'markdown':
      return formatMarkdown(report);
    case 'junit':
      return formatJunit(report);
    case 'text':
      return formatText(report);
  }
}

/** A created (or unfinished) run, for `rvs run` without --wait. */
export function formatRun(format: Format, run: RunView, url: string): string {
  if (format === 'json') return `${JSON.stringify(run, null, 2)}\n`;
  const lines = [`run ${run.id} ${run.status}`];
  if (run.suite?.name) lines.push(`  suite: ${run.suite.name}`);
  lines.push(`  url:   ${url}`);
  if (typeof run.dashboard_url === 'string') lines.push(`  dashboard: ${run.dashboard_url}`);
  return `${lines.join('\n')}\n`;
}
