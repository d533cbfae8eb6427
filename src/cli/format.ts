import type { CheckJson, VerdictJson } from '../domain/verdict/check-module';
import { CHECKS } from '../domain/verdict/checks';
import { num } from '../domain/verdict/verdict-json';
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

/**
 * The prober's own health (verdict.prober, DESIGN §17): one line, and a warning when it was
 * overloaded — its latencies then include its own lateness.
 */
function proberLines(verdict: VerdictJson): string[] {
  const p = verdict.prober as Record<string, unknown> | undefined;
  if (!p || typeof p !== 'object') return [];
  const lag = num(p.send_lag_p99_ms) === null ? '' : `, send lag p99 ${num(p.send_lag_p99_ms)} ms`;
  const health = `event-loop delay p99 ${num(p.loop_delay_p99_ms)} ms (max ${num(p.loop_delay_max_ms)} ms)${lag}, CPU ${Math.round(num(p.cpu_pct) ?? 0)} %`;
  return p.overloaded === true
    ? [`Prober OVERLOADED: ${health} — latency judged on these samples is inconclusive, and this run joins no baseline.`]
    : [`Prober: ${health}.`];
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
  // The prober is the verdict's own; every other section is a check's, given the check as the verdict lists it.
  const sections = [
    { rank: 40, lines: proberLines },
    ...CHECKS.flatMap(({ name, text }) => (text ? [{ rank: text.rank, lines: (v: VerdictJson) => text.lines(v, list.find((c) => c.name === name)) }] : [])),
  ].sort((a, b) => a.rank - b.rank);
  for (const section of sections) lines.push(...section.lines(verdict));
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

/**
 * A JUnit XML report: one testsuite named after the suite, one testcase per check (per candidate
 * for a check judged per candidate: its module's junitCases), a <failure> per
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
  // A check judged per candidate is one testcase per candidate (its module's junitCases).
  const testcases: CheckJson[] = list.flatMap((check) => CHECKS.find((m) => m.name === check.name)?.junitCases?.(check, verdict) ?? [check]);
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
