import type { CheckStatus } from '../run-model';
import type { CheckJson, CheckModule, MarkdownContext, VerdictJson } from './check-module';
import type { IntegrityInput } from './integrity-input';
import type { CheckOf, VerdictInput } from './types';

/*
 * The integrity check (issue 34, DESIGN.md §15): each answer of a provable method was proven
 * against a header the run trusts by the integrity step (activities/verify-integrity.ts). Per
 * candidate: fail on any answer proven wrong (method, block, path, what the proof showed); pass
 * when at least one answer was proven and none was wrong; inconclusive when nothing could be
 * proven. Answers not provable are listed apart, with why. A family without proofs over RPC
 * (Solana, CometBFT) is inconclusive, saying so — never a silent pass.
 */

export type { IntegrityInput, IntegrityInputFinding } from './integrity-input';

/** Answers proven wrong, and not provable, listed per candidate in the verdict. */
export const MAX_LISTED_FINDINGS = 10;

export interface IntegrityDetails {
  /** What the proofs were linked to; `self_consistency`: no trusted block and no reference hash (the candidate's own headers). */
  anchor: { source: 'trusted_block' | 'reference' | 'self_consistency'; number: string | null; hash: string | null };
  /** Set when the check does not apply: why (the family has no proofs over RPC). */
  not_applicable: string | null;
  candidates: {
    endpoint_id: string;
    endpoint_name: string;
    status: CheckStatus;
    proven: number;
    wrong: number;
    not_provable: number;
    extra_requests: number;
    wrong_answers: { method: string; params: string; block: string | null; path: string; message: string }[];
    not_provable_answers: { method: string; params: string; reason: string }[];
  }[];
}

export type IntegrityCheck = CheckOf<'integrity', IntegrityDetails>;

function judgeCandidate(c: IntegrityInput['candidates'][number]): IntegrityDetails['candidates'][number] {
  const r = c.result;
  const findings = r?.findings ?? [];
  const wrongAnswers = findings.flatMap((f) => (f.kind === 'wrong' ? [{ method: f.method, params: f.params, block: f.block, path: f.path, message: f.message }] : []));
  const notProvable = findings.flatMap((f) => (f.kind === 'not_provable' ? [{ method: f.method, params: f.params, reason: f.reason }] : []));
  const status: CheckStatus = !r ? 'inconclusive' : r.wrong > 0 ? 'fail' : r.proven > 0 ? 'pass' : 'inconclusive';
  return {
    endpoint_id: c.endpoint_id,
    endpoint_name: c.endpoint_name,
    status,
    proven: r?.proven ?? 0,
    wrong: r?.wrong ?? 0,
    not_provable: r?.not_provable ?? 0,
    extra_requests: r?.extra_requests ?? 0,
    wrong_answers: wrongAnswers.slice(0, MAX_LISTED_FINDINGS),
    not_provable_answers: notProvable.slice(0, MAX_LISTED_FINDINGS),
  };
}

const ANCHOR_TEXT = {
  trusted_block: 'the trusted block',
  reference: "the reference's hash of the pinned block",
  self_consistency: "self-consistency only (the candidates' own headers: no trusted block, no reference hash)",
} as const;

function anchorText(anchor: IntegrityDetails['anchor']): string {
  return anchor.number === null ? ANCHOR_TEXT[anchor.source] : `${ANCHOR_TEXT[anchor.source]} (block ${anchor.number} ${anchor.hash})`;
}

function judgeIntegrity(input: VerdictInput): { check: IntegrityCheck } | null {
  const integrity = input.integrity;
  if (!integrity) return null;
  const anchor: IntegrityDetails['anchor'] = integrity.anchor
    ? { source: integrity.anchor.source, number: integrity.anchor.number, hash: integrity.anchor.hash }
    : { source: 'self_consistency', number: null, hash: null };
  if (!integrity.verifiable) {
    const why = `not applicable: the ${integrity.family} family has no proofs of its answers over RPC`;
    return { check: { name: 'integrity', status: 'inconclusive', message: why, details: { anchor, not_applicable: why, candidates: [] } } };
  }
  const candidates = integrity.candidates.map(judgeCandidate);
  const statuses = candidates.map((c) => c.status);
  const status: CheckStatus = statuses.includes('fail') ? 'fail' : statuses.length > 0 && statuses.every((s) => s === 'pass') ? 'pass' : 'inconclusive';
  const parts = candidates.map((c) => {
    const counts = `${c.proven} proven, ${c.wrong} wrong, ${c.not_provable} not provable`;
    const first = c.wrong_answers[0];
    const wrong = first ? `: ${first.method} at block ${first.block ?? '?'} ${first.path}: ${first.message}` : '';
    return `${c.endpoint_name}: ${counts}${wrong}`;
  });
  const message = `${parts.join('; ') || 'no candidate verified'} — anchored on ${anchorText(anchor)}`;
  return { check: { name: 'integrity', status, message, details: { anchor, not_applicable: null, candidates } } };
}

function markdownLines({ escape }: MarkdownContext, own: IntegrityCheck | undefined): string[] {
  if (!own || own.details.not_applicable) return [];
  const lines: string[] = ['', `Integrity: anchored on ${escape(anchorText(own.details.anchor))}.`];
  const code = (text: string) => `\`${text.replace(/`/g, "'")}\``;
  for (const c of own.details.candidates) {
    lines.push('', `- **${escape(c.endpoint_name)}**: ${c.proven} proven, ${c.wrong} wrong, ${c.not_provable} not provable (${c.extra_requests} extra requests)`);
    for (const w of c.wrong_answers) lines.push(`  - wrong: ${code(w.method)} ${code(w.params.slice(0, 120))} at block ${w.block ?? '?'}, ${code(w.path)}: ${escape(w.message)}`);
    for (const n of c.not_provable_answers) lines.push(`  - not provable: ${code(n.method)}: ${escape(n.reason)}`);
  }
  return lines;
}

const str = (value: unknown): string => (typeof value === 'string' ? value : typeof value === 'number' ? String(value) : '?');

/** The `rvs` text: each wrong answer, then what was not provable (any verdict version: read defensively). */
function textLines(_verdict: VerdictJson, own: CheckJson | undefined): string[] {
  const details = own?.details as { candidates?: unknown } | undefined;
  if (!details || !Array.isArray(details.candidates)) return [];
  const lines: string[] = [];
  for (const c of details.candidates as Record<string, unknown>[]) {
    const wrong = Array.isArray(c.wrong_answers) ? (c.wrong_answers as Record<string, unknown>[]) : [];
    const notProvable = Array.isArray(c.not_provable_answers) ? (c.not_provable_answers as Record<string, unknown>[]) : [];
    if (wrong.length === 0 && notProvable.length === 0) continue;
    lines.push('', `integrity, ${str(c.endpoint_name)}:`);
    for (const w of wrong) lines.push(`  wrong: ${str(w.method)} ${str(w.params).slice(0, 120)} at block ${str(w.block)} ${str(w.path)}: ${str(w.message)}`);
    for (const n of notProvable) lines.push(`  not provable: ${str(n.method)}: ${str(n.reason)}`);
  }
  return lines;
}

/** Each candidate's answers proven against the run's anchor: when the suite enables it (config.integrity). */
export const integrity: CheckModule<IntegrityCheck> = {
  name: 'integrity',
  judge: judgeIntegrity,
  markdown: { rank: 80, lines: markdownLines },
  text: { rank: 60, lines: textLines },
};
