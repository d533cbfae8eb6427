import { describeBatchLimit, describeRefusal } from '../batch-limit';
import { showMsInterval } from '../interval-display';
import type { CheckStatus } from '../run-model';
import type { SortedSamples } from '../statistics/quantile-interval';
import type { RunStats } from '../run-stats';
import type { MarkdownContext } from './check-module';
import { CHECKS, type Check } from './checks';
import { intervalsMs, showPercentile } from './format';
import type { CapacityComparison, FreshnessComparison, VerdictInput, VerdictValue } from './types';

const STATUS_CELL: Record<CheckStatus, string> = { pass: '✅ pass', fail: '❌ fail', inconclusive: '❔ inconclusive' };

/**
 * At most this much Markdown: it is a pull-request comment (GitHub: 65,536 characters), a step
 * summary (1 MiB) and part of every webhook. Whatever makes it longer is cut at a line, with a
 * last line saying how many lines were not shown.
 */
export const MAX_MARKDOWN_CHARS = 60_000;

function capMarkdown(lines: string[]): string {
  let length = 0;
  for (const [index, line] of lines.entries()) {
    length += line.length + 1;
    // Room kept for the marker line.
    if (length > MAX_MARKDOWN_CHARS - 200) {
      const rest = lines.length - index;
      return [...lines.slice(0, index), '', `… ${rest} more line${rest === 1 ? '' : 's'} not shown (the verdict from the API has them all)`].join('\n');
    }
  }
  return lines.join('\n');
}

/**
 * "Branch `feature/x` @ `1a2b3c4` · baseline branch `main` (compared with it; never joins it)".
 * A branch is named by whoever pushed it: inside code spans, with backticks and line breaks
 * (git allows the first) taken out, it cannot become a link or markup in a pull-request comment.
 */
function sourceMarkdown(source: NonNullable<VerdictInput['source']>): string | null {
  if (source.branch === null && source.commit === null) return null;
  const code = (text: string) => `\`${text.replace(/[`\r\n]/g, '\'')}\``;
  const parts = [
    source.branch === null ? 'No branch' : `Branch ${code(source.branch)}`,
    ...(source.commit === null ? [] : [`@ ${code(source.commit.slice(0, 12))}`]),
  ];
  const other = source.branch !== null && source.branch !== source.baselineBranch;
  return `${parts.join(' ')} · baseline branch ${code(source.baselineBranch)}${other ? ' (compared with it; never joins it)' : ''}`;
}

/** The verdict as a pull-request comment: heading, summary, one row per check, the endpoints' stats, the top mismatches. */
export function verdictMarkdown(
  input: VerdictInput,
  verdict: VerdictValue,
  summary: string,
  checks: readonly Check[],
  freshness?: FreshnessComparison,
  capacity?: CapacityComparison,
): string {
  const icon = { pass: '✅', fail: '❌', error: '⚠️' }[verdict];
  const lines = [`### ${icon} ${input.suiteName}: ${verdict.toUpperCase()}`, '', summary, ''];
  const escape = (text: string) => text.replace(/\|/g, '\\|');
  const sourceLine = input.source && sourceMarkdown(input.source);
  if (sourceLine) lines.push(sourceLine, '');
  if (checks.length > 0) {
    lines.push('| Check | Status | Result |', '| --- | --- | --- |');
    for (const check of checks) {
      lines.push(`| ${check.name} | ${STATUS_CELL[check.status]} | ${escape(check.message)} |`);
    }
    lines.push('');
    for (const check of checks.filter((c) => c.status === 'inconclusive')) {
      // Every three-valued message ends in " — <status>: <why>"; the sentence is the why.
      const because = check.message.split(' — ').pop()!.replace(/^inconclusive: /, '');
      lines.push(
        `> **${check.name} is inconclusive**: ${because}` +
          `${input.thresholds.fail_on_inconclusive ? ' (thresholds.fail_on_inconclusive: this fails the verdict)' : ' (this does not fail the verdict)'}.`,
        '',
      );
    }
  }
  const context: MarkdownContext = { input, ...(freshness ? { freshness } : {}), ...(capacity ? { capacity } : {}), escape };
  // The endpoints and the batch limits are the verdict's own; every other section is a check's, given the check as judged.
  const sections = [
    { rank: 10, lines: endpointsMarkdown },
    { rank: 50, lines: batchLimitsMarkdown },
    ...CHECKS.flatMap(({ name, markdown }) =>
      markdown ? [{ rank: markdown.rank, lines: (c: MarkdownContext) => markdown.lines(c, checks.find((k) => k.name === name) as never) }] : [],
    ),
  ].sort((a, b) => a.rank - b.rank);
  for (const section of sections) lines.push(...section.lines(context));
  return capMarkdown(lines);
}

/** One row per endpoint: its calls, failures and percentiles with their intervals (each candidate too when there are several). */
function endpointsMarkdown({ input, escape }: MarkdownContext): string[] {
  const cell = (point: number, latencies: SortedSamples | undefined, p: 'p50' | 'p95' | 'p99') =>
    latencies ? showPercentile(intervalsMs(latencies)[p], latencies.length, point) : `${point} ms`;
  // Behind: answered "not there yet" (Solana's -32016), a freshness matter shown apart from the other failures.
  const failed = (s: RunStats) => `${s.calls.failed}${s.calls.behind ? ` (${s.calls.behind} behind)` : ''}`;
  const row = (name: string, s: RunStats, latencies: SortedSamples | undefined) =>
    `| ${name} | ${s.calls.total} | ${failed(s)} | ${cell(s.latency.successful.p50_ms, latencies, 'p50')} | ` +
    `${cell(s.latency.successful.p95_ms, latencies, 'p95')} | ${cell(s.latency.successful.p99_ms, latencies, 'p99')} |`;
  const lines = [
    '| Endpoint | Calls | Failed | p50 [95% interval] | p95 [95% interval] | p99 [95% interval] |',
    '| --- | --- | --- | --- | --- | --- |',
    row('candidate', input.candidate, input.candidateLatencies),
  ];
  const targets = input.targets ?? [];
  if (targets.length > 1) {
    for (const target of targets) {
      const intervals = intervalsMs(target.latencies);
      const calls = target.stats ? `${target.stats.total} | ${target.stats.failed}` : `– | –`;
      lines.push(
        `| candidate (${escape(target.endpoint_name)}) | ${calls} | ${showMsInterval(intervals.p50)} | ${showMsInterval(intervals.p95)} | ${showMsInterval(intervals.p99)} |`,
      );
    }
  }
  if (input.reference) lines.push(row(`reference (${escape(input.reference.endpoint_name)})`, input.reference.stats, input.reference.latencies));
  return lines;
}

/** The batch limits the run found: not a check, what the probes learnt of each endpoint. */
function batchLimitsMarkdown({ input, escape }: MarkdownContext): string[] {
  return (input.batchLimits ?? []).flatMap((b) => {
    const name = `${b.role === 'reference' ? 'reference' : 'candidate'} (${escape(b.endpoint_name)})`;
    const searched = b.probes > 0 ? `, found with ${b.probes} extra batch request${b.probes === 1 ? '' : 's'}` : '';
    return ['', `Batch limit of ${name}: ${describeBatchLimit(b)} — batches of ${b.min_refused} were refused as a whole with ${describeRefusal(b.refused_with)}${searched}.`];
  });
}
