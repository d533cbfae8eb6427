import { emptyTally, judgeCorrectness, type CorrectnessTally } from './correctness';
import type { RunStats } from './stats';

export interface Thresholds {
  latency_p95_max_ms: number;
  latency_regression_max_pct: number;
  latency_vs_reference_max_pct: number;
  correctness_min_pct: number;
  correctness_enabled: boolean;
}

export type CheckStatus = 'pass' | 'fail';

export interface Check {
  name: 'latency_p95' | 'latency_vs_reference' | 'correctness' | 'latency_vs_baseline';
  status: CheckStatus;
  message: string;
  details: Record<string, unknown>;
}

/** Per-method latency of the candidates (all primary targets together) and the reference. */
export interface MethodLatency {
  method: string;
  /** Candidate calls of this method, and how many of them failed. */
  calls: number;
  failed: number;
  /** Successful calls of this method on each side: the p95s below are over these. */
  candidate_successful: number;
  reference_successful: number;
  /** Nearest-rank p95 over successful calls, whole ms; 0 when that side has none. */
  candidate_p95_ms: number;
  reference_p95_ms: number;
}

/** An item of reference_comparison.latency.by_method. */
export interface MethodComparison {
  method: string;
  calls: number;
  failed: number;
  candidate_p95_ms: number;
  reference_p95_ms: number;
  /** driftPct of the two p95s; null when either side has no successful call of the method. */
  vs_reference_pct: number | null;
}

export interface ReferenceComparison {
  endpoint_id: string;
  endpoint_name: string;
  status: CheckStatus;
  /**
   * Median over the candidates' head observations of (candidate head − reference head observed
   * nearest in time), in blocks; positive = candidate ahead. Null when nothing was observed.
   */
  head_lag_blocks: number | null;
  latency: {
    candidate_p50_ms: number;
    candidate_p95_ms: number;
    candidate_p99_ms: number;
    reference_p95_ms: number;
    vs_reference_pct: number;
    by_method: MethodComparison[];
    status: CheckStatus;
    message: string;
  };
}

export interface BaselineComparison {
  run_id: string;
  candidate_p95_ms: number;
  baseline_p95_ms: number;
  vs_baseline_pct: number;
  status: CheckStatus;
  message: string;
}

export type VerdictValue = 'pass' | 'fail' | 'error';

/** Everything of the spec's Verdict except dashboard_url, which is signed per request. */
export interface ComputedVerdict {
  verdict: VerdictValue;
  summary: string;
  checks: Check[];
  reference_comparison: ReferenceComparison | null;
  baseline_comparison: BaselineComparison | null;
  thresholds: Thresholds;
  markdown_summary: string;
  exit_code: 0 | 1 | 2;
}

export interface VerdictInput {
  run: { id: string; status: 'success' | 'failed' | 'cancelled'; failure_reason: string | null };
  suiteName: string;
  thresholds: Thresholds;
  /** Below this absolute regression a baseline drift is noise, whatever its percentage. */
  regressionMinMs: number;
  candidate: RunStats;
  reference: {
    endpoint_id: string;
    endpoint_name: string;
    stats: RunStats;
    /** Per-method latency of both sides; none when omitted. */
    byMethod?: readonly MethodLatency[];
    /** See ReferenceComparison.head_lag_blocks; null when omitted. */
    headLagBlocks?: number | null;
  } | null;
  baseline: { run_id: string; stats: RunStats } | null;
  /**
   * Candidate/reference answer pairs counted (computed in SQL at finalize). Judged only when a
   * reference exists and thresholds.correctness_enabled; omitted, it counts as nothing compared.
   */
  correctness?: CorrectnessTally;
}

/** Percent drift of `value` against `base`, one decimal; a base of 0 ms counts as 1 ms. */
export function driftPct(value: number, base: number): number {
  // `|| 0` turns -0 into 0 so a tiny improvement never prints as "-0%".
  return Math.round(((value - base) / Math.max(base, 1)) * 1000) / 10 || 0;
}

function latencyP95Check(candidate: RunStats, t: Thresholds): Check {
  const p95 = candidate.latency.successful.p95_ms;
  const details = { p95, threshold: t.latency_p95_max_ms };
  if (candidate.calls.successful === 0) {
    return { name: 'latency_p95', status: 'fail', message: 'no successful calls to measure', details };
  }
  const pass = p95 <= t.latency_p95_max_ms;
  return {
    name: 'latency_p95',
    status: pass ? 'pass' : 'fail',
    message: `p95 ${p95} ms ${pass ? '<=' : '>'} ${t.latency_p95_max_ms} ms`,
    details,
  };
}

function referenceCheck(input: VerdictInput, reference: NonNullable<VerdictInput['reference']>) {
  const candidateP95 = input.candidate.latency.successful.p95_ms;
  const referenceP95 = reference.stats.latency.successful.p95_ms;
  const pct = driftPct(candidateP95, referenceP95);
  const max = input.thresholds.latency_vs_reference_max_pct;
  const measurable = input.candidate.calls.successful > 0 && reference.stats.calls.successful > 0;
  const pass = measurable && pct <= max;
  const message = measurable
    ? `candidate p95 ${candidateP95} ms vs reference ${referenceP95} ms (${formatPct(pct)}, max ${formatPct(max)})`
    : 'no successful calls on the candidate or the reference to compare';
  const check: Check = {
    name: 'latency_vs_reference',
    status: pass ? 'pass' : 'fail',
    message,
    details: { candidate_p95_ms: candidateP95, reference_p95_ms: referenceP95, vs_reference_pct: pct, max_pct: max },
  };
  const comparison: ReferenceComparison = {
    endpoint_id: reference.endpoint_id,
    endpoint_name: reference.endpoint_name,
    status: check.status,
    head_lag_blocks: reference.headLagBlocks ?? null,
    latency: {
      candidate_p50_ms: input.candidate.latency.successful.p50_ms,
      candidate_p95_ms: candidateP95,
      candidate_p99_ms: input.candidate.latency.successful.p99_ms,
      reference_p95_ms: referenceP95,
      vs_reference_pct: pct,
      by_method: (reference.byMethod ?? []).map(methodComparison),
      status: check.status,
      message,
    },
  };
  return { check, comparison };
}

function methodComparison(m: MethodLatency): MethodComparison {
  const measurable = m.candidate_successful > 0 && m.reference_successful > 0;
  return {
    method: m.method,
    calls: m.calls,
    failed: m.failed,
    candidate_p95_ms: m.candidate_p95_ms,
    reference_p95_ms: m.reference_p95_ms,
    vs_reference_pct: measurable ? driftPct(m.candidate_p95_ms, m.reference_p95_ms) : null,
  };
}

function baselineCheck(input: VerdictInput, baseline: NonNullable<VerdictInput['baseline']>) {
  const candidateP95 = input.candidate.latency.successful.p95_ms;
  const baselineP95 = baseline.stats.latency.successful.p95_ms;
  const pct = driftPct(candidateP95, baselineP95);
  const max = input.thresholds.latency_regression_max_pct;
  let pass: boolean;
  let message: string;
  if (baseline.stats.calls.successful === 0) {
    // A baseline that measured nothing cannot show a regression; judging against 0 ms would fail every run.
    pass = true;
    message = 'baseline run has no successful calls; nothing to compare against';
  } else {
    const regressed =
      candidateP95 > baselineP95 * (1 + max / 100) && candidateP95 > baselineP95 + input.regressionMinMs;
    pass = input.candidate.calls.successful > 0 && !regressed;
    message = `candidate p95 ${candidateP95} ms vs baseline ${baselineP95} ms (${formatPct(pct)}, max ${formatPct(max)})`;
  }
  const check: Check = {
    name: 'latency_vs_baseline',
    status: pass ? 'pass' : 'fail',
    message,
    details: {
      baseline_run_id: baseline.run_id,
      candidate_p95_ms: candidateP95,
      baseline_p95_ms: baselineP95,
      vs_baseline_pct: pct,
      max_pct: max,
    },
  };
  const comparison: BaselineComparison = {
    run_id: baseline.run_id,
    candidate_p95_ms: candidateP95,
    baseline_p95_ms: baselineP95,
    vs_baseline_pct: pct,
    status: check.status,
    message,
  };
  return { check, comparison };
}

function formatPct(pct: number): string {
  return `${pct > 0 ? '+' : ''}${pct}%`;
}

function markdown(input: VerdictInput, verdict: VerdictValue, summary: string, checks: Check[]): string {
  const icon = { pass: '✅', fail: '❌', error: '⚠️' }[verdict];
  const lines = [`### ${icon} ${input.suiteName}: ${verdict.toUpperCase()}`, '', summary, ''];
  if (checks.length > 0) {
    lines.push('| Check | Status | Result |', '| --- | --- | --- |');
    for (const check of checks) {
      lines.push(`| ${check.name} | ${check.status === 'pass' ? '✅ pass' : '❌ fail'} | ${check.message.replace(/\|/g, '\\|')} |`);
    }
    lines.push('');
  }
  const row = (name: string, s: RunStats) =>
    `| ${name} | ${s.calls.total} | ${s.calls.failed} | ${s.latency.successful.p50_ms} ms | ${s.latency.successful.p95_ms} ms | ${s.latency.successful.p99_ms} ms |`;
  lines.push('| Endpoint | Calls | Failed | p50 | p95 | p99 |', '| --- | --- | --- | --- | --- | --- |', row('candidate', input.candidate));
  if (input.reference) lines.push(row(`reference (${input.reference.endpoint_name.replace(/\|/g, '\\|')})`, input.reference.stats));
  const mismatches = (checks.find((c) => c.name === 'correctness')?.details.mismatches ?? []) as {
    method: string;
    params: unknown;
    candidate_hash: string;
    reference_hash: string;
  }[];
  if (mismatches.length > 0) {
    lines.push('', '<details><summary>Top mismatches</summary>', '');
    for (const m of mismatches.slice(0, 5)) {
      const params = JSON.stringify(m.params).slice(0, 120).replace(/`/g, "'");
      lines.push(`- \`${m.method}\` \`${params}\`: candidate \`${m.candidate_hash.slice(0, 12)}\` ≠ reference \`${m.reference_hash.slice(0, 12)}\``);
    }
    lines.push('', '</details>');
  }
  return lines.join('\n');
}

/** Pure: judges a finished run. No I/O, so every boundary is a table-driven unit test. */
export function computeVerdict(input: VerdictInput): ComputedVerdict {
  const { run, thresholds } = input;
  if (run.status !== 'success') {
    const summary = `Run ${run.status}: ${run.failure_reason ?? 'no reason recorded'}; nothing to judge.`;
    return {
      verdict: 'error',
      summary,
      checks: [],
      reference_comparison: null,
      baseline_comparison: null,
      thresholds,
      markdown_summary: markdown(input, 'error', summary, []),
      exit_code: 2,
    };
  }
  const checks: Check[] = [latencyP95Check(input.candidate, thresholds)];
  let referenceComparison: ReferenceComparison | null = null;
  if (input.reference) {
    const { check, comparison } = referenceCheck(input, input.reference);
    checks.push(check);
    referenceComparison = comparison;
    if (thresholds.correctness_enabled) {
      checks.push(judgeCorrectness(input.correctness ?? emptyTally(), thresholds.correctness_min_pct));
    }
  }
  let baselineComparison: BaselineComparison | null = null;
  if (input.baseline) {
    const { check, comparison } = baselineCheck(input, input.baseline);
    checks.push(check);
    baselineComparison = comparison;
  }
  const failed = checks.filter((c) => c.status === 'fail');
  const verdict: VerdictValue = failed.length === 0 ? 'pass' : 'fail';
  const summary =
    verdict === 'pass'
      ? `All ${checks.length} checks passed (p95 ${input.candidate.latency.successful.p95_ms} ms over ${input.candidate.calls.total} calls).`
      : `${failed.length} of ${checks.length} checks failed: ${failed.map((c) => c.name).join(', ')}.`;
  return {
    verdict,
    summary,
    checks,
    reference_comparison: referenceComparison,
    baseline_comparison: baselineComparison,
    thresholds,
    markdown_summary: markdown(input, verdict, summary, checks),
    exit_code: verdict === 'pass' ? 0 : 1,
  };
}
