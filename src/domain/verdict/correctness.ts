import { emptyTally, judgeCorrectness, type CorrectnessSummary } from '../correctness';
import type { CheckJson, CheckModule, MarkdownContext } from './check-module';

/** The correctness check as judgeCorrectness gives it (its details: CorrectnessDetails). */
export type CorrectnessCheck = CorrectnessSummary;

/** Mismatches listed in the Markdown and the `rvs` text (the verdict lists more). */
const SHOWN_MISMATCHES = 5;

/**
 * The candidates' answers against the reference's: when the suite has a reference and
 * thresholds.correctness_enabled. An omitted tally counts as nothing compared.
 */
export const correctness: CheckModule<CorrectnessCheck> = {
  name: 'correctness',
  judge: (input) =>
    input.reference && input.thresholds.correctness_enabled
      ? { check: judgeCorrectness(input.correctness ?? emptyTally(), input.thresholds.correctness_min_pct) }
      : null,
  markdown: { rank: 70, lines: mismatchesMarkdown },
  text: { rank: 10, lines: (_verdict, own) => mismatchLines(own) },
};

/** The mismatches per method, then the top mismatches: each path with both values where known, else both fingerprints. */
function mismatchesMarkdown(_context: MarkdownContext, own: CorrectnessCheck | undefined): string[] {
  const lines: string[] = [];
  const mismatches = own?.details.mismatches ?? [];
  const byMethod = own?.details.mismatches_by_method ?? [];
  if (byMethod.length > 0) {
    const counts = byMethod.map((m) => `\`${m.method}\` ${m.mismatched} of ${m.compared}`).join(', ');
    lines.push('', `Mismatches by method: ${counts}.`);
  }
  if (mismatches.length > 0) {
    lines.push('', '<details><summary>Top mismatches</summary>', '');
    const code = (text: string) => `\`${text.replace(/`/g, "'")}\``;
    for (const m of mismatches.slice(0, SHOWN_MISMATCHES)) {
      const params = JSON.stringify(m.params ?? null).slice(0, 120);
      const times = (m.occurrences ?? 1) > 1 ? ` (×${m.occurrences})` : '';
      const what =
        m.differences_status === 'shown' && m.differences && m.differences.length > 0
          ? m.differences.map((d) => `${code(d.path)} candidate ${code(d.candidate)} ≠ reference ${code(d.reference)}`).join('; ') +
            (m.more_differences ? '; more paths differ, not shown' : '')
          : `candidate ${code(m.candidate_hash.slice(0, 12))} ≠ reference ${code(m.reference_hash.slice(0, 12))}`;
      lines.push(`- ${code(m.method)} ${code(params)}${times}: ${what}`);
    }
    const unlisted = mismatches.length - SHOWN_MISMATCHES;
    if (unlisted > 0) lines.push(`- … ${unlisted} more mismatch${unlisted === 1 ? '' : 'es'} not shown (the verdict lists them)`);
    lines.push('', '</details>');
  }
  return lines;
}

interface MismatchJson {
  method: string;
  params?: unknown;
  occurrences?: number;
  candidate_hash: string;
  reference_hash: string;
  differences?: { path: string; candidate: string; reference: string }[];
  more_differences?: boolean;
  differences_status?: string;
}

/** The listed mismatches as the Markdown writes them, for a terminal. */
function mismatchLines(own: CheckJson | undefined): string[] {
  const listed = (own?.details as { mismatches?: MismatchJson[] } | undefined)?.mismatches;
  if (!Array.isArray(listed) || listed.length === 0) return [];
  const lines = ['Mismatches:'];
  for (const m of listed.slice(0, SHOWN_MISMATCHES)) {
    const times = (m.occurrences ?? 1) > 1 ? ` (×${m.occurrences})` : '';
    const what =
      m.differences_status === 'shown' && m.differences && m.differences.length > 0
        ? m.differences.map((d) => `${d.path} candidate ${d.candidate} ≠ reference ${d.reference}`).join('; ') + (m.more_differences ? '; more paths differ' : '')
        : `candidate ${m.candidate_hash.slice(0, 12)} ≠ reference ${m.reference_hash.slice(0, 12)}`;
    lines.push(`  ${m.method} ${JSON.stringify(m.params ?? null).slice(0, 120)}${times}: ${what}`);
  }
  if (listed.length > SHOWN_MISMATCHES) lines.push(`  … ${listed.length - SHOWN_MISMATCHES} more (the verdict lists them)`);
  return lines;
}
