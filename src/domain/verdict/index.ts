import { CHECKS, type Check } from './checks';
import { verdictMarkdown } from './markdown';
import { judgeProber, proberMarkdown, withProberVerdict, type ProberSection } from './prober';
import { combineRegions, judgeRegion, regionsMarkdown, type RegionInput, type RegionVerdict } from './regions';
import type { BaselineComparison, CapacityComparison, EndpointBatchLimit, FreshnessComparison, ReferenceComparison, Thresholds, VerdictInput, VerdictValue } from './types';

export type { Check, CheckName } from './checks';
export { CHECKS } from './checks';
export type { CheckJson, CheckModule, MarkdownContext, Section, VerdictJson } from './check-module';
export type { AvailabilityCheck, AvailabilityDetails } from './availability';
export type { CapacityCheck, CapacityDetails } from './capacity';
export type { CorrectnessCheck } from './correctness';
export type { LatencyP95Check, LatencyP95Details } from './latency-p95';
export type { HistoryBaselineDetails, LatencyVsBaselineCheck, LatencyVsBaselineDetails, RunBaselineDetails } from './latency-vs-baseline';
export type { LatencyVsReferenceCheck, LatencyVsReferenceDetails } from './latency-vs-reference';
export type { FreshnessDetails, FreshnessVsReferenceCheck } from './freshness-vs-reference';
export { baselineModel } from './latency-vs-baseline';
export { driftPct } from './format';
export { judgeProber, PROBER_OVERLOAD, type ProberHealth, type ProberHealthSample, type ProberSection } from './prober';
export { verdictRanks } from './ranks';
export type { IntegrityInput } from './integrity';
export type { RegionInput, RegionStatus, RegionVerdict } from './regions';
export {
  DEFAULT_REGRESSION_MIN_MS,
  DEFAULT_SUCCESS_RATE_MIN_PCT,
  type BaselineComparison,
  type BaselineInput,
  type BaselineLimits,
  type BaselineModelUsed,
  type BaselineRun,
  type EndpointBatchLimit,
  type CapacityComparison,
  type CapacityEndpoint,
  type CapacityStep,
  type EndpointFreshness,
  type FreshnessComparison,
  type FreshnessReason,
  type FreshnessWatchInput,
  type IntervalMs,
  type IntervalPct,
  type MethodComparison,
  type MethodLatency,
  type PairedLatencies,
  type Pairing,
  type PercentileIntervalsMs,
  type PercentileMs,
  type PersistingLimits,
  type ReferenceComparison,
  type SweepInput,
  type SweepStepInput,
  type Thresholds,
  type UnpairedReason,
  type VerdictInput,
  type VerdictValue,
} from './types';

/** Everything of the spec's Verdict except dashboard_url, which is signed per request. */
export interface ComputedVerdict {
  verdict: VerdictValue;
  summary: string;
  checks: Check[];
  reference_comparison: ReferenceComparison | null;
  baseline_comparison: BaselineComparison | null;
  /** The run's head watch against the reference; absent when the run watched no heads. */
  freshness_comparison?: FreshnessComparison;
  /** The batch limits the run found (its batches refused for their size); absent when none was. */
  batch_limits?: EndpointBatchLimit[];
  /** A run with vantage_points: each region judged on its own samples (absent for runs without). */
  regions?: RegionVerdict[];
  /** The run's capacity sweep per endpoint and step, with each knee; absent when the run swept nothing. */
  capacity?: CapacityComparison;
  /** The prober's own health while it probed; absent for runs that recorded none. */
  prober?: ProberSection;
  thresholds: Thresholds;
  markdown_summary: string;
  exit_code: 0 | 1 | 2;
}

/**
 * Pure: judges a finished run. No I/O, so every boundary is a table-driven unit test. A run with
 * vantage points passes `regions` (the input restricted to each region's samples): each is judged
 * on its own too, and the verdict fails if any of them fails.
 */
export function computeVerdict(input: VerdictInput, regions?: readonly RegionInput[]): ComputedVerdict {
  const judged = judgeRun(input);
  if (!regions || judged.verdict === 'error') return judged;
  const byRegion = regions.map((r) => judgeRegion(r, judgeRun));
  const combined = combineRegions(judged, byRegion);
  const markdown = verdictMarkdown(input, combined.verdict, combined.summary, judged.checks, judged.freshness_comparison);
  return {
    ...judged,
    ...combined,
    regions: byRegion,
    markdown_summary: [markdown, '', `Per region (vantage points):`, '', ...regionsMarkdown(byRegion)].join('\n'),
  };
}

function judgeRun(input: VerdictInput): ComputedVerdict {
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
      markdown_summary: verdictMarkdown(input, 'error', summary, []),
      exit_code: 2,
    };
  }
  const judged = CHECKS.map((check) => check.judge(input)).filter((j) => j !== null);
  // A latency the prober's own lateness spoiled is never the endpoint's fail (DESIGN §17).
  const prober = input.prober ? judgeProber(input.prober) : undefined;
  const checks: Check[] = withProberVerdict(judged.map((j) => j.check), prober);
  const referenceComparison = judged.find((j) => j.reference_comparison)?.reference_comparison ?? null;
  const baselineComparison = judged.find((j) => j.baseline_comparison)?.baseline_comparison ?? null;
  const freshnessComparison = judged.find((j) => j.freshness_comparison)?.freshness_comparison;
  const batchLimits = input.batchLimits ?? [];
  const capacityComparison = judged.find((j) => j.capacity)?.capacity;
  const failOnInconclusive = thresholds.fail_on_inconclusive === true;
  const failing = checks.filter((c) => c.status === 'fail' || (failOnInconclusive && c.status === 'inconclusive'));
  const inconclusive = checks.filter((c) => c.status === 'inconclusive');
  const verdict: VerdictValue = failing.length === 0 ? 'pass' : 'fail';
  const p95 = capacityComparison
    ? `knee ${capacityComparison.endpoints.find((e) => e.role === 'primary')?.knee_rps ?? 'none'} rps over ${capacityComparison.steps_probed} steps`
    : `p95 ${input.candidate.latency.successful.p95_ms} ms over ${input.candidate.calls.total} calls`;
  const summary =
    verdict === 'fail'
      ? `${failing.length} of ${checks.length} checks failed: ${failing.map((c) => (c.status === 'inconclusive' ? `${c.name} (inconclusive, fail_on_inconclusive)` : c.name)).join(', ')}.`
      : inconclusive.length === 0
        ? `All ${checks.length} checks passed (${p95}).`
        : `${checks.length - inconclusive.length} of ${checks.length} checks passed, ${inconclusive.length} inconclusive (${inconclusive.map((c) => c.name).join(', ')}); none failed (${p95}).`;
  return {
    verdict,
    summary,
    checks,
    reference_comparison: referenceComparison,
    baseline_comparison: baselineComparison,
    ...(freshnessComparison ? { freshness_comparison: freshnessComparison } : {}),
    ...(batchLimits.length > 0 ? { batch_limits: [...batchLimits] } : {}),
    ...(capacityComparison ? { capacity: capacityComparison } : {}),
    ...(prober ? { prober } : {}),
    thresholds,
    markdown_summary: withProberLine(verdictMarkdown(input, verdict, summary, checks, freshnessComparison, capacityComparison), prober),
    exit_code: verdict === 'pass' ? 0 : 1,
  };
}

function withProberLine(markdown: string, prober: ProberSection | undefined): string {
  return prober ? `${markdown}\n\n${proberMarkdown(prober)}` : markdown;
}
