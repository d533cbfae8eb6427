import { describeBatchLimit, describeRefusal } from '../batch-limit';
import { showMsInterval } from '../interval-display';
import type { CheckStatus } from '../run-model';
import type { SortedSamples } from '../statistics/quantile-interval';
import type { RunStats } from '../run-stats';
import type { Check } from './checks';
import type { CorrectnessCheck } from './correctness';
import { capacityTable } from './capacity-table';
import { intervalsMs, showPercentile } from './format';
import type { CapacityComparison, FreshnessComparison, VerdictInput, VerdictValue } from './types';

const STATUS_CELL: Record<CheckStatus, string> = { pass: '✅ pass', fail: '❌ fail', inconclusive: '❔ inconclusive' };

/**
 * At most this much Markdown: it is a pull-request comment (GitHub: 65,536 characters), a step
 * summary (1 MiB) and part of every webhook. Whatever makes it longer is cut at a line, with a
 * last line saying how many lines were not shown.
 */
export const MAX_MARKDOWN_CHARS = 60_000;
/** Mismatches listed in the Markdown (the verdict lists more). */
const MARKDOWN_MISMATCHES = 5;

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
  const cell = (point: number, latencies: SortedSamples | undefined, p: 'p50' | 'p95' | 'p99') =>
    latencies ? showPercentile(intervalsMs(latencies)[p], latencies.length, point) : `${point} ms`;
  // Behind: answered "not there yet" (Solana's -32016), a freshness matter shown apart from the other failures.
  const failed = (s: RunStats) => `${s.calls.failed}${s.calls.behind ? ` (${s.calls.behind} behind)` : ''}`;
  const row = (name: string, s: RunStats, latencies: SortedSamples | undefined) =>
    `| ${name} | ${s.calls.total} | ${failed(s)} | ${cell(s.latency.successful.p50_ms, latencies, 'p50')} | ` +
    `${cell(s.latency.successful.p95_ms, latencies, 'p95')} | ${cell(s.latency.successful.p99_ms, latencies, 'p99')} |`;
  lines.push(
    '| Endpoint | Calls | Failed | p50 [95% interval] | p95 [95% interval] | p99 [95% interval] |',
    '| --- | --- | --- | --- | --- | --- |',
    row('candidate', input.candidate, input.candidateLatencies),
  );
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
  const heads = input.reference?.lastHeads;
  if (heads && heads.length > 0) {
    const one = (h: (typeof heads)[number]) => `${h.role === 'reference' ? 'reference' : 'candidate'} (${escape(h.endpoint_name)}) ${h.head} · ${h.block_height ?? '–'}`;
    const lag = input.reference?.headLagBlocks;
    const ms = input.reference?.headLagMs;
    lines.push('', `Last heads read (slot · block height): ${heads.map(one).join('; ')}.${lag === null || lag === undefined ? '' : ` Head lag ${lag} slots${ms === null || ms === undefined ? '' : ` (≈ ${ms} ms)`}.`}`);
  }
  if ([input.candidate, input.reference?.stats].some((s) => s?.calls.behind)) {
    lines.push('', '> **behind**: answered -32016 "Minimum context slot has not been reached" — the node had not reached the slot asked for. Counted as failed calls (availability), never as mismatches.');
  }
  if (freshness) lines.push('', ...freshnessMarkdown(freshness, escape));
  for (const b of input.batchLimits ?? []) {
    const name = `${b.role === 'reference' ? 'reference' : 'candidate'} (${escape(b.endpoint_name)})`;
    const searched = b.probes > 0 ? `, found with ${b.probes} extra batch request${b.probes === 1 ? '' : 's'}` : '';
    lines.push('', `Batch limit of ${name}: ${describeBatchLimit(b)} — batches of ${b.min_refused} were refused as a whole with ${describeRefusal(b.refused_with)}${searched}.`);
  }
  if (capacity) lines.push('', ...capacityMarkdown(capacity, escape));
  const correctness = checks.find((c): c is CorrectnessCheck => c.name === 'correctness')?.details;
  const mismatches = correctness?.mismatches ?? [];
  const byMethod = correctness?.mismatches_by_method ?? [];
  if (byMethod.length > 0) {
    const counts = byMethod.map((m) => `\`${m.method}\` ${m.mismatched} of ${m.compared}`).join(', ');
    lines.push('', `Mismatches by method: ${counts}.`);
  }
  if (mismatches.length > 0) {
    lines.push('', '<details><summary>Top mismatches</summary>', '');
    const code = (text: string) => `\`${text.replace(/`/g, "'")}\``;
    for (const m of mismatches.slice(0, MARKDOWN_MISMATCHES)) {
      const params = JSON.stringify(m.params ?? null).slice(0, 120);
      const times = (m.occurrences ?? 1) > 1 ? ` (×${m.occurrences})` : '';
      // What differs, where it is known: each path with both values; else the two fingerprints.
      const what =
        m.differences_status === 'shown' && m.differences && m.differences.length > 0
          ? m.differences.map((d) => `${code(d.path)} candidate ${code(d.candidate)} ≠ reference ${code(d.reference)}`).join('; ') +
            (m.more_differences ? '; more paths differ, not shown' : '')
          : `candidate ${code(m.candidate_hash.slice(0, 12))} ≠ reference ${code(m.reference_hash.slice(0, 12))}`;
      lines.push(`- ${code(m.method)} ${code(params)}${times}: ${what}`);
    }
    const unlisted = mismatches.length - MARKDOWN_MISMATCHES;
    if (unlisted > 0) lines.push(`- … ${unlisted} more mismatch${unlisted === 1 ? '' : 'es'} not shown (the verdict lists them)`);
    lines.push('', '</details>');
  }
  return capMarkdown(lines);
}

/** The head watch: one row per candidate, the reference's own heads and any observer gap. */
function freshnessMarkdown(f: FreshnessComparison, escape: (text: string) => string): string[] {
  const resolution = f.resolution_ms === null ? '' : ` (polled every ${f.resolution_ms} ms: arrival times are known to within that)`;
  const lines = [
    `Head arrivals over ${f.duration_s} s via ${f.via}${resolution}; the reference (${escape(f.reference.endpoint_name)}) announced ${f.reference.heads} heads.`,
    '',
    '| Endpoint | Lag p50 [95% interval] | Lag p95 [95% interval] | Missed | Late | Reorgs | Longest stall | Reconnects |',
    '| --- | --- | --- | --- | --- | --- | --- | --- |',
  ];
  for (const c of f.candidates) {
    const lag = (p: 'p50' | 'p95') => (c.lag_ms === null ? '–' : showMsInterval(c.lag_ms[p]));
    const missed = `${c.missed} of ${c.judged}${c.missed_pct === null ? '' : ` (${c.missed_pct}%)`}`;
    lines.push(
      `| ${escape(c.endpoint_name)} | ${lag('p50')} | ${lag('p95')} | ${missed} | ${c.late} | ${c.reorgs} | ${(c.longest_stall_ms / 1000).toFixed(1)} s | ${c.reconnects} |`,
    );
  }
  for (const g of f.observer_gaps) {
    lines.push('', `> The observer was gone from ${(g.from_ms / 1000).toFixed(1)} s to ${(g.to_ms / 1000).toFixed(1)} s (a worker lost): heads then were not judged.`);
  }
  return lines;
}

/** The capacity sweep: one row per endpoint and step, the knee marked, a step the prober could not keep said so. */
function capacityMarkdown(c: CapacityComparison, escape: (text: string) => string): string[] {
  const table = capacityTable(c, 'markdown');
  return [
    table.intro,
    '',
    `| ${table.header.join(' | ')} |`,
    `|${' --- |'.repeat(table.header.length)}`,
    ...table.rows.map((row) => `| ${[escape(row[0]!), ...row.slice(1)].join(' | ')} |`),
    ...table.notes.flatMap((note) => ['', `> ${escape(note)}`]),
  ];
}
